// The template plan: the standard fix of an api finding (Locale.ROOT for
// locale-sensitive calls, an ordered collection for hash iteration order),
// at the perturbed call sites, else in the test, then validated.

package repair

import (
	"context"
	"fmt"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// template offers the standard fix of an api finding:
// Locale.ROOT for LOCALE findings, an ordered collection for ITERATION_ORDER
// findings; at the perturbed call sites, else in the test.
func (r *run) template(ctx context.Context, f report.Finding) (*candidate, []string, string, error) {
	if f.Kind != report.API {
		return nil, nil, "", nil
	}
	var op, what string
	switch f.Group {
	case "LOCALE":
		op, what = "locale-root", "Locale.ROOT at the locale-sensitive calls"
	case "ITERATION_ORDER":
		op, what = "ordered-collection", "an ordered collection in place of the hash collection"
	default:
		return nil, nil, "api group " + f.Group + ": no template", nil
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
