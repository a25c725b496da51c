package state

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/report"
)

// Timing is how long naming and confirming one finding's state took.
type Timing struct {
	Test     string
	Duration time.Duration
	Runs     int
}

// Annotate sets PollutedState on every OD victim and brittle of findings,
// and on every NIO finding (the state its second run finds and its first
// did not: captured before each run of [t, t], confirmed by restoring the
// first run's values before the second),
// debugging them together with r, every run with the state options base
// (nil: the agent's defaults); hint, when set, gives a finding's roots to
// try first (Target.Hint). log's progress notes say what it starts and
// how many findings it could not debug (those keep no pollutedState: the
// rest goes on), its debug notes which and why.
func Annotate(ctx context.Context, r Runner, findings []report.Finding, base *agent.StateOptions, hint func(report.Finding) []string, log logs.Logger) ([]Timing, error) {
	tmp, err := os.MkdirTemp("", "flaky-state-")
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	defer os.RemoveAll(tmp)
	d := &Debugger{Runner: r, TmpDir: tmp}
	if base != nil {
		d.Base = *base
	}
	var targets []Target
	var at []int
	for i, f := range findings {
		if (f.Kind == report.ODVictim || f.Kind == report.ODBrittle || f.Kind == report.NIO) && len(f.FailingOrder) > 0 {
			t := Target{Test: f.Test, Kind: f.Kind, FailingOrder: f.FailingOrder, PassingOrder: f.PassingOrder}
			if hint != nil {
				t.Hint = hint(f)
			}
			targets = append(targets, t)
			at = append(at, i)
		}
	}
	if len(targets) == 0 {
		return nil, nil
	}
	log.Logf("naming the polluted state of %d OD finding(s)", len(targets))
	outs, err := d.Debug(ctx, targets)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	var timings []Timing
	failed, cut := 0, 0
	for j, o := range outs {
		f := &findings[at[j]]
		if o.Err != nil {
			failed++
			log.Debugf("cannot name the polluted state of %s: %v", f.Test, o.Err)
			continue
		}
		f.PollutedState = o.Items
		if len(o.Cut) > 0 {
			cut++
			log.Debugf("state of %s: the capture of %v reached its bounds (cut)", f.Test, o.Cut)
		}
		timings = append(timings, Timing{Test: f.Test, Duration: o.Duration, Runs: o.Runs})
	}
	if failed > 0 {
		log.Logf("cannot name the polluted state of %d of %d OD finding(s) (--debug says which and why)", failed, len(targets))
	}
	if cut > 0 {
		log.Logf("the state capture of %d OD finding(s) reached its bounds (cut; --debug says where)", cut)
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
