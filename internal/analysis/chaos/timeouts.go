package chaos

import (
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// Per-test timeouts of perturbed runs: a test gets TimeoutFactor times its
// unperturbed duration, and at least the floor of its strategies, instead
// of the launcher's test timeout (when that is longer): a perturbation that
// makes a 100 ms test loop forever costs seconds, not minutes.
const (
	TimeoutFactor = 10
	// MinTestTimeout is the floor for strategies that add no real time.
	MinTestTimeout = 10 * time.Second
	// MinDelayedTestTimeout is the floor for a set with a strategy that
	// adds real time to every call (seconds per sleep, connection or task).
	MinDelayedTestTimeout = time.Minute
)

// addsRealTime are the strategies that make calls take longer in real time.
var addsRealTime = map[string]bool{"SLEEP_INCREASE": true, "NETWORK_DELAY": true, "ASYNC_DELAY": true, "TIME_SLOW": true, "TIME_ROUNDING": true}

// testTimeouts returns the per-entry timeouts of a perturbed run of order
// with strategies, from the unperturbed runs' durations; nil before they
// are known. Entries the unperturbed runs did not pass keep the launcher's.
func (a *analysis) testTimeouts(order []string, strategies []Strategy) map[string]time.Duration {
	if len(strategies) == 0 || len(a.baseline) == 0 {
		return nil
	}
	floor := MinTestTimeout
	for _, s := range strategies {
		if addsRealTime[s.ID] {
			floor = MinDelayedTestTimeout
		}
	}
	out := map[string]time.Duration{}
	for _, r := range a.baseline {
		for _, t := range r.Tests {
			e := entryOf(order, t.Test)
			if e < 0 || t.Outcome != launcher.Pass {
				continue
			}
			out[order[e]] = max(out[order[e]], floor, TimeoutFactor*time.Duration(t.TimeMs)*time.Millisecond)
		}
	}
	return out
}
