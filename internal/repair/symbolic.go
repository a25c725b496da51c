package repair

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/flakyhq/flaky/internal/editor"
	"github.com/flakyhq/flaky/internal/state"
	"github.com/flakyhq/flaky/internal/testid"

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
// returns the changed file.
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
	var out string
	if p.when == "start" {
		out, err = r.ed.InsertAtStart(src, inFile, method, code)
	} else {
		out, err = r.ed.AddFixture(src, inFile, p.when, code)
	}
	if err != nil {
		return nil, err
	}
	return map[string][]byte{rel: []byte(out)}, nil
}

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
		for _, lm := range info.Lifecycle("Before", "BeforeEach") {
			code.Statements = append(code.Statements, lm.Body...)
			code.Throws = code.Throws || lm.Throws
		}
		code.Statements = append(code.Statements, m.Body...)
		code.Throws = code.Throws || m.Throws
		for _, lm := range info.Lifecycle("After", "AfterEach") {
			code.Statements = append(code.Statements, lm.Body...)
			code.Throws = code.Throws || lm.Throws
		}
		for _, fd := range info.Fields {
			code.Members = append(code.Members, fd.Text)
		}
		lifecycle := []string{"Test", "Before", "BeforeEach", "After", "AfterEach", "BeforeClass", "AfterClass", "BeforeAll", "AfterAll", "ParameterizedTest", "RepeatedTest"}
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

// reset is ODRepair's generated reset for a polluted state the root-cause
// analysis found: the direct restore of a system property, JDK default or
// file; for a static field a short sequence of reset-method calls the
// bytecode search (resetsearch.go) checked against the passing state in one
// JVM (else a call the source heuristic finds), then the assignment of its
// passing value when the field is public and not final, else (with
// --allow-reflection) its reflective restore; without a recorded state, the
// invariant analysis's cleaner methods. In the polluter's tear-down, else the
// victim's set-up. With several states, delta debugging keeps the restores
// the failing order needs; then the patch is validated.
func (r *run) reset(ctx context.Context, f report.Finding) (*candidate, []string, string, error) {
	states := r.cfg.States[f.Test]
	if f.Kind != report.ODVictim && f.Kind != report.ODBrittle {
		return nil, nil, "", nil
	}
	if len(states) == 0 {
		c, ev, why, err := r.invariantResets(ctx, f)
		if c != nil || err != nil {
			return c, ev, why, err
		}
		return nil, nil, strings.TrimSuffix("no polluted state known (the root-cause analysis did not record one); "+why, "; "), nil
	}
	units, whys := r.directRestores(states)
	var places []placement
	for _, g := range f.Polluters {
		last := g[len(g)-1]
		places = append(places, placement{last, "after", "tear-down of polluter " + last})
	}
	places = append(places, placement{f.Test, "before", "set-up of " + f.Test})
	// Each static field's alternatives: its reset-method call sequences, then
	// its assignment or reflective restore.
	var fields []string // the fields with reset-method calls, for the reason
	calls := 0
	for _, s := range states {
		if s.Kind != "static-field" {
			continue
		}
		seqs, none, err := r.staticResets(ctx, f, s, places[0].test)
		if err != nil {
			return nil, nil, "", err
		}
		alts, why := r.fieldRestores(s, places[0].test, seqs, none)
		if why != "" {
			whys = append(whys, why)
		}
		if len(seqs) > 0 {
			fields, calls = append(fields, s.Root), calls+len(seqs)
		}
		if len(alts) > 0 {
			units = append(units, alts)
		}
	}
	if len(units) == 0 {
		return nil, nil, strings.Join(whys, "; "), nil
	}
	// Plan i takes each unit's i-th alternative (its last when it has fewer).
	plans := 0
	for _, u := range units {
		plans = max(plans, len(u))
	}
	var failed []string
	for _, p := range places {
		firstFailure := ""
		for i := range plans {
			plan := make([]restore, len(units))
			for j, u := range units {
				plan[j] = u[min(i, len(u)-1)]
			}
			c, ev, fb, err := r.minimalAt(ctx, f, p, plan, report.RepairReset, "")
			if err != nil {
				return nil, nil, "", err
			}
			if c != nil {
				return c, ev, "", nil
			}
			if firstFailure == "" {
				firstFailure = fb
			}
		}
		failed = append(failed, "in the "+p.label+": "+firstFailure)
	}
	if calls > 0 {
		whys = append(whys, fmt.Sprintf("none of %d reset-method call(s) of %s restores the passing state", calls, strings.Join(fields, ", ")))
	}
	whys = append(whys, fmt.Sprintf("the generated reset (%d plan(s)) does not validate: %s", plans, strings.Join(failed, "; ")))
	return nil, nil, strings.Join(whys, "; "), nil
}

