package launcher

import (
	"context"
	"fmt"
	"os"
	"slices"
)

// Resumption is a point where a run with RunOptions.Resume went on in a
// fresh JVM: the JVM before it ended early, and the order continued from
// entry At. The JVMs of a run thus ran order[0:Resumed[0].At],
// order[Resumed[0].At:Resumed[1].At], ... and the rest.
type Resumption struct {
	At   int    `json:"at"`   // the order index the fresh JVM started at
	From string `json:"from"` // the order entry there
	// After is the test the previous JVM was running when it ended (its
	// result says how), empty when it ended between tests.
	After string `json:"after,omitempty"`
	// Why says how the previous JVM ended: "timeout", "crash" or "System.exit".
	Why string `json:"why"`
}

// HandedOver is Resumption.Why when the JVM before handed the order's rest
// over (see Handoff) and another JVM ran it beside it.
const HandedOver = "handoff"

// String describes the resumption for a report or console line.
func (r Resumption) String() string {
	if r.Why == HandedOver {
		return fmt.Sprintf("another JVM ran the order from %s (entry %d) on, beside the JVM before", r.From, r.At+1)
	}
	if r.After == "" {
		return fmt.Sprintf("a fresh JVM went on from %s (entry %d) after the JVM ended early (%s)", r.From, r.At+1, r.Why)
	}
	return fmt.Sprintf("a fresh JVM went on from %s (entry %d) after %s ended its JVM (%s)", r.From, r.At+1, r.After, r.Why)
}

// runResuming runs order once, and, with opts.Resume, runs what is left of
// it in a fresh JVM whenever a JVM ends before the end of its part, for as
// long as each JVM gets at least one test done (and, with
// opts.stopAtClash, no test clashed).
func (l *Launcher) runResuming(ctx context.Context, order []string, opts RunOptions) (*Result, error) {
	if opts.Handoff != nil {
		order = order[:opts.Handoff.limit(len(order))]
		opts.Handoff.begin(0, len(order))
	}
	r, err := l.runOnce(ctx, order, opts)
	if err != nil || !opts.Resume {
		return r, err
	}
	for at := r.resumeAt; at < len(r.Order); at = r.resumeAt {
		if opts.stopAtClash && len(r.clashed()) > 0 {
			break
		}
		if opts.Handoff != nil {
			opts.Handoff.begin(at, len(order))
		}
		rest, err := l.runOnce(ctx, r.Order[at:], opts)
		if err != nil {
			r.removeTmp()
			return nil, err
		}
		progress := slices.Contains(rest.covered, true)
		r.resume(at, rest)
		if !progress {
			break
		}
	}
	return r, nil
}

// resume merges rest, the run of r.Order[at:] in a fresh JVM, into r.
func (r *Result) resume(at int, rest *Result) {
	r.Order = r.Order[:at+len(rest.Order)] // rest handed its end over
	r.Resumed = append(r.Resumed, Resumption{At: at, From: r.Order[at], After: r.victim, Why: r.ending})
	var tests []TestResult
	for _, t := range append(r.Tests, rest.Tests...) {
		if t.Outcome != NotRun {
			tests = append(tests, t)
		}
	}
	r.covered = append(r.covered[:at], rest.covered...)
	for i, entry := range r.Order {
		if !r.covered[i] {
			tests = append(tests, TestResult{Test: entry, Outcome: NotRun})
		}
	}
	r.Tests = tests
	r.ClassErrors = append(r.ClassErrors, rest.ClassErrors...)
	for c, n := range rest.ClassScopes {
		r.ClassScopes[c] += n
	}
	r.Perturbations = append(r.Perturbations, rest.Perturbations...)
	r.Exit = rest.Exit
	r.TimedOut = r.TimedOut || rest.TimedOut
	r.Notes = append(r.Notes, rest.Notes...)
	sep := fmt.Sprintf("\n[flaky: %s]\n", r.Resumed[len(r.Resumed)-1])
	if len(r.Output) > 4*DefaultOutputLimit {
		r.Output = r.Output[:DefaultOutputLimit] + "\n[... output of earlier JVMs omitted ...]"
	}
	r.Output += sep + rest.Output
	r.Duration += rest.Duration
	r.Ended = rest.Ended
	r.removeTmp()
	r.TmpDir = rest.TmpDir
	r.ending, r.victim = rest.ending, rest.victim
	r.resumeAt = len(r.Order)
	if rest.resumeAt < len(rest.Order) {
		r.resumeAt = at + rest.resumeAt
	}
}

// removeTmp removes the kept temporary directory of a JVM whose run a
// resumed one extends (only the last JVM's is kept).
func (r *Result) removeTmp() {
	if r.TmpDir != "" {
		os.RemoveAll(r.TmpDir)
		r.TmpDir = ""
	}
}
