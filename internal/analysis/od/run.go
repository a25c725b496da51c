// Running orders, for every stage: run and runBatches start the JVMs on the
// runner's shared slots until a deadline; record stores each run's
// outcomes in the prefix store (store.go) and counts the coverage; plan and
// ensure add the runs an order still needs for k outcomes of its last test.

package od

import (
	"context"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// run runs orders, each in its own JVM as soon as one of the runner's
// slots is free (shared by everything running at the same time), and stops
// starting new ones once the deadline has passed (errBudget) or a run failed.
func (rec *recorder) run(ctx context.Context, deadline time.Time, orders []plannedOrder) error {
	batches := make([][]plannedOrder, len(orders))
	for i, o := range orders {
		batches[i] = []plannedOrder{o}
	}
	return rec.runBatches(ctx, deadline, nil, batches)
}

// freeSlots is how many more JVMs could start now: how many candidates
// are worth testing at once when one hit ends the search.
func (rec *recorder) freeSlots() int {
	return rec.cfg.Workers - int(rec.busy.Load())
}

// Steps after detection, as generator names in the coverage.
const (
	genConfirm  = "confirm"
	genMinimise = "minimise"
	genVerify   = "verify" // a merge's rerun of an order a shard recorded
)

// exploring reports whether gen is one of detection's exploration
// generators, not the original order, a single test's runs or a step
// after detection (confirmation, minimisation, a merge's rerun), whose
// orders depend on what was found first and when.
func exploring(gen string) bool {
	switch gen {
	case GenOriginal, GenIsolation, GenTwice, genConfirm, genMinimise, genVerify:
		return false
	}
	return true
}

// record stores a run's outcomes and counts its coverage. Outcomes after a
// class with class-level fixtures ran them a second time are no evidence
// (Surefire never does that) and are dropped.
func (rec *recorder) record(o plannedOrder, r *launcher.Result, ours bool) {
	if rec.cfg.Shard.N > 0 {
		rec.mu.Lock()
		rec.runs = append(rec.runs, RecordedRun{Gen: o.gen, Label: o.label, Plan: o.plan, Order: r.Order, Tests: r.Tests,
			ClassScopes: r.ClassScopes, Clashed: r.Clashed, DurationMs: r.Duration.Milliseconds(), Warm: r.Warm})
		rec.mu.Unlock()
	}
	if cut := rec.infeasibleFrom(r); cut >= 0 {
		rec.logf("dropping the outcomes from position %d of a %s run: %s ran its class fixtures more than once", cut+1, o.label, testid.ClassOf(r.Order[cut]))
		trimmed := *r
		trimmed.Order = r.Order[:cut]
		r = &trimmed
	}
	st := rec.st
	if r.Warm || o.claim {
		st = rec.warm
	}
	outcomes := st.add(o.label, r)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if r.Warm && ours {
		rec.cov.WarmOrders++
	}
	if o.gen == GenOriginal && !o.claim {
		rec.originals = append(rec.originals, r)
	}
	if !o.claim {
		rec.rerun[orderKey(r.Order)] = true
	}
	for _, t := range r.Clashed {
		if !slices.Contains(rec.cov.Serial, t) {
			rec.cov.Serial = append(rec.cov.Serial, t)
			rec.cfg.Log.Logf("%s clashed with another JVM over a resource: JVMs run one at a time from now on", t)
		}
	}
	if ours {
		rec.cov.Orders++
		rec.cov.Generators[o.gen]++
		if exploring(o.gen) {
			rec.cov.Rounds++
		}
	}
	ended := r.Ended
	if ended.IsZero() {
		ended = time.Now()
	}
	for i, p := range outcomes {
		t := r.Order[i]
		if !o.claim {
			rec.tried[t] = true
			switch p.outcome {
			case launcher.Pass, launcher.Fail, launcher.Error, launcher.Skipped:
				rec.completed[t] = true
			}
		}
		switch severity(p.outcome) {
		case 3:
			rec.see(t, 1, ended)
		case 2:
			rec.see(t, 0, ended)
		}
		seen := rec.firstSeen[t]
		if _, ok := rec.flipped[t]; !ok && !seen[0].IsZero() && !seen[1].IsZero() {
			rec.flipped[t] = milestone{orders: rec.cov.Orders, elapsed: max(seen[0].Sub(rec.start), seen[1].Sub(rec.start))}
		}
	}
	if exploring(o.gen) || o.gen == GenOriginal {
		rec.coverPairs(r.Order)
	}
}

// coverPairs counts the pairs of distinct tests order covers: run right
// after each other or, with a Focus that names shared state, the first
// before the second with no writer of that state between. rec.mu is held.
func (rec *recorder) coverPairs(order []string) {
	if rec.cover != nil {
		rec.cover.covered(order, func(p [2]string) bool { return rec.cover.shared[p] != nil }, func(p [2]string) {
			if x, y := rec.index[p[0]], rec.index[p[1]]; x != y {
				rec.pairs[[2]int{x, y}] = true
			}
		})
	}
	for i := 1; i < len(order); i++ {
		x, okx := rec.index[order[i-1]]
		y, oky := rec.index[order[i]]
		if okx && oky && x != y {
			rec.pairs[[2]int{x, y}] = true
		}
	}
}

// see notes that a run that ended at ended saw t pass (outcome 0) or fail
// (outcome 1), keeping the earliest; a warm JVM hands its orders' results
// over together, so a flip's time is when the runs that showed it ended,
// not when the analysis received them.
func (rec *recorder) see(t string, outcome int, ended time.Time) {
	seen := rec.firstSeen[t]
	if seen[outcome].IsZero() || ended.Before(seen[outcome]) {
		seen[outcome] = ended
		rec.firstSeen[t] = seen
	}
}

// infeasibleFrom returns the position in r's order from which a class with
// class-level fixtures ran them again, or -1: a second contiguous stretch of
// the class, or a repeated method when the run reports more scopes for the
// class than the order has stretches (the framework split it).
func (rec *recorder) infeasibleFrom(r *launcher.Result) int {
	stretches := map[string]int{}
	seen := map[string]map[string]bool{}
	for i, t := range r.Order {
		c := testid.ClassOf(t)
		if !rec.s.fixtures[c] {
			continue
		}
		if i == 0 || testid.ClassOf(r.Order[i-1]) != c {
			if stretches[c]++; stretches[c] > 1 {
				return i
			}
			seen[c] = map[string]bool{}
		}
		if seen[c][t] && r.ClassScopes[c] > stretches[c] {
			return i
		}
		seen[c][t] = true
	}
	return -1
}

// ensure runs each order until it has k outcomes for its last test.
func (rec *recorder) ensure(ctx context.Context, deadline time.Time, gen string, orders [][]string, k int) error {
	return rec.run(ctx, deadline, rec.plan(nil, gen, orders, k))
}

// plan adds to todo the runs each order needs to have k outcomes for its
// last test; runs of a longer order, done or planned, count for the orders
// that are its prefixes.
func (rec *recorder) plan(todo []plannedOrder, gen string, orders [][]string, k int) []plannedOrder {
	sorted := slices.Clone(orders)
	slices.SortStableFunc(sorted, func(x, y []string) int { return len(y) - len(x) })
	seen := map[string]bool{}
	for _, o := range sorted {
		if key := orderKey(o); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		have := rec.st.get(o).runs()
		for _, p := range todo {
			if len(p.tests) >= len(o) && slices.Equal(p.tests[:len(o)], o) {
				have++
			}
		}
		for range k - have {
			todo = append(todo, plannedOrder{gen: gen, label: gen, tests: o})
		}
	}
	return todo
}

// runBatches runs each batch as soon as one of the runner's slots is free
// (shared by everything running at the same time): a batch of one order in
// a fresh JVM, a larger one in a warm JVM (the runner is then a
// WarmRunner). It stops starting new ones once the deadline has passed
// (errBudget), or full (when set) says the budget has no room for more,
// or a run failed.
func (rec *recorder) runBatches(ctx context.Context, deadline time.Time, full func() bool, batches [][]plannedOrder) error {
	g, gctx := errgroup.WithContext(ctx)
	late := false
	var err error
	for _, b := range batches {
		if err = rec.slots.Acquire(gctx, 1); err != nil {
			break
		}
		if time.Now().After(deadline) || (full != nil && full()) {
			rec.slots.Release(1)
			late = true
			break
		}
		rec.busy.Add(1)
		g.Go(func() error {
			defer rec.slots.Release(1)
			defer rec.busy.Add(-1)
			orders := make([][]string, len(b))
			for i, o := range b {
				orders[i] = o.tests
			}
			var res []*launcher.Result
			var err error
			if len(b) == 1 {
				res, err = rec.runner.RunAll(gctx, orders)
			} else {
				res, err = rec.runner.(WarmRunner).RunWarm(gctx, orders)
			}
			if err != nil {
				return fmt.Errorf("run orders: %w", err)
			}
			rec.mu.Lock()
			for _, r := range res {
				rec.cov.JVMTime += r.Duration
				rec.cov.JVMCPU += r.CPU
			}
			if slices.ContainsFunc(res, func(r *launcher.Result) bool { return r.Warm }) {
				rec.cov.WarmJVMs++
			}
			rec.mu.Unlock()
			for i, r := range res {
				rec.record(b[i], r, true)
			}
			return nil
		})
	}
	if werr := g.Wait(); werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("run orders: %w", err)
	}
	if late {
		return errBudget
	}
	return nil
}
