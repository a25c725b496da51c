// The template plan: the standard fixes of an api finding (Locale.ROOT for
// locale-sensitive calls, an explicit time zone or the file's Clock for
// time-zone and date findings, for hash iteration order an ordered
// collection the test owns or an order-insensitive assertion, a seeded
// Random where the test owns the generator, a bounded wait on the
// assertion's condition instead of a fixed sleep), at the perturbed call
// sites, else in the test, then validated like every patch (the meaning
// check first).

package repair

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// templatePlan is one standard fix of an api finding: the editor's
// template ops applied together, and what they do, for its note.
type templatePlan struct {
	ops  []string
	what string
}

// templatePlans are the standard fixes of an api finding, tried in order
// until one is validated; none for a group that has no template yet (TIME,
// CONCURRENCY, NETWORK: those keep the LLM path), nor for a finding none
// of whose templates applies (its reason says so).
func templatePlans(f report.Finding) []templatePlan {
	switch f.Group {
	case "LOCALE":
		if f.Strategy == "TIMEZONE" || slices.Contains(f.Strategies, "TIMEZONE") {
			return []templatePlan{{[]string{"time-zone", "locale-root"}, "an explicit time zone (or the Clock the code has) and Locale.ROOT"}}
		}
		return []templatePlan{{[]string{"locale-root"}, "Locale.ROOT at the locale-sensitive calls"}}
	case "DATE":
		return []templatePlan{{[]string{"time-zone"}, "an explicit time zone (or the Clock the code has) at the default-zone calls"}}
	case "ITERATION_ORDER":
		return []templatePlan{
			{[]string{"ordered-collection"}, "a LinkedHashMap/LinkedHashSet where the test creates the hash collection"},
			{[]string{"sorted-assertion"}, "an order-insensitive assertion (sorted before asserting, or the collections compared instead of their text)"},
		}
	case "RANDOM":
		return []templatePlan{{[]string{"seeded-random"}, "a seeded Random where the test owns the generator"}}
	case "SLEEP", "ASYNC":
		return []templatePlan{{[]string{"await-condition"}, "a bounded wait on the assertion's condition instead of the fixed sleep before it"}}
	}
	return nil
}

// testOnlyOps are the template ops that edit only the test sources: the
// test owns the generator or collection there (seeding the code under
// test's generator, or ordering its map, would change what it does in
// production), and assertions are the test's.
var testOnlyOps = []string{"seeded-random", "ordered-collection", "sorted-assertion", "await-condition"}

// testOwned says whether a template op may edit a file (see testOnlyOps).
func testOwned(op, rel string) bool {
	return !slices.Contains(testOnlyOps, op) || isTestSource(rel)
}

// template offers the standard fixes of an api finding (see
// templatePlans), each at the perturbed call sites, else in the test; the
// first validated one wins.
func (r *run) template(ctx context.Context, f report.Finding) (*candidate, []string, string, error) {
	if f.Kind != report.API {
		return nil, nil, "", nil
	}
	plans := templatePlans(f)
	if plans == nil {
		return nil, nil, "api group " + f.Group + ": no template (the LLM path, when an endpoint is configured)", nil
	}
	var whys []string
	for _, p := range plans {
		c, ev, why, err := r.templateWith(ctx, f, p)
		if c != nil || err != nil {
			return c, ev, why, err
		}
		whys = append(whys, "template ("+p.what+"): "+why)
	}
	return nil, nil, strings.Join(whys, "; "), nil
}

// templateWith tries one standard fix at the perturbed call sites, else on
// the lines of the test method; why says what kept each from a validated
// patch.
func (r *run) templateWith(ctx context.Context, f report.Finding, p templatePlan) (*candidate, []string, string, error) {
	sites := map[string][]int{}
	for _, s := range f.CallSites {
		if rel, _, err := r.src.classFile(s.Class); err == nil {
			sites[rel] = append(sites[rel], s.Line)
		}
	}
	c, ev, why, err := r.templateAt(ctx, f, p, sites)
	if c != nil || err != nil {
		return c, ev, why, err
	}
	class, method := testid.ClassMethod(f.Test)
	rel, inFile, err := r.src.classFile(class)
	if err != nil {
		return nil, nil, "at the call sites: " + why, nil
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
		c, ev, why2, err := r.templateAt(ctx, f, p, map[string][]int{rel: lines})
		if c != nil || err != nil {
			return c, ev, why2, err
		}
		why = "at the call sites: " + why + "; in the test: " + why2
	}
	return nil, nil, why, nil
}

// templateAt applies a plan's ops at the given lines of each file and
// validates the result as one candidate.
func (r *run) templateAt(ctx context.Context, f report.Finding, p templatePlan, sites map[string][]int) (*candidate, []string, string, error) {
	files := map[string][]byte{}
	changed := 0
	for _, rel := range slices.Sorted(maps.Keys(sites)) {
		src, err := r.src.read(rel)
		if err != nil {
			return nil, nil, "", err
		}
		for _, line := range sites[rel] {
			for _, op := range p.ops {
				if !testOwned(op, rel) {
					continue
				}
				out, n, err := r.ed.Template(src, op, line)
				if err != nil {
					return nil, nil, "", fmt.Errorf("template %s at %s:%d: %w", op, rel, line, err)
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
	c := &candidate{kind: report.RepairTemplate, files: files, notes: []string{fmt.Sprintf("template: %s (%d place(s))", p.what, changed)}}
	ev, fb, err := r.validate(ctx, f, c)
	if err != nil || fb != "" {
		return nil, nil, fb, err
	}
	return c, ev, "", nil
}
