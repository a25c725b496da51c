// The template plan: the standard fix of an api finding (Locale.ROOT for
// locale-sensitive calls, an explicit time zone or the file's Clock for
// time-zone and date findings, an ordered collection for hash iteration
// order, a seeded Random where the test owns the generator), at the
// perturbed call sites, else in the test, then validated like every patch
// (the meaning check first).

package repair

import (
	"context"
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// templateOps are the editor's template ops for an api finding and what
// they do, for its note; none for a group that has no template yet (SLEEP,
// TIME, CONCURRENCY, NETWORK, ASYNC: those keep the LLM path).
func templateOps(f report.Finding) (ops []string, what string) {
	switch f.Group {
	case "LOCALE":
		if f.Strategy == "TIMEZONE" || slices.Contains(f.Strategies, "TIMEZONE") {
			return []string{"time-zone", "locale-root"}, "an explicit time zone (or the Clock the code has) and Locale.ROOT"
		}
		return []string{"locale-root"}, "Locale.ROOT at the locale-sensitive calls"
	case "DATE":
		return []string{"time-zone"}, "an explicit time zone (or the Clock the code has) at the default-zone calls"
	case "ITERATION_ORDER":
		return []string{"ordered-collection"}, "an ordered collection in place of the hash collection"
	case "RANDOM":
		return []string{"seeded-random"}, "a seeded Random where the test owns the generator"
	}
	return nil, ""
}

// testOwned says whether a template may edit a file: a seeded Random only
// in the test sources (the test owns the generator there; seeding the
// code under test's generator would change what it does in production).
func testOwned(op, rel string) bool {
	return op != "seeded-random" || isTestSource(rel)
}

// template offers the standard fix of an api finding (see templateOps); at
// the perturbed call sites, else in the test.
func (r *run) template(ctx context.Context, f report.Finding) (*candidate, []string, string, error) {
	if f.Kind != report.API {
		return nil, nil, "", nil
	}
	ops, what := templateOps(f)
	if ops == nil {
		return nil, nil, "api group " + f.Group + ": no template (the LLM path, when an endpoint is configured)", nil
	}
	try := func(sites map[string][]int) (*candidate, []string, string, error) {
		files := map[string][]byte{}
		changed := 0
		for rel, lines := range sites {
			src, err := r.src.read(rel)
			if err != nil {
				return nil, nil, "", err
			}
			for _, line := range lines {
				for _, op := range ops {
					if !testOwned(op, rel) {
						continue
					}
					out, n, err := r.ed.Template(src, op, line)
					if err != nil {
						return nil, nil, "", err
					}
					if n > 0 {
						src, changed = out, changed+n
						files[rel] = []byte(src)
					}
				}
			}
		}
		if changed == 0 {
			return nil, nil, "nothing to change", nil
		}
		c := &candidate{kind: report.RepairTemplate, files: files, notes: []string{fmt.Sprintf("template: %s (%d place(s))", what, changed)}}
		ev, fb, err := r.validate(ctx, f, c)
		if err != nil || fb != "" {
			return nil, nil, fb, err
		}
		return c, ev, "", nil
	}
	sites := map[string][]int{}
	for _, s := range f.CallSites {
		if rel, _, err := r.src.classFile(s.Class); err == nil {
			sites[rel] = append(sites[rel], s.Line)
		}
	}
	c, ev, why, err := try(sites)
	if c != nil || err != nil {
		return c, ev, why, err
	}
	class, method := testid.ClassMethod(f.Test)
	rel, inFile, err := r.src.classFile(class)
	if err != nil {
		return nil, nil, "template at the call sites: " + why, nil
	}
	src, err := r.src.read(rel)
	if err != nil {
		return nil, nil, "", err
	}
	info, err := r.ed.Info(src, inFile)
	if err != nil {
		return nil, nil, "", err
	}
	if m := info.Method(method); m != nil {
		var lines []int
		for l := m.BeginLine; l <= m.EndLine; l++ {
			lines = append(lines, l)
		}
		c, ev, why2, err := try(map[string][]int{rel: lines})
		if c != nil || err != nil {
			return c, ev, why2, err
		}
		why += "; in the test: " + why2
	}
	return nil, nil, "template (" + what + "): " + why, nil
}
