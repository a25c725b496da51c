package dataflow

import (
	"context"
	"fmt"
	"time"

	"github.com/flakyhq/flaky/internal/launcher"
)

// Runner runs orders, each in a fresh JVM, possibly in parallel, and
// returns their results in the same order; *launcher.Launcher is one.
type Runner interface {
	RunAll(ctx context.Context, orders [][]string) ([]*launcher.Result, error)
}

// Options bound a refinement.
type Options struct {
	// Deadline stops refinement from starting new rounds; zero means none.
	Deadline time.Time
	// Logf receives progress notes; nil discards them.
	Logf func(format string, args ...any)
}

// Refine tests the graph's untested edges until each is manifest, benign,
// or cannot be tested (its inversion would make a cycle with the edges
// that remain). Each round picks, in every weakly connected component of
// every reference, the first edge in source-first order that can be
// inverted, and runs all the picks at once (independent components run in
// parallel JVMs). It returns the number of JVM runs it made.
func Refine(ctx context.Context, r Runner, g *Graph, opts Options) (int, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	runs := 0
	for {
		if !opts.Deadline.IsZero() && time.Now().After(opts.Deadline) {
			logf("dataflow: the budget ended with %d edge(s) untested", g.Count(Untested))
			return runs, nil
		}
		var picks []*Edge
		var orders [][]string
		for _, ref := range g.References {
			for _, comp := range g.components(ref.Name) {
				var untested []*Edge
				for _, e := range comp {
					if e.Status == Untested {
						untested = append(untested, e)
					}
				}
				for _, e := range sourceFirst(ref, untested) {
					if order, ok := schedule(ref, comp, e); ok {
						picks = append(picks, e)
						orders = append(orders, order)
						break
					}
				}
			}
		}
		if len(picks) == 0 {
			return runs, nil
		}
		res, err := r.RunAll(ctx, orders)
		if err != nil {
			return runs, fmt.Errorf("refine data dependencies: %w", err)
		}
		runs += len(res)
		for i, e := range picks {
			e.Order = orders[i]
			e.Outcome, e.message = outcomeOf(res[i], e.Reader)
			if changed(e.RefOutcome, e.Outcome) {
				e.Status = Manifest
			} else {
				e.Status = Benign
			}
			logf("dataflow: %s -> %s is %s (%s in the reference, %s without the writer before it)", e.Reader, e.Writer, e.Status, e.RefOutcome, e.Outcome)
		}
	}
}

// outcomeOf returns test's outcome and message in r (the last ones: the
// reader runs last).
func outcomeOf(r *launcher.Result, test string) (launcher.Outcome, string) {
	out, msg := launcher.NotRun, ""
	for _, t := range r.Tests {
		if t.Test == test {
			out, msg = t.Outcome, t.Message
		}
	}
	return out, msg
}

// changed reports whether a test that had outcome ref in the reference run
// passed where it failed or failed where it passed; skipped and not-run
// outcomes change nothing.
func changed(ref, now launcher.Outcome) bool {
	if ref == launcher.Pass {
		return now.Failed()
	}
	if ref.Failed() {
		return now == launcher.Pass
	}
	return false
}
