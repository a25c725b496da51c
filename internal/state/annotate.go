package state

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// Timing is how long naming and confirming one finding's state took.
type Timing struct {
	Test     string
	Duration time.Duration
	Runs     int
}

// Annotate sets PollutedState on every OD victim and brittle of findings,
// running the debugger with r; logf says what it does and what it could not
// do (a finding it cannot debug keeps no pollutedState: the rest goes on).
func Annotate(ctx context.Context, r Runner, findings []report.Finding, agentOptions []string, logf func(string, ...any)) ([]Timing, error) {
	tmp, err := os.MkdirTemp("", "flaky-state-")
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	defer os.RemoveAll(tmp)
	d := &Debugger{Runner: r, TmpDir: tmp, AgentOptions: agentOptions}
	var timings []Timing
	for i := range findings {
		f := &findings[i]
		if (f.Kind != report.ODVictim && f.Kind != report.ODBrittle) || len(f.FailingOrder) == 0 {
			continue
		}
		got, err := d.Debug(ctx, Target{Test: f.Test, Kind: f.Kind, FailingOrder: f.FailingOrder, PassingOrder: f.PassingOrder})
		if err != nil {
			if ctx.Err() != nil {
				return timings, ctx.Err()
			}
			logf("cannot name the polluted state of %s: %v", f.Test, err)
			continue
		}
		f.PollutedState = got.Items
		if len(got.Cut) > 0 {
			logf("state of %s: the capture of %v reached its bounds (cut)", f.Test, got.Cut)
		}
		timings = append(timings, Timing{Test: f.Test, Duration: got.Duration, Runs: got.Runs})
	}
	return timings, nil
}

// Confirmed returns the distinct confirmed roots of a finding's polluted
// state, as "kind root" in report order.
func Confirmed(items []report.StateItem) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		if it.Confirmed && !seen[it.Root] {
			seen[it.Root] = true
			out = append(out, it.Root)
		}
	}
	return out
}
