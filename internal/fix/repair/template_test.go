package repair

import (
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

// TestTemplatePlans: each api group's standard fixes, in the order they
// are tried (for iteration order the test's own collection first, then the
// assertion), and the groups without one; the test-only ops never touch
// the code under test.
func TestTemplatePlans(t *testing.T) {
	tests := []struct {
		group, strategy string
		ops             [][]string
	}{
		{"LOCALE", "LOCALE", [][]string{{"locale-root"}}},
		{"LOCALE", "TIMEZONE", [][]string{{"time-zone", "locale-root"}}},
		{"DATE", "DATE_FIXED", [][]string{{"time-zone"}}},
		{"ITERATION_ORDER", "ITERATION_ORDER", [][]string{{"ordered-collection"}, {"sorted-assertion"}}},
		{"RANDOM", "RANDOM_MAX", [][]string{{"seeded-random"}}},
		{"SLEEP", "SLEEP_INCREASE", [][]string{{"await-condition"}}},
		{"ASYNC", "ASYNC_DELAY", [][]string{{"await-condition"}}},
		{"TIME", "TIME_SLOW", nil},
		{"CONCURRENCY", "CONCURRENCY_SHRINK", nil},
		{"NETWORK", "NETWORK_DELAY", nil},
	}
	for _, tt := range tests {
		t.Run(tt.strategy, func(t *testing.T) {
			var got [][]string
			for _, p := range templatePlans(report.Finding{Kind: report.API, Group: tt.group, Strategy: tt.strategy}) {
				got = append(got, p.ops)
			}
			if !slices.EqualFunc(got, tt.ops, slices.Equal) {
				t.Errorf("plans %q, want %q", got, tt.ops)
			}
		})
	}
	for _, op := range []string{"seeded-random", "ordered-collection", "sorted-assertion", "await-condition"} {
		if testOwned(op, "src/main/java/p/Code.java") || !testOwned(op, "src/test/java/p/CodeTest.java") {
			t.Errorf("%s: may edit the code under test, or not the test", op)
		}
	}
	if !testOwned("locale-root", "src/main/java/p/Code.java") {
		t.Error("locale-root: may not edit the code under test")
	}
}
