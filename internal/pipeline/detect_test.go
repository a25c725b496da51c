package pipeline

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/report"
)

// An analysis that completed no order, or no test in any order, fails
// with the reason instead of claiming "0 flaky".
func TestRanOrders(t *testing.T) {
	tests := []struct {
		name    string
		tests   int
		cov     od.Coverage
		wantErr string
	}{
		{name: "orders ran", tests: 3, cov: od.Coverage{Orders: 2}},
		{name: "no tests", tests: 0, cov: od.Coverage{}},
		{name: "budget spent", tests: 3, cov: od.Coverage{Budget: time.Minute, BudgetExhausted: true}, wantErr: "no order completed within the budget of 1m0s (raise --budget, or check for tests that hang); no result for the 3 tests"},
		{name: "nothing ran", tests: 3, cov: od.Coverage{}, wantErr: "no order completed; no result for the 3 tests"},
		{name: "some tests never ran", tests: 3, cov: od.Coverage{Orders: 4, NeverRan: []string{"a.E#x", "a.E#y"}}},
		{name: "no test ran", tests: 2, cov: od.Coverage{Orders: 4, NeverRan: []string{"a.E#x", "a.E#y"}},
			wantErr: "no test completed in any of the 4 orders (each crashed, timed out or got no result: a.E#x, a.E#y); no result for the 2 tests"},
	}
	for _, tt := range tests {
		err := ranOrders(tt.tests, tt.cov)
		var none *NoOrdersError
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (!errors.As(err, &none) || err.Error() != tt.wantErr):
			t.Errorf("%s: %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

// A test that has a finding is never also unconfirmed, whichever step (or
// fork) left it unconfirmed.
func TestUnreported(t *testing.T) {
	findings := []report.Finding{{Test: "A#a", Kind: report.ODVictim}, {Test: "B#b", Kind: report.NOD}}
	for _, c := range []struct {
		name        string
		unconfirmed []string
		want        []string
	}{
		{"none", nil, nil},
		{"all reported", []string{"A#a", "B#b"}, nil},
		{"some", []string{"C#c", "A#a", "D#d"}, []string{"C#c", "D#d"}},
	} {
		if got := unreported(c.unconfirmed, findings); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestStateHint checks the roots a change's finding names first: what its
// test reads and one of its polluters or state-setters writes.
func TestStateHint(t *testing.T) {
	focus := &od.Focus{
		Reads:  map[string][]string{"p.V#v": {"p.C.cache", "p.C.mode", "p.D.x"}, "p.B#b": {"p.C.mode"}},
		Writes: map[string][]string{"p.P#p": {"p.C.cache", "p.E.y"}, "p.Q#q": {"p.D.x"}, "p.S#s": {"p.C.mode"}},
	}
	for _, tc := range []struct {
		name string
		f    report.Finding
		want []string
	}{
		{"a victim's polluter groups", report.Finding{Test: "p.V#v", Polluters: [][]string{{"p.P#p"}, {"p.Q#q"}}}, []string{"p.C.cache", "p.D.x"}},
		{"a brittle's setters", report.Finding{Test: "p.B#b", Setters: [][]string{{"p.S#s"}}}, []string{"p.C.mode"}},
		{"nothing written that it reads", report.Finding{Test: "p.B#b", Polluters: [][]string{{"p.P#p"}}}, []string{}},
	} {
		if got := stateHint(focus)(tc.f); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if stateHint(nil) != nil {
		t.Error("a hint without a focus")
	}
}
