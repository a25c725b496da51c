// The inlined plan (iFixFlakies): a victim's cleaner, or a brittle's
// state-setter, is inlined with the fixtures it needs into the polluter's
// tear-down, the victim's set-up or the start of the test, then minimised to
// the statements the failing order needs.

package repair

import (
	"context"
	"fmt"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// inlined is iFixFlakies' repair: a victim's cleaner (a brittle's setter)
// inlined with the fixtures it needs into the polluter's tear-down, the
// victim's set-up or the start of the test, then minimised by delta
// debugging to the statements the failing order needs.
func (r *run) inlined(ctx context.Context, f report.Finding) (*candidate, []string, string, error) {
	var donors [][]string
	var places []placement
	kind := report.RepairCleaner
	switch {
	case f.Kind == report.ODVictim && len(f.Cleaners) > 0:
		donors = f.Cleaners
		for _, g := range f.Polluters {
			last := g[len(g)-1]
			places = append(places, placement{last, "after", "tear-down of polluter " + last})
		}
	case f.Kind == report.ODBrittle && len(f.Setters) > 0:
		donors, kind = f.Setters, report.RepairSetter
	case f.Kind == report.ODVictim:
		return nil, nil, "no cleaner", nil
	case f.Kind == report.ODBrittle:
		return nil, nil, "no state-setter", nil
	default:
		return nil, nil, "", nil
	}
	places = append(places, placement{f.Test, "before", "set-up of " + f.Test}, placement{f.Test, "start", "start of " + f.Test})
	var tried []string
	for _, group := range donors[:min(len(donors), 3)] {
		code, err := r.donorCode(group)
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		for _, p := range places {
			c, ev, why, err := r.minimalAt(ctx, f, p, statementUnits(code), kind, strings.Join(group, " + "))
			if err != nil {
				return nil, nil, "", err
			}
			if c != nil {
				return c, ev, "", nil
			}
			tried = append(tried, fmt.Sprintf("%s in the %s: %s", strings.Join(group, " + "), p.label, why))
		}
	}
	return nil, nil, strings.Join(tried, "; "), nil
}

// donorCode is the code of a cleaner or setter group: per test, its class's
// set-up statements, its body and its class's tear-down statements, with the
// class's fields and helper methods and the file's imports as support.
func (r *run) donorCode(group []string) (editor.Code, error) {
	var code editor.Code
	for _, t := range group {
		class, method := testid.ClassMethod(t)
		rel, inFile, err := r.src.classFile(class)
		if err != nil {
			return editor.Code{}, err
		}
		src, err := r.src.read(rel)
		if err != nil {
			return editor.Code{}, err
		}
		info, err := r.ed.Info(src, inFile)
		if err != nil {
			return editor.Code{}, err
		}
		m := info.Method(method)
		if m == nil {
			return editor.Code{}, fmt.Errorf("no method %s in %s", method, rel)
		}
		for _, lm := range fixtureMethods(info, true) {
			code.Statements = append(code.Statements, lm.Body...)
			code.Throws = code.Throws || lm.Throws
		}
		code.Statements = append(code.Statements, m.Body...)
		code.Throws = code.Throws || m.Throws
		for _, lm := range fixtureMethods(info, false) {
			code.Statements = append(code.Statements, lm.Body...)
			code.Throws = code.Throws || lm.Throws
		}
		for _, fd := range info.Fields {
			code.Members = append(code.Members, fd.Text)
		}
		lifecycle := []string{"Test", "Before", "BeforeEach", "BeforeMethod", "After", "AfterEach", "AfterMethod", "BeforeClass", "AfterClass", "BeforeAll", "AfterAll", "ParameterizedTest", "RepeatedTest"}
		for _, hm := range info.Methods {
			if !anyOf(hm.Annotations, lifecycle) {
				code.Members = append(code.Members, hm.Text)
			}
		}
		code.Imports = append(code.Imports, info.Imports...)
	}
	if len(code.Statements) == 0 {
		return editor.Code{}, fmt.Errorf("%s has no statements", strings.Join(group, " + "))
	}
	return code, nil
}

func anyOf(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}
