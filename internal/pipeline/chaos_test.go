package pipeline

import (
	"reflect"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func TestAddChaosStats(t *testing.T) {
	a := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX"}, Runs: 3, FailUnperturbed: []string{"p.A#a"}, DurationMs: 10,
		Tests: 4, PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 4, Failures: 1, Findings: 1, JVMs: 1, DurationMs: 300}}}
	if got := addChaosStats(nil, a); got != a {
		t.Errorf("first stats not taken as they are")
	}
	b := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX", "LOCALE"}, Runs: 2, BudgetExhausted: true, Unconfirmed: []string{"p.B#b"}, Failing: []string{"p.C#c: fails in every unperturbed run (6 of 6)"}, DurationMs: 5,
		Tests: 2, Skipped: []string{"LOCALE"}, Machinery: []string{"p.B#c under RANDOM_MAX: why"},
		PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 1, NotRun: 1, Failures: 1, JVMs: 2, DurationMs: 200}, {Name: "LOCALE", Group: "LOCALE", Tests: 1}}}
	got := addChaosStats(a, b)
	want := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX", "LOCALE"}, Runs: 5, BudgetExhausted: true,
		FailUnperturbed: []string{"p.A#a"}, Unconfirmed: []string{"p.B#b"}, Failing: []string{"p.C#c: fails in every unperturbed run (6 of 6)"}, DurationMs: 15,
		Tests: 6, Skipped: []string{"LOCALE"}, Machinery: []string{"p.B#c under RANDOM_MAX: why"},
		PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 5, NotRun: 1, Failures: 2, Findings: 1, JVMs: 3, DurationMs: 500}, {Name: "LOCALE", Group: "LOCALE", Tests: 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("addChaosStats = %+v, want %+v", got, want)
	}
}
