package invariants

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// watch is what a problem invariant asks the agent to observe: a static
// field (pkg.C.f) at every traced method, or a static no-argument method
// (pkg.C#m) at the methods of its class.
type watch struct {
	name     string // the invariants.watch item
	class    string
	method   bool
	variable string // the report's name: pkg.C.f, or pkg.C.m()
	problem  report.ProblemInvariant
}

// watchOf returns the watch for a problem invariant: its static field (of
// the point's class, or of another class the point's method reads
// directly), or its point's method when the variable is the return value of
// a static query without arguments; ok is false for other variables.
func watchOf(p report.ProblemInvariant) (watch, bool) {
	base, _, _ := strings.Cut(p.Point, ":::")
	open := strings.Index(base, "(")
	if open < 0 {
		return watch{}, false
	}
	dot := strings.LastIndex(base[:open], ".")
	class, method := base[:dot], base[dot+1:open]
	root := p.Variable
	if strings.HasPrefix(root, "size(") {
		root = strings.TrimSuffix(strings.TrimPrefix(root, "size("), "[])")
	}
	first, _, _ := strings.Cut(root, ".")
	switch {
	case first == "return":
		if base[open:] != "()" {
			return watch{}, false
		}
		return watch{name: class + "#" + method, class: class, method: true, variable: class + "." + method + "()", problem: p}, true
	case first == "this" || strings.HasPrefix(first, "arg"):
		return watch{}, false
	}
	field, ok := strings.CutPrefix(root, class+".")
	if !ok {
		// Another class's static field: pkg.Class.field, the class being
		// the first name that starts with an upper-case letter.
		parts := strings.Split(root, ".")
		at := slices.IndexFunc(parts, func(s string) bool { return s != "" && unicode.IsUpper([]rune(s)[0]) })
		if at < 0 || at+1 >= len(parts) {
			return watch{}, false
		}
		class, field = strings.Join(parts[:at+1], "."), strings.Join(parts[at+1:], ".")
	}
	field, _, _ = strings.Cut(field, ".")
	field = strings.TrimSuffix(field, "[]")
	return watch{name: class + "." + field, class: class, variable: class + "." + field, problem: p}, true
}

// resetOrder is the order that looks for a finding's reset methods: for a
// victim its first polluter group, for a brittle its first state-setter
// group (the brittle's failing state is the JVM's initial one), then the
// rest of suite without the test; ok is false for other findings.
func resetOrder(f report.Finding, suite []string) ([]string, bool) {
	var order []string
	switch {
	case f.Kind == report.ODVictim && len(f.Polluters) > 0:
		order = slices.Clone(f.Polluters[0])
	case f.Kind == report.ODBrittle && len(f.Setters) > 0:
		order = slices.Clone(f.Setters[0])
	default:
		return nil, false
	}
	for _, t := range suite {
		if !slices.Contains(order, t) && t != f.Test {
			order = append(order, t)
		}
	}
	return order, true
}

