package main

import (
	"testing"

	"github.com/flakyhq/flaky/internal/dataflow"
	"github.com/flakyhq/flaky/internal/od"
	"github.com/flakyhq/flaky/internal/report"
)

func TestMergeDataflow(t *testing.T) {
	res := &od.Result{
		Findings: []od.Finding{{Test: "A#a", Kind: report.ODVictim, Cleaners: [][]string{{"C#c"}}}},
		Coverage: od.Coverage{Orders: 10},
	}
	df := &dataflow.Result{Runs: 4, Findings: []dataflow.Finding{
		{Finding: od.Finding{Test: "A#a", Kind: report.ODVictim}, Roots: []dataflow.Root{{Name: "p.S.f", Kind: "static-field"}}},
		{Finding: od.Finding{Test: "B#b", Kind: report.ODBrittle}, Roots: []dataflow.Root{{Name: "mode", Kind: "system-property"}}},
	}}
	added := mergeDataflow(res, df)
	if len(res.Findings) != 2 || len(res.Findings[0].Cleaners) != 1 || res.Findings[1].Test != "B#b" {
		t.Errorf("findings %+v: want A#a with its cleaner (the orders'), then B#b", res.Findings)
	}
	if !added["B#b"] || added["A#a"] {
		t.Errorf("added %v, want B#b only", added)
	}
	if res.Coverage.Orders != 14 || res.Coverage.Generators["dataflow"] != 4 {
		t.Errorf("coverage %+v: want 14 orders, 4 of them dataflow", res.Coverage)
	}
	findings := []report.Finding{{Test: "A#a", Kind: report.ODVictim}, {Test: "B#b", Kind: report.ODBrittle}}
	withDataflowState(findings, df, added)
	if findings[0].PollutedState != nil {
		t.Errorf("the orders' finding got dataflow roots: %v", findings[0].PollutedState)
	}
	if want := (report.StateItem{Kind: "system-property", Root: "mode"}); len(findings[1].PollutedState) != 1 || findings[1].PollutedState[0] != want {
		t.Errorf("B#b polluted state %v, want [%v] (unconfirmed)", findings[1].PollutedState, want)
	}
}
