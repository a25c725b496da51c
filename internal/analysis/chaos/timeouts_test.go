package chaos

import (
	"reflect"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

func TestTestTimeouts(t *testing.T) {
	a := &analysis{baseline: []*launcher.Result{{Tests: []launcher.TestResult{
		{Test: "p.A#fast", Outcome: launcher.Pass, TimeMs: 20},
		{Test: "p.A#slow", Outcome: launcher.Pass, TimeMs: 3000},
		{Test: "p.A#broken", Outcome: launcher.Fail, TimeMs: 5},
		{Test: "p.P#t[1]", Outcome: launcher.Pass, TimeMs: 100},
		{Test: "p.P#t[2]", Outcome: launcher.Pass, TimeMs: 1500},
	}}}}
	order := []string{"p.A#fast", "p.A#slow", "p.A#broken", "p.P#t"}
	if got, want := a.testTimeouts(order, mustLookup("RANDOM_MAX")), map[string]time.Duration{
		"p.A#fast": MinTestTimeout, "p.A#slow": 30 * time.Second, "p.P#t": 15 * time.Second,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("RANDOM_MAX: %v, want %v", got, want)
	}
	if got, want := a.testTimeouts(order, mustLookup("RANDOM_MAX", "SLEEP_INCREASE")), map[string]time.Duration{
		"p.A#fast": MinDelayedTestTimeout, "p.A#slow": MinDelayedTestTimeout, "p.P#t": MinDelayedTestTimeout,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("with SLEEP_INCREASE: %v, want %v", got, want)
	}
	if got := a.testTimeouts(order, nil); got != nil {
		t.Errorf("unperturbed: %v, want none", got)
	}
	if got := (&analysis{}).testTimeouts(order, mustLookup("LOCALE")); got != nil {
		t.Errorf("before the unperturbed run: %v, want none", got)
	}
}