// fieldRestores are a static field's restores: its reset-method calls
// (from staticResets; none says why there are none), then the assignment of
// its passing value when the field is public and not final, else, when the
// user allows reflection, its reflective restore. why says when a
// reflective restore exists but is not allowed, or why there is none.
func (r *run) fieldRestores(s State, into string, calls [][]string, none string) (alts []restore, why string) {
	class, field := splitField(s.Root)
	for _, c := range calls {
		alts = append(alts, restore{code: editor.Code{Statements: c}, what: "static field " + s.Root})
	}
	fi := r.fieldInfo(class, field)
	if a, ok := assignment(s, classRef(class, into)+"."+field, fi); ok {
		return append(alts, a), ""
	}
	ref, rwhy := reflectiveRestore(s, class, field, fi)
	switch {
	case rwhy != "" && len(calls) == 0:
		why = none + "; " + strings.TrimPrefix(rwhy, "static field "+s.Root+": ")
	case rwhy != "":
		why = rwhy
	case r.cfg.AllowReflection:
		alts = append(alts, ref)
	default:
		why = "static field " + s.Root + ": " + reflectionHint
	}
	return alts, why
}

// splitField splits a static field's root (pkg.Class.FIELD or
// pkg.Class#FIELD) into its class and field names.
func splitField(root string) (class, field string) {
	if c, f, ok := state.SplitStaticField(root); ok {
		return c, f
	}
	return "", root
}

// fieldInfo is the declaration of a field in its class's source; nil
// without a source.
func (r *run) fieldInfo(class, field string) *editor.FieldInfo {
	rel, inFile, err := r.src.classFile(class)
	if err != nil {
		return nil
	}
	src, err := r.src.read(rel)
	if err != nil {
		return nil
	}
	info, err := r.ed.Info(src, inFile)
	if err != nil {
		return nil
	}
	for i := range info.Fields {
		if slices.Contains(info.Fields[i].Names, field) {
			return &info.Fields[i]
		}
	}
	return nil
}

// maxResetCalls bounds the reset-method calls tried per static field.
const maxResetCalls = 12

// resetCalls are the candidate reset-method calls for a static field: each
// static, non-private method of the field's class that writes it, with
// arguments from the passing value and the parameter types' defaults. The
// class is named simply when it shares the package of the class the call
// goes into.
func (r *run) resetCalls(s State, into string) ([][]string, error) {
	class, field := splitField(s.Root)
	if class == "" {
		return nil, nil
	}
	rel, inFile, err := r.src.classFile(class)
	if err != nil {
		return nil, nil // no source: the bytecode search is not built
	}
	src, err := r.src.read(rel)
	if err != nil {
		return nil, err
	}
	var out struct {
		Methods []struct {
			Name    string   `json:"name"`
			Static  bool     `json:"static"`
			Private bool     `json:"private"`
			Params  []string `json:"params"`
		} `json:"methods"`
	}
	if err := r.ed.Call(map[string]any{"op": "reset-methods", "source": src, "class": inFile, "field": field}, &out); err != nil {
		return nil, err
	}
	name := classRef(class, into)
	var calls [][]string
	for _, m := range out.Methods {
		if !m.Static || m.Private || len(m.Params) > 2 {
			continue
		}
		args := [][]string{nil}
		for _, p := range m.Params {
			var next [][]string
			for _, prefix := range args {
				for _, v := range argValues(p, s.Passing) {
					next = append(next, append(slices.Clone(prefix), v))
				}
			}
			args = next
		}
		for _, a := range args {
			calls = append(calls, []string{fmt.Sprintf("%s.%s(%s);", name, m.Name, strings.Join(a, ", "))})
		}
	}
	return calls[:min(len(calls), maxResetCalls)], nil
}

// classRef is how code in the class of test into names class: simply when
// they share a package, else fully qualified.
func classRef(class, into string) string {
	name := strings.ReplaceAll(class, "$", ".")
	intoClass := testid.ClassOf(into)
	if pkgOf(class) == pkgOf(intoClass) {
		name = strings.TrimPrefix(name[len(pkgOf(class)):], ".")
	}
	return name
}

// pkgOf is a class name's package.
func pkgOf(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		return class[:i]
	}
	return ""
}

// argValues are the arguments tried for a parameter type: the passing value
// when it fits the type, then the type's defaults.
func argValues(typ, passing string) []string {
	p := strings.TrimSpace(passing)
	switch typ {
	case "boolean", "Boolean":
		if p == "true" {
			return []string{"true", "false"}
		}
		return []string{"false", "true"}
	case "int", "long", "short", "byte", "Integer", "Long", "Short", "Byte", "double", "float", "Double", "Float":
		if _, err := strconv.ParseFloat(p, 64); err == nil && p != "" {
			if p == "0" {
				return []string{"0"}
			}
			if typ == "long" || typ == "Long" {
				p += "L"
			}
			return []string{p, "0"}
		}
		return []string{"0"}
	case "String", "CharSequence", "Object":
		if absent(p) {
			return []string{"null", `""`}
		}
		return []string{javaString(passing), "null"}
	}
	return []string{"null"}
}

// absent tells whether a recorded value means "not set" / "did not exist".
func absent(v string) bool {
	switch strings.TrimSpace(v) {
	case "", "null", "<absent>", "(absent)", "absent":
		return true
	}
	return false
}

// javaString quotes s as a Java string literal.
func javaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteRune(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f || !unicode.IsPrint(c) && c < 0x10000 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// template offers the standard fix of an api finding (issue 10 item 5):
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
