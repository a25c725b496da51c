package verify

import (
	"reflect"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

func TestFindingCases(t *testing.T) {
	nod := surefire.FlakyCase{Class: "p.N", Name: "t", Flaky: []surefire.Problem{{Message: "sometimes"}}}
	failed := surefire.FlakyCase{Class: "p.B", Name: "t", Failed: true,
		Failure: surefire.Problem{Error: true, Message: "alone"}, Reruns: []surefire.Problem{{Error: true, Message: "again"}}}
	findings := []report.Finding{
		{Test: "p.N#t", Kind: report.NOD},
		{Test: "p.B#t", Kind: report.ODBrittle},
		{Test: "p.V#t", Kind: report.ODVictim, Reproduce: "mvn x", Evidence: []report.Evidence{
			{Run: "failing order: 3 run(s)", Outcome: "error", Message: "boom\n\tat p.V.t"},
			{Run: "passing order: 2 run(s)", Outcome: "pass"},
			{Run: "found", Outcome: "pass 1, fail 1", Message: "expected"},
		}},
		{Test: "p.A#t", Kind: report.API, Evidence: []report.Evidence{{Run: "RANDOM_MAX", Outcome: "timeout", Message: "slow"}}},
		{Test: "p.X#t", Kind: report.NIO, Message: "no evidence"},
	}
	got := findingCases([]surefire.FlakyCase{nod, failed}, findings)
	type run struct {
		err bool
		msg string
	}
	want := map[string][]run{
		"p.N#t": {{false, "sometimes"}},
		"p.B#t": {{true, "alone"}, {true, "again"}},
		"p.V#t": {{true, "boom"}, {false, "expected"}},
		"p.A#t": {{true, "slow"}},
		"p.X#t": {{false, "no evidence"}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d cases, want %d: %+v", len(got), len(want), got)
	}
	for _, c := range got {
		var runs []run
		for _, p := range c.Flaky {
			runs = append(runs, run{p.Error, p.Message})
		}
		if id := testid.Join(c.Class, c.Name); c.Failed || !reflect.DeepEqual(runs, want[id]) {
			t.Errorf("%s: failed=%v flaky runs %v, want %v", id, c.Failed, runs, want[id])
		}
	}
	if v := got[2].Flaky[0]; v.Stack != "boom\n\tat p.V.t" || !strings.Contains(v.SystemOut, "od-victim (failing order: 3 run(s), error)\nreproduce: mvn x") {
		t.Errorf("victim problem %+v", v)
	}
}
