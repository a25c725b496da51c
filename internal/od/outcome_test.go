package od

import (
	"testing"

	"github.com/flakyhq/flaky/internal/launcher"
)

// TestEvidenceSaysWhichFailure checks that evidence names a failure with the
// launcher's outcome (an exception is "error", as run-order says), not "fail".
func TestEvidenceSaysWhichFailure(t *testing.T) {
	s := newStore()
	order := []string{"a.P#p", "a.V#t"}
	for _, o := range []launcher.Outcome{launcher.Pass, launcher.Error, launcher.Fail} {
		s.add("confirm", &launcher.Result{Order: order, Tests: []launcher.TestResult{
			{Test: "a.P#p", Outcome: launcher.Pass},
			{Test: "a.V#t", Outcome: o, Message: string(o)},
		}})
	}
	o := s.get(order)
	if o.failure != launcher.Error || o.message != "error" {
		t.Errorf("first failure %q %q, want error", o.failure, o.message)
	}
	tests := []struct {
		obs  Observation
		want string
	}{
		{Observation{Pass: 2}, "pass"},
		{Observation{Fail: 3, Failure: launcher.Error}, "error"},
		{Observation{Fail: 1, Failure: launcher.Timeout}, "timeout"},
		{Observation{Pass: 1, Fail: 2, Failure: launcher.Fail}, "pass 1, fail 2"},
		{Observation{Pass: 2, Fail: 1, Failure: launcher.Crash}, "pass 2, crash 1"},
	}
	for _, tt := range tests {
		if got := outcomeWord(tt.obs); got != tt.want {
			t.Errorf("outcomeWord(%+v) = %q, want %q", tt.obs, got, tt.want)
		}
	}
}
