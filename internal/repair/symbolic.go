package repair

import (
	"context"
	"fmt"
	"github.com/flakyhq/flaky/internal/editor"
	"slices"
	"strconv"
	"strings"
	"unicode"

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
	class, method := splitTest(p.test)
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
			c, ev, why, err := r.minimalAt(ctx, f, p, code, kind, strings.Join(group, " + "))
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

// minimalAt tries code at one placement: if all of it fixes the failing
// order, it is delta-debugged to a minimal set of statements (one statement
// is minimal already) and validated.
func (r *run) minimalAt(ctx context.Context, f report.Finding, p placement, code editor.Code, kind, donor string) (*candidate, []string, string, error) {
	build := func(stmts []string) (map[string][]byte, error) {
		c := code
		c.Statements = stmts
		return r.edit(p, c)
	}
	oracle := func(stmts []string) (bool, error) {
		files, err := build(stmts)
		if err != nil {
			return false, nil
		}
		return r.fixes(ctx, f, files)
	}
	minimal := code.Statements
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
	c := &candidate{kind: kind, files: files, notes: []string{fmt.Sprintf("inlined %d of %d statements of %s into the %s", len(minimal), len(code.Statements), donor, p.label)}}
	ev, fb, err := r.validate(ctx, f, c)
	if err != nil || fb != "" {
		return nil, nil, fb, err
	}
	return c, ev, "", nil
}

// donorCode is the code of a cleaner or setter group: per test, its class's
// set-up statements, its body and its class's tear-down statements, with the
// class's fields and helper methods and the file's imports as support.
func (r *run) donorCode(group []string) (editor.Code, error) {
	var code editor.Code
	for _, t := range group {
		class, method := splitTest(t)
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
// file, and for a static field a short sequence of reset-method calls the
// bytecode search (resetsearch.go) checked against the passing state in one
// JVM, else a call the source heuristic finds; without a recorded state,
// the invariant analysis's cleaner methods. In the polluter's tear-down,
// else the victim's set-up; each is checked on the failing order (unless
// the probe did), then minimised and validated.
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
	direct, why := restores(states)
	var whys []string
	if why != "" {
		whys = append(whys, why)
	}
	var places []placement
	for _, g := range f.Polluters {
		last := g[len(g)-1]
		places = append(places, placement{last, "after", "tear-down of polluter " + last})
	}
	places = append(places, placement{f.Test, "before", "set-up of " + f.Test})
	// Each static field's candidate calls; without static fields, the direct
	// restores alone.
	alternatives := [][]string{nil}
	probed := false // the alternatives reached the passing state in the probe already
	for _, s := range states {
		if s.Kind != "static-field" {
			continue
		}
		calls, ok, why, err := r.staticResets(ctx, f, s, places[0].test)
		if err != nil {
			return nil, nil, "", err
		}
		if len(calls) == 0 {
			whys = append(whys, why)
			continue
		}
		alternatives, probed = calls, ok
		break
	}
	for _, p := range places {
		for _, alt := range alternatives {
			stmts := append(slices.Clone(direct), alt...)
			if len(stmts) == 0 {
				continue
			}
			if alt != nil && !probed {
				files, err := r.edit(p, editor.Code{Statements: stmts})
				if err != nil {
					return nil, nil, "", err
				}
				if ok, err := r.fixes(ctx, f, files); err != nil || !ok {
					if err != nil {
						return nil, nil, "", err
					}
					continue
				}
			}
			at := r.minimalAt
			if probed && len(direct) == 0 {
				at = r.validatedAt
			}
			c, ev, fb, err := at(ctx, f, p, editor.Code{Statements: stmts}, report.RepairReset, "the generated reset")
			if err != nil {
				return nil, nil, "", err
			}
			if c != nil {
				return c, ev, "", nil
			}
			whys = append(whys, "generated reset "+strings.Join(stmts, " ")+" in the "+p.label+": "+fb)
		}
	}
	if len(alternatives) > 1 || alternatives[0] != nil {
		whys = append(whys, fmt.Sprintf("none of %d reset-method call(s) restores the passing state", len(alternatives)))
	}
	return nil, nil, strings.Join(whys, "; "), nil
}

// maxResetCalls bounds the reset-method calls tried per static field.
const maxResetCalls = 12

// resetCalls are the candidate reset-method calls for a static field: each
// static, non-private method of the field's class that writes it, with
// arguments from the passing value and the parameter types' defaults. The
// class is named simply when it shares the package of the class the call
// goes into.
func (r *run) resetCalls(s State, into string) ([][]string, error) {
	root := s.Root
	class, field, ok := strings.Cut(root, "#")
	if !ok {
		i := strings.LastIndexByte(root, '.')
		if i < 0 {
			return nil, nil
		}
		class, field = root[:i], root[i+1:]
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
	name := strings.ReplaceAll(class, "$", ".")
	intoClass, _ := splitTest(into)
	if pkgOf(class) == pkgOf(intoClass) {
		name = name[len(pkgOf(class)):]
		name = strings.TrimPrefix(name, ".")
	}
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

// restores turns polluted states into Java statements that restore their
// passing values, and says which states have no direct restore.
func restores(states []State) (stmts []string, why string) {
	var whys []string
	for _, s := range states {
		name := s.Root
		if name == "" {
			name = s.Path
		}
		switch s.Kind {
		case "system-property":
			if absent(s.Passing) {
				stmts = append(stmts, "System.clearProperty("+javaString(name)+");")
			} else {
				stmts = append(stmts, "System.setProperty("+javaString(name)+", "+javaString(s.Passing)+");")
			}
		case "jdk-default":
			switch {
			case strings.Contains(name, "Locale"):
				tag := strings.ReplaceAll(s.Passing, "_", "-")
				stmts = append(stmts, "java.util.Locale.setDefault(java.util.Locale.forLanguageTag("+javaString(tag)+"));")
			case strings.Contains(name, "TimeZone"):
				stmts = append(stmts, "java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("+javaString(s.Passing)+"));")
			default:
				whys = append(whys, "JDK default "+name+": no direct restore known")
			}
		case "file":
			if absent(s.Passing) {
				stmts = append(stmts, "new java.io.File("+javaString(name)+").delete();")
			} else {
				whys = append(whys, "file "+name+" existed before: its content cannot be restored")
			}
		case "static-field":
			// reset's reset-method search.
		default:
			whys = append(whys, "polluted state of kind "+s.Kind+": unknown")
		}
	}
	return stmts, strings.Join(whys, "; ")
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
	class, method := splitTest(f.Test)
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
