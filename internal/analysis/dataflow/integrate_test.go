package dataflow

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/report"
)

func TestMerge(t *testing.T) {
	res := &od.Result{
		Findings: []od.Finding{{Test: "A#a", Kind: report.ODVictim, Cleaners: [][]string{{"C#c"}}}},
		Coverage: od.Coverage{Orders: 10, Unconfirmed: []string{"B#b", "D#d"}},
	}
	df := &Result{Runs: 4, Findings: []Finding{
		{Finding: od.Finding{Test: "A#a", Kind: report.ODVictim}, Roots: []Root{{Name: "p.S.f", Kind: "static-field"}}},
		{Finding: od.Finding{Test: "B#b", Kind: report.ODBrittle}, Roots: []Root{{Name: "mode", Kind: "system-property"}}},
	}}
	added := Merge(res, df)
	if len(res.Findings) != 2 || len(res.Findings[0].Cleaners) != 1 || res.Findings[1].Test != "B#b" {
		t.Errorf("findings %+v: want A#a with its cleaner (the orders'), then B#b", res.Findings)
	}
	if !added["B#b"] || added["A#a"] {
		t.Errorf("added %v, want B#b only", added)
	}
	if res.Coverage.Orders != 14 || res.Coverage.Generators["dataflow"] != 4 {
		t.Errorf("coverage %+v: want 14 orders, 4 of them dataflow", res.Coverage)
	}
	if u := res.Coverage.Unconfirmed; len(u) != 1 || u[0] != "D#d" {
		t.Errorf("unconfirmed %v: want D#d alone (B#b is a finding now)", u)
	}
	findings := []report.Finding{{Test: "A#a", Kind: report.ODVictim}, {Test: "B#b", Kind: report.ODBrittle}}
	WithState(findings, df, added)
	if findings[0].PollutedState != nil {
		t.Errorf("the orders' finding got dataflow roots: %v", findings[0].PollutedState)
	}
	if want := (report.StateItem{Kind: "system-property", Root: "mode"}); len(findings[1].PollutedState) != 1 || findings[1].PollutedState[0] != want {
		t.Errorf("B#b polluted state %v, want [%v] (unconfirmed)", findings[1].PollutedState, want)
	}
	df.Drop(map[string]bool{"A#a": true})
	if len(df.Findings) != 1 || df.Findings[0].Test != "B#b" {
		t.Errorf("after dropping A#a: %+v, want B#b alone", df.Findings)
	}
}

func TestStatsAddsForks(t *testing.T) {
	fork := func(status Status) *Result {
		return &Result{Runs: 3, ReferenceRuns: 1, RefinementRuns: 2, Duration: time.Second,
			Graph: &Graph{Edges: []*Edge{{Reader: "A#r", Writer: "A#w", Status: status, Roots: []Root{{Name: "p.S.f"}}}}}}
	}
	s := Stats(nil, fork(Benign))
	s = Stats(s, fork(Untested))
	if s.Dependencies != 2 || s.TestedBenign != 1 || s.Untested != 1 || s.Runs != 6 || s.DurationMs != 2000 ||
		len(s.Benign) != 1 || len(s.UntestedDeps) != 1 || s.Benign[0].Roots[0] != "p.S.f" {
		t.Errorf("stats of two forks: %+v", s)
	}
}

func TestParseStrategy(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"", StrategyBoth}, {"dataflow", StrategyDataflow}, {"orders", StrategyOrders}, {"both", StrategyBoth}, {"random", ""}} {
		got, err := ParseStrategy(c.in)
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("ParseStrategy(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestResultWriters checks that each reader gets the writers of its data
// dependencies once each, in the order first seen, and no test itself.
func TestResultWriters(t *testing.T) {
	r := &Result{Graph: &Graph{Edges: []*Edge{
		{Reader: "p.V#v", Writer: "p.B#b"}, {Reader: "p.V#v", Writer: "p.A#a"}, {Reader: "p.V#v", Writer: "p.B#b"},
		{Reader: "p.W#w", Writer: "p.W#w"}, {Reader: "p.W#w", Writer: "p.A#a"},
	}}}
	got := r.Writers()
	want := map[string][]string{"p.V#v": {"p.B#b", "p.A#a"}, "p.W#w": {"p.A#a"}}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("writers %v, want %v", got, want)
	}
	if (&Result{}).Writers() != nil {
		t.Error("writers of a result without a graph")
	}
}
