package invariants

import (
	"sort"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/report"
)

// Top is how many problem invariants a finding reports (Takuan's choice).
const Top = 5

// OfTest returns the program points the tracer sent for test (every
// invocation of a test template), merged per point.
func OfTest(events []agent.Invariants, test string) []agent.TracePoint {
	return merge(events, func(t string) bool { return testid.IsInvocation(t, test) })
}

func merge(events []agent.Invariants, keep func(test string) bool) []agent.TracePoint {
	byName := map[string]*agent.TracePoint{}
	var names []string
	for _, e := range events {
		if !keep(e.Test) {
			continue
		}
		for _, p := range e.Points {
			q, ok := byName[p.Point]
			if !ok {
				q = &agent.TracePoint{Point: p.Point}
				byName[p.Point] = q
				names = append(names, p.Point)
			}
			q.Calls += p.Calls
			for _, v := range p.Vars {
				if !hasVar(q.Vars, v.Name) {
					q.Vars = append(q.Vars, v)
				}
			}
			q.Samples = append(q.Samples, p.Samples...)
		}
	}
	out := make([]agent.TracePoint, 0, len(names))
	for _, n := range names {
		out = append(out, *byName[n])
	}
	return out
}

func hasVar(vars []agent.TraceVar, name string) bool {
	for _, v := range vars {
		if v.Name == name {
			return true
		}
	}
	return false
}

// Problems compares the invariants of the points both runs executed: per
// point it drops the invariants true in both, groups the rest by variable,
// keeps the groups with invariants on both sides and ranks them by their
// combined size (ties: static fields, then return values, then the rest,
// then by point and variable). It returns the first Top.
func Problems(passing, failing []agent.TracePoint) []report.ProblemInvariant {
	fail := map[string]agent.TracePoint{}
	for _, p := range failing {
		fail[p.Point] = p
	}
	var out []report.ProblemInvariant
	for _, p := range passing {
		f, ok := fail[p.Point]
		if !ok {
			continue
		}
		pass, failed := group(Infer(p)), group(Infer(f))
		for variable, pv := range pass {
			fv := failed[variable]
			onlyP, onlyF := minus(pv, fv), minus(fv, pv)
			if len(onlyP) == 0 || len(onlyF) == 0 {
				continue
			}
			out = append(out, report.ProblemInvariant{Point: p.Point, Variable: variable, Passing: onlyP, Failing: onlyF})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if sa, sb := len(a.Passing)+len(a.Failing), len(b.Passing)+len(b.Failing); sa != sb {
			return sa > sb
		}
		if ra, rb := rank(a.Variable), rank(b.Variable); ra != rb {
			return ra < rb
		}
		if a.Point != b.Point {
			return a.Point < b.Point
		}
		return a.Variable < b.Variable
	})
	if len(out) > Top {
		out = out[:Top]
	}
	return out
}

// rank orders a tie: a static field (pkg.Class.field, with a derived
// variable), then a return value, then arguments and the receiver.
func rank(variable string) int {
	root, _, _ := strings.Cut(variable, ".")
	switch {
	case strings.HasPrefix(variable, "size("):
		return rank(strings.TrimPrefix(variable, "size("))
	case root == "return":
		return 1
	case root == "this" || strings.HasPrefix(root, "arg"):
		return 2
	}
	return 0
}

func group(invs []Invariant) map[string][]string {
	g := map[string][]string{}
	for _, inv := range invs {
		g[inv.Variable] = append(g[inv.Variable], inv.Text)
	}
	return g
}

// minus returns the items of a that are not in b.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		found := false
		for _, y := range b {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}
