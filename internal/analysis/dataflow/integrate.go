package dataflow

import (
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/report"
)

// Detection strategies of detect's --strategy and verify's flaky.strategy.
const (
	StrategyDataflow = "dataflow" // data dependencies alone
	StrategyOrders   = "orders"   // the order generators alone
	StrategyBoth     = "both"     // data dependencies first, then the order generators
)

// ParseStrategy reads a strategy; empty means StrategyBoth.
func ParseStrategy(s string) (string, error) {
	switch s {
	case "":
		return StrategyBoth, nil
	case StrategyDataflow, StrategyOrders, StrategyBoth:
		return s, nil
	}
	return "", fmt.Errorf("the strategy must be dataflow, orders or both, not %q", s)
}

// Merge adds the analysis' runs to the order generators' coverage and its
// findings to theirs (which keep their own for a test both found: they
// carry minimised cleaners too), and drops those it adds from the tests
// the order generators left unconfirmed; it returns the tests whose
// findings it added.
func Merge(res *od.Result, df *Result) map[string]bool {
	added := map[string]bool{}
	res.Coverage.Orders += df.Runs
	if res.Coverage.Generators == nil {
		res.Coverage.Generators = map[string]int{}
	}
	res.Coverage.Generators[StrategyDataflow] = df.Runs
	res.Coverage.Duration += df.Duration
	for _, f := range ODFindings(df.Findings) {
		if !slices.ContainsFunc(res.Findings, func(o od.Finding) bool { return o.Test == f.Test }) {
			res.Findings = append(res.Findings, f)
			added[f.Test] = true
		}
	}
	res.Coverage.Unconfirmed = slices.DeleteFunc(res.Coverage.Unconfirmed, func(t string) bool { return added[t] })
	return added
}

// WithState gives the report findings of tests (those Merge added) their
// roots as unconfirmed polluted state (the root-cause step confirms or
// replaces them).
func WithState(findings []report.Finding, df *Result, tests map[string]bool) {
	for i := range findings {
		if !tests[findings[i].Test] {
			continue
		}
		for _, f := range df.Findings {
			if f.Test == findings[i].Test && f.Kind == findings[i].Kind {
				findings[i].PollutedState = f.PollutedState()
			}
		}
	}
}

// Stats summarises the analysis for the report, added to s (nil: a new
// summary; verify adds one per fork).
func Stats(s *report.DataflowStats, res *Result) *report.DataflowStats {
	if s == nil {
		s = &report.DataflowStats{}
	}
	g := res.Graph
	s.Dependencies += len(g.Edges)
	s.Manifest += g.Count(Manifest)
	s.TestedBenign += g.Count(Benign)
	s.Untested += g.Count(Untested)
	s.Runs += res.Runs
	s.ReferenceRuns += res.ReferenceRuns
	s.RefinementRuns += res.RefinementRuns
	s.ConfirmationRuns += res.ConfirmationRuns
	s.DurationMs += res.Duration.Milliseconds()
	for _, e := range g.Edges {
		d := report.DataflowDepend{Reader: e.Reader, Writer: e.Writer}
		for _, r := range e.Roots {
			d.Roots = append(d.Roots, r.Name)
		}
		switch e.Status {
		case Benign:
			s.Benign = append(s.Benign, d)
		case Untested:
			s.UntestedDeps = append(s.UntestedDeps, d)
		}
	}
	return s
}

// Drop removes the findings of tests (verify's tests already reported by
// an earlier analysis).
func (r *Result) Drop(tests map[string]bool) {
	r.Findings = slices.DeleteFunc(r.Findings, func(f Finding) bool { return tests[f.Test] })
}

// Writers returns, per reader of the graph's data dependencies, their
// writers in the order first seen: the tests minimisation tries first as
// the reader's polluters.
func (r *Result) Writers() map[string][]string {
	if r.Graph == nil {
		return nil
	}
	out := map[string][]string{}
	for _, e := range r.Graph.Edges {
		if e.Writer != e.Reader && !slices.Contains(out[e.Reader], e.Writer) {
			out[e.Reader] = append(out[e.Reader], e.Writer)
		}
	}
	return out
}
