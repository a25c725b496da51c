// Code placed at one spot and minimised: the inlined and reset plans put
// their statements at a placement (a class's set-up or tear-down, or the
// start of a test), delta-debug them to the statements the failing order
// needs, and validate the patch.

package repair

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// placement is where inlined code goes: a class's set-up or tear-down, or
// the start of a test.
type placement struct {
	test  string // the test whose class (and, for "start", method) it names
	when  string // "before", "after" or "start"
	label string
}

// edit applies code at a placement to the sources as patched so far and
// returns the changed file. Classes the code names fully are named simply
// where the file can (it imports them, or they are in its package), and
// statements the set-up or tear-down has already are not added again.
func (r *run) edit(p placement, code editor.Code) (map[string][]byte, error) {
	class, method := testid.ClassMethod(p.test)
	rel, inFile, err := r.src.classFile(class)
	if err != nil {
		return nil, err
	}
	src, err := r.src.read(rel)
	if err != nil {
		return nil, err
	}
	info, err := r.ed.Info(src, inFile)
	if err != nil {
		return nil, err
	}
	names := r.namesOf(info)
	code.Statements = slices.Clone(code.Statements)
	for i, st := range code.Statements {
		code.Statements[i] = names.simplify(st)
	}
	code.Members = slices.Clone(code.Members)
	for i, m := range code.Members {
		code.Members[i] = names.simplify(m)
	}
	var out string
	if p.when == "start" {
		out, err = r.ed.InsertAtStart(src, inFile, method, code)
	} else {
		code.Statements = slices.DeleteFunc(code.Statements, func(st string) bool { return hasStatement(info, p.when, st) })
		if len(code.Statements) == 0 {
			return map[string][]byte{rel: []byte(src)}, nil
		}
		out, err = r.ed.AddFixture(src, inFile, p.when, code)
	}
	if err != nil {
		return nil, err
	}
	return map[string][]byte{rel: []byte(out)}, nil
}

// hasStatement tells whether the set-up ("before") or tear-down ("after")
// method the editor adds to (the first of fixtureMethods) holds the
// statement already (blanks aside).
func hasStatement(info *editor.ClassInfo, when, stmt string) bool {
	fixtures := fixtureMethods(info, when == "before")
	if len(fixtures) == 0 {
		return false
	}
	return slices.ContainsFunc(fixtures[0].Body, func(s string) bool { return blankless(s) == blankless(stmt) })
}

// fixtureMethods are the methods a class's framework runs before (before
// is true) or after each of its tests: its @Before/@BeforeEach/
// @BeforeMethod methods (@After...), or a JUnit 3 class's setUp (tearDown),
// whose body is given without its call of the super method.
func fixtureMethods(info *editor.ClassInfo, before bool) []editor.MethodInfo {
	if info.Framework == "junit3" {
		name := "tearDown"
		if before {
			name = "setUp"
		}
		m := info.Method(name)
		if m == nil {
			return nil
		}
		own := *m
		own.Body = slices.DeleteFunc(slices.Clone(m.Body), func(s string) bool { return blankless(s) == "super."+name+"();" })
		return []editor.MethodInfo{own}
	}
	if before {
		return info.Lifecycle("Before", "BeforeEach", "BeforeMethod")
	}
	return info.Lifecycle("After", "AfterEach", "AfterMethod")
}

// blankless is code without its white space.
func blankless(code string) string {
	return strings.Join(strings.Fields(code), "")
}

// minimalAt tries units of code at one placement: if all of them fix the
// failing order, they are delta-debugged to a minimal set (one unit is
// minimal already) and validated.
func (r *run) minimalAt(ctx context.Context, f report.Finding, p placement, units []restore, kind, donor string) (*candidate, []string, string, error) {
	build := func(idx []string) (map[string][]byte, error) {
		return r.edit(p, merged(units, idx))
	}
	oracle := func(idx []string) (bool, error) {
		files, err := build(idx)
		if err != nil {
			return false, nil
		}
		return r.fixes(ctx, f, files)
	}
	minimal := make([]string, len(units))
	for i := range units {
		minimal[i] = strconv.Itoa(i)
	}
	if len(minimal) > 1 {
		ok, err := oracle(minimal)
		if err != nil || !ok {
			return nil, nil, "does not fix the failing order", err
		}
		if minimal, err = ddmin(minimal, oracle); err != nil {
			return nil, nil, "", err
		}
	}
	files, err := build(minimal)
	var refused *editor.RefusedError
	if errors.As(err, &refused) {
		return nil, nil, "the " + p.label + " cannot take the code: " + refused.Message, nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	note := fmt.Sprintf("inlined %d of %d statements of %s into the %s", len(minimal), len(units), donor, p.label)
	if kind == report.RepairReset {
		var whats []string
		for _, i := range minimal {
			n, _ := strconv.Atoi(i)
			whats = append(whats, units[n].what)
		}
		note = fmt.Sprintf("generated reset of the %s in the %s", strings.Join(whats, ", "), p.label)
	}
	c := &candidate{kind: kind, files: files, notes: []string{note}}
	ev, fb, err := r.validate(ctx, f, c)
	if err != nil || fb != "" {
		return nil, nil, fb, err
	}
	return c, ev, "", nil
}

// statementUnits splits code into one unit per statement, each with the
// code's members, imports and throws (the editor adds only what is used).
func statementUnits(code editor.Code) []restore {
	units := make([]restore, len(code.Statements))
	for i, st := range code.Statements {
		c := code
		c.Statements = []string{st}
		units[i] = restore{code: c}
	}
	return units
}

// merged is the code of the units at the indexes idx, in order, members and
// imports once.
func merged(units []restore, idx []string) editor.Code {
	var out editor.Code
	for _, i := range idx {
		n, _ := strconv.Atoi(i)
		u := units[n].code
		out.Statements = append(out.Statements, u.Statements...)
		for _, m := range u.Members {
			if !slices.Contains(out.Members, m) {
				out.Members = append(out.Members, m)
			}
		}
		for _, m := range u.Imports {
			if !slices.Contains(out.Imports, m) {
				out.Imports = append(out.Imports, m)
			}
		}
		out.Throws = out.Throws || u.Throws
	}
	return out
}

// ddmin is Zeller's delta debugging over statements: it returns a subset
// (order kept) for which test holds and from which no single statement can
// be removed (1-minimal). test must hold for items.
func ddmin(items []string, test func([]string) (bool, error)) ([]string, error) {
	n := 2
	for len(items) >= 2 {
		chunks := split(items, n)
		reduced := false
		for i := range chunks {
			for _, cand := range [][]string{chunks[i], without(chunks, i)} {
				if len(cand) == 0 || len(cand) == len(items) {
					continue
				}
				ok, err := test(cand)
				if err != nil {
					return nil, err
				}
				if ok {
					items, reduced = cand, true
					if len(cand) == len(chunks[i]) {
						n = 2
					} else {
						n = max(n-1, 2)
					}
					break
				}
			}
			if reduced {
				break
			}
		}
		if !reduced {
			if n >= len(items) {
				break
			}
			n = min(2*n, len(items))
		}
	}
	return items, nil
}

func split(items []string, n int) [][]string {
	var out [][]string
	for i := 0; i < n; i++ {
		lo, hi := i*len(items)/n, (i+1)*len(items)/n
		if hi > lo {
			out = append(out, items[lo:hi])
		}
	}
	return out
}

func without(chunks [][]string, skip int) []string {
	var out []string
	for i, c := range chunks {
		if i != skip {
			out = append(out, c...)
		}
	}
	return out
}
