// The reset plan (ODRepair): a generated reset of the polluted state the
// root-cause analysis found (direct restores, reset-method calls, field
// assignments or reflective restores), placed in the polluter's tear-down
// or the victim's set-up, minimised and validated.

package repair

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/flakyhq/flaky/internal/analysis/state"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

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
	if f.Kind == report.NIO {
		return r.nioReset(ctx, f, states)
	}
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
	var places []placement
	var from []string // the tests whose classes the restores go into
	for _, g := range f.Polluters {
		last := g[len(g)-1]
		places = append(places, placement{last, "after", "tear-down of polluter " + last})
		from = append(from, last)
	}
	places = append(places, placement{f.Test, "before", "set-up of " + f.Test})
	from = append(from, f.Test)
	return r.generatedReset(ctx, f, states, places, from)
}

// generatedReset builds the restores of states (direct restores, then each
// static field's alternatives) and tries them at each placement in turn,
// minimised and validated; from are the tests whose classes the restores
// go into.
func (r *run) generatedReset(ctx context.Context, f report.Finding, states []State, places []placement, from []string) (*candidate, []string, string, error) {
	units, whys := r.directRestores(states)
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
		alts, why := r.fieldRestores(s, seqs, none, from)
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
// (from staticResets; none says why there are none), then, when the field
// is visible from the classes of the tests in from (public, or not private
// and in their package), the assignment of its passing value and the
// re-assignment of its initialiser when it is not final; else, when the
// user allows reflection, its reflective restore. why says when a
// reflective restore exists but is not allowed, or why there is none.
func (r *run) fieldRestores(s State, calls [][]string, none string, from []string) (alts []restore, why string) {
	class, field := splitField(s.Root)
	for _, c := range calls {
		alts = append(alts, restore{code: editor.Code{Statements: c}, what: "static field " + s.Root})
	}
	fi, imports := r.fieldInfo(class, field)
	vis := visible(fi, class, from)
	ref := classRef(class) + "." + field
	a, assigned := assignment(s, ref, fi, vis)
	if assigned {
		alts = append(alts, a)
	}
	if re, ok := reinitialisation(s, ref, field, fi, imports, vis); ok && (!assigned || !slices.Equal(re.code.Statements, a.code.Statements)) {
		alts, assigned = append(alts, re), true
	}
	if assigned {
		return alts, ""
	}
	ref2, rwhy := reflectiveRestore(s, class, field, fi)
	switch {
	case rwhy != "" && len(calls) == 0:
		why = none + "; " + strings.TrimPrefix(rwhy, "static field "+s.Root+": ")
	case rwhy != "":
		why = rwhy
	case r.cfg.AllowReflection:
		alts = append(alts, ref2)
	default:
		why = "static field " + s.Root + ": " + reflectionHint
	}
	return alts, why
}

// visible tells whether plain Java in the classes of the tests in from can
// assign a field of class: a public field, or one neither public nor
// private (package private or protected) when every one of those classes
// is in the field's package.
func visible(fi *editor.FieldInfo, class string, from []string) bool {
	switch {
	case fi == nil || fi.Private:
		return false
	case fi.Public:
		return true
	}
	pkg := pkgOf(class) // pkg.Outer$Inner: pkg
	for _, t := range from {
		if testid.Parse(t).Package() != pkg {
			return false
		}
	}
	return len(from) > 0
}

// reinitialisation re-assigns a visible, non-final static field the
// initialiser of its declaration (Counter.hits = new AtomicInteger();), for
// a polluted state the passing value cannot say in Java (state inside the
// field's object): the value the field held before any test touched it,
// with the imports of the field's file that the initialiser uses. ok is
// false for a field without one, or with an array initialiser.
func reinitialisation(s State, ref, field string, fi *editor.FieldInfo, imports []string, vis bool) (restore, bool) {
	if fi == nil || !vis || fi.Final {
		return restore{}, false
	}
	init := strings.TrimSpace(fi.Initializer(field))
	if init == "" || strings.HasPrefix(init, "{") {
		return restore{}, false
	}
	var imps []string
	for _, i := range imports {
		if !strings.HasPrefix(i, "static ") && !strings.HasSuffix(i, ".*") {
			imps = append(imps, i)
		}
	}
	return restore{code: editor.Code{Statements: []string{ref + " = " + init + ";"}, Imports: imps},
		what: "static field " + s.Root + " (its initialiser)"}, true
}

// splitField splits a static field's root (pkg.Class.FIELD or
// pkg.Class#FIELD) into its class and field names.
func splitField(root string) (class, field string) {
	if c, f, ok := state.SplitStaticField(root); ok {
		return c, f
	}
	return "", root
}

// fieldInfo is the declaration of a field in its class's source and the
// imports of that source; nil without a source.
func (r *run) fieldInfo(class, field string) (*editor.FieldInfo, []string) {
	rel, inFile, err := r.src.classFile(class)
	if err != nil {
		return nil, nil
	}
	src, err := r.src.read(rel)
	if err != nil {
		return nil, nil
	}
	info, err := r.ed.Info(src, inFile)
	if err != nil {
		return nil, nil
	}
	for i := range info.Fields {
		if slices.Contains(info.Fields[i].Names, field) {
			return &info.Fields[i], info.Imports
		}
	}
	return nil, nil
}

// maxResetCalls bounds the reset-method calls tried per static field.
const maxResetCalls = 12

// resetCalls are the candidate reset-method calls for a static field: each
// static, non-private method of the field's class that writes it, with
// arguments from the passing value and the parameter types' defaults.
func (r *run) resetCalls(s State) ([][]string, error) {
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
	name := classRef(class)
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

// classRef is how generated code names a class: fully qualified (nested
// names after dots); the edit names it simply where the file it goes into
// can.
func classRef(class string) string {
	return strings.ReplaceAll(class, "$", ".")
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