// FindResets runs, for every OD victim and brittle with problem invariants
// on a static field or a query's return value, its resetOrder with those
// values watched, and sets the finding's CleanerMethods (for a brittle: the
// methods that set the state it needs) and ReturnValueModifiers.
func FindResets(ctx context.Context, r Runner, findings []report.Finding, suite []string, log logs.Logger) error {
	var jobs []launcher.Job
	var at []int
	var watches [][]watch
	for i, f := range findings {
		order, ok := resetOrder(f, suite)
		if !ok {
			continue
		}
		var ws []watch
		for _, p := range f.ProblemInvariants {
			if w, ok := watchOf(p); ok && !slices.ContainsFunc(ws, func(x watch) bool { return x.name == w.name }) {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			continue
		}
		names := make([]string, len(ws))
		for j, w := range ws {
			names[j] = w.name
		}
		opts := AgentOptions
		opts.Invariants.Watch = names
		jobs = append(jobs, launcher.Job{Order: order, RunOptions: launcher.RunOptions{AgentOptions: opts}})
		at = append(at, i)
		watches = append(watches, ws)
	}
	if len(jobs) == 0 {
		return nil
	}
	log.Logf("looking for cleaner methods and return-value modifiers of %d OD finding(s)", len(jobs))
	res, err := r.RunJobs(ctx, jobs)
	if err != nil {
		return fmt.Errorf("invariants: %w", err)
	}
	for j, i := range at {
		f := &findings[i]
		for _, e := range res[j].Invariants {
			for _, c := range e.Changes {
				for _, w := range watches[j] {
					if c.Watch != w.name {
						continue
					}
					restores := holdsAll(w.problem.Failing, c.Before) && holdsAll(w.problem.Passing, c.After)
					cand := candidate(c, w.variable, restores)
					switch {
					case w.method && !slices.ContainsFunc(f.ReturnValueModifiers, sameAs(cand)):
						f.ReturnValueModifiers = append(f.ReturnValueModifiers, cand)
					case !w.method && restores && !slices.ContainsFunc(f.CleanerMethods, sameAs(cand)):
						f.CleanerMethods = append(f.CleanerMethods, cand)
					}
				}
			}
		}
		sortCandidates(f.CleanerMethods)
		sortCandidates(f.ReturnValueModifiers)
	}
	return nil
}

// sameAs returns whether a candidate has c's method, test, variable,
// outcome and arguments.
func sameAs(c report.MethodCandidate) func(report.MethodCandidate) bool {
	return func(o report.MethodCandidate) bool {
		return c.Method == o.Method && c.Test == o.Test && c.Variable == o.Variable && c.Restores == o.Restores && slices.Equal(c.Arguments, o.Arguments)
	}
}

// candidate turns a watched change into a reset candidate, with the
// method's class, name and parameter types from its program point
// (pkg.C.m(int, java.lang.String)) and the call's arguments.
func candidate(c agent.WatchChange, variable string, restores bool) report.MethodCandidate {
	m := report.MethodCandidate{Method: c.Method, Test: c.Test, Variable: variable, Restores: restores, Static: c.Static, ParameterTypes: []string{}, Arguments: c.Arguments}
	open := strings.Index(c.Method, "(")
	if open < 0 || !strings.HasSuffix(c.Method, ")") {
		return m
	}
	if dot := strings.LastIndex(c.Method[:open], "."); dot > 0 {
		m.Class, m.Name = c.Method[:dot], c.Method[dot+1:open]
	}
	if params := c.Method[open+1 : len(c.Method)-1]; params != "" {
		m.ParameterTypes = strings.Split(params, ", ")
	}
	return m
}

// sortCandidates puts restoring methods first, then the methods of the
// variable's own class (the reset method before the test that called it).
func sortCandidates(cs []report.MethodCandidate) {
	own := func(c report.MethodCandidate) bool {
		class := c.Variable[:strings.LastIndex(strings.TrimSuffix(c.Variable, "()"), ".")]
		return strings.HasPrefix(c.Method, class+".")
	}
	slices.SortStableFunc(cs, func(a, b report.MethodCandidate) int {
		if a.Restores != b.Restores {
			return map[bool]int{true: -1, false: 1}[a.Restores]
		}
		if own(a) != own(b) {
			return map[bool]int{true: -1, false: 1}[own(a)]
		}
		return 0
	})
}

// holdsAll reports whether every invariant holds for the values (a
// watch's variables); an invariant that cannot be decided from one value
// (an equality of two variables) does not hold.
func holdsAll(invs []string, values map[string]json.RawMessage) bool {
	for _, inv := range invs {
		if !holds(inv, values) {
			return false
		}
	}
	return len(invs) > 0
}

func holds(inv string, values map[string]json.RawMessage) bool {
	for _, op := range []string{" one of { ", " != ", " >= ", " <= ", " == "} {
		left, right, ok := strings.Cut(inv, op)
		if !ok {
			continue
		}
		raw, known := values[left]
		if !known {
			return false
		}
		v, text := render(raw)
		switch op {
		case " one of { ":
			return slices.Contains(strings.Split(strings.TrimSuffix(right, " }"), ", "), text)
		case " != ":
			return right == "null" && text != "null"
		case " == ":
			if _, isVar := values[right]; isVar {
				return false
			}
			return text == right
		default:
			bound, err := strconv.ParseFloat(right, 64)
			if err != nil || v == nil {
				return false
			}
			return op == " >= " && *v >= bound || op == " <= " && *v <= bound
		}
	}
	return false
}

// render returns a value's number (if it is one) and its text as the
// inferred invariants write it.
func render(raw json.RawMessage) (*float64, string) {
	if string(raw) == "null" {
		return nil, "null"
	}
	var x any
	if json.Unmarshal(raw, &x) != nil {
		return nil, string(raw)
	}
	switch x := x.(type) {
	case float64:
		return &x, strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return nil, strconv.Quote(x)
	case bool:
		return nil, strconv.FormatBool(x)
	case []any:
		items := make([]string, len(x))
		for i, it := range x {
			items[i] = fmt.Sprint(it)
		}
		return nil, "[" + strings.Join(items, ", ") + "]"
	}
	return nil, string(raw)
}
