// Detection, the second stage: detection.detect takes the scheduled
// detection orders and runs them (each in a fresh JVM, or the exploration
// orders a few at a time in warm JVMs); candidates then reads the recorded
// outcomes and gives the tests worth confirming: the ones that failed in
// one order and passed in another (with the shortest such orders) and the
// ones whose second run in one JVM differed from their first. The
// recorder's unexplained, which the result reads too, drops the failures a
// Focus's knowledge already explains.

package od

import (
	"context"
	"slices"
	"time"
)

// candidate is a test whose outcome changed somewhere.
type candidate struct {
	test             string
	failing, passing []string // shortest orders it failed and passed in (order dependence), itself last
	// freshFailing and freshPassing are the shortest orders it failed and
	// passed in in fresh JVMs (nil: none): confirm falls back to them when
	// failing or passing came from a warm run that fresh reruns do not
	// reproduce.
	freshFailing, freshPassing []string
	nio                        bool // its second run in a JVM differed from its first
	od                         verdict
}

// detection is the second stage: it takes the scheduled detection orders
// and runs them (detect), and gives the candidates (candidates), which it
// reads from the recorded outcomes, so that the rounds after minimisation
// ask it again for the tests that flipped since.
type detection struct {
	*recorder
	orders  []plannedOrder
	reserve estimate // what confirming the candidates found so far would take
}

// candidates finds the tests that both passed and failed in different
// orders, or in a first and a second run in one JVM.
func (d *detection) candidates() []*candidate {
	var out []*candidate
	for _, t := range d.targets {
		c := &candidate{test: t}
		// Warm runs count here, and only here: the failing and passing
		// orders they give are rerun in fresh JVMs by confirm. The
		// shortest orders are taken, as without warm runs (a short order
		// keeps minimisation cheap; sortObs breaks ties); the shortest
		// fresh ones are kept for when fresh reruns do not reproduce a
		// warm outcome.
		fresh := d.unexplained(t, d.st.observed(t, false))
		sortObs(fresh)
		c.freshFailing, c.freshPassing = shortestOutcomes(fresh)
		c.failing, c.passing = c.freshFailing, c.freshPassing
		if warm := d.unexplained(t, d.warm.observed(t, false)); len(warm) > 0 {
			all := slices.Concat(fresh, warm)
			sortObs(all)
			c.failing, c.passing = shortestOutcomes(all)
		}
		if c.failing == nil || c.passing == nil {
			c.failing, c.passing = nil, nil
		}
		c.nio = d.changesWhenRepeated(t)
		if c.failing != nil || c.nio {
			out = append(out, c)
		}
	}
	return out
}

// unexplained returns observed without the failures a settled known
// victim t (Focus.Settled) had after one of its known polluter groups ran
// before it: in the detection orders, later than any of the changed tests
// it is judged against (Focus.Via); in orders built for other tests
// (minimising theirs), anywhere before it. Those are what the knowledge
// already says, not evidence. A failure in a detection order with one of
// those changed tests after every known polluter group (or with none
// before it) may be a new polluter's, and counts: the detection orders
// cover each of its pairs.
func (rec *recorder) unexplained(t string, observed []obs) []obs {
	groups := rec.settled(t)
	if len(groups) == 0 {
		return observed
	}
	via := toSet(rec.cfg.Focus.Via[t])
	out := observed[:0:0]
	for _, o := range observed {
		prefix := o.order[:len(o.order)-1]
		if o.fail > 0 && (explainedLater(prefix, groups, via) || !rec.isPlanned(o.order) && explainedLater(prefix, groups, nil)) {
			o.fail = 0
		}
		if o.runs() > 0 {
			out = append(out, o)
		}
	}
	return out
}

// isPlanned reports whether order is a prefix of one of the detection
// orders.
func (rec *recorder) isPlanned(order []string) bool {
	return slices.ContainsFunc(rec.planned, func(p []string) bool { return isPrefix(order, p) })
}

// explainedLater reports whether one of groups ran wholly in prefix, its
// last member after the last test of via there.
func explainedLater(prefix []string, groups [][]string, via map[string]bool) bool {
	last := -1
	for i, x := range prefix {
		if via[x] {
			last = i
		}
	}
	return slices.ContainsFunc(groups, func(g []string) bool { return len(g) > 0 && lastIndexOfGroup(prefix, g) > last })
}

// settled returns the known polluter groups of t when the Focus keeps its
// verdict (nil otherwise).
func (rec *recorder) settled(t string) [][]string {
	if rec.cfg.Focus == nil {
		return nil
	}
	return rec.cfg.Focus.Settled[t]
}

// shortestOutcomes returns the first order of observed (sorted shortest
// first) with a failure, and the first with a pass.
func shortestOutcomes(observed []obs) (failing, passing []string) {
	for _, o := range observed {
		if o.fail > 0 && failing == nil {
			failing = o.order
		}
		if o.pass > 0 && passing == nil {
			passing = o.order
		}
	}
	return failing, passing
}

// changesWhenRepeated reports whether a run of t right after itself had a
// different outcome than that first run.
func (d *detection) changesWhenRepeated(t string) bool {
	// The warm store holds no twice-in-a-row runs but a merge's shards'
	// (candidates' evidence: confirmation runs t twice here).
	for _, st := range []*store{d.st, d.warm} {
		for _, o := range st.observed(t, true) {
			n := len(o.order)
			if n < 2 || o.order[n-2] != t {
				continue
			}
			if first := st.get(o.order[:n-1]).tally; first.runs() > 0 && (o.mixed() || first.mixed() || first.passes() != o.passes()) {
				return true
			}
		}
	}
	return false
}

// warmBatches groups the exploration orders n at a time for workers warm
// JVMs at once: each stretch of n×workers exploration orders is dealt out
// in turn to workers groups, so that every warm JVM starts with the
// generators' first (most telling) orders; each group takes the place of
// its first order. Every other order (the original, isolation and
// twice-in-a-row runs, and orders of one test) is a group of its own.
func warmBatches(orders []plannedOrder, n, workers int) [][]plannedOrder {
	workers = max(workers, 1)
	var batches [][]plannedOrder
	at := map[int]int{} // group -> its index in batches
	e := 0              // exploration orders so far
	for _, o := range orders {
		if !warmable(o) {
			batches = append(batches, []plannedOrder{o})
			continue
		}
		g := e/(n*workers)*workers + e%workers
		e++
		if i, ok := at[g]; ok {
			batches[i] = append(batches[i], o)
			continue
		}
		at[g] = len(batches)
		batches = append(batches, []plannedOrder{o})
	}
	return batches
}

// detect runs the detection orders until deadline or until confirming
// what they found so far would no longer fit before end, the budget's end
// (a shard confirms nothing, and runs them until deadline): each in its
// own fresh JVM, or, with Config.Warm and a WarmRunner, the exploration
// orders up to Config.Warm at a time in one warm JVM (warmBatches) and the
// others fresh.
func (d *detection) detect(ctx context.Context, deadline, end time.Time) error {
	full := func() bool { return time.Now().Add(d.reserve.get(d.confirmCost)).After(end) }
	if d.cfg.Shard.N > 0 {
		full = nil
	}
	orders := d.orders
	batches := make([][]plannedOrder, len(orders))
	for i, o := range orders {
		batches[i] = []plannedOrder{o}
	}
	if _, ok := d.runner.(WarmRunner); ok && d.cfg.Warm > 0 {
		batches = warmBatches(orders, warmBatchSize(orders, d.cfg.Warm, d.cfg.Workers), d.cfg.Workers)
	}
	return d.runBatches(ctx, deadline, full, batches)
}

// warmBatchSize is how many exploration orders one warm JVM runs: at most
// most, and few enough that the exploration orders keep every worker busy
// (a warm JVM runs its orders one after another), but two at least.
func warmBatchSize(orders []plannedOrder, most, workers int) int {
	n := 0
	for _, o := range orders {
		if warmable(o) {
			n++
		}
	}
	return max(2, min(most, (n+workers-1)/max(workers, 1)))
}

// warmable tells whether an order may run in a warm JVM: an exploration
// order of two tests or more.
func warmable(o plannedOrder) bool {
	return o.gen != GenOriginal && o.gen != GenIsolation && o.gen != GenTwice && len(o.tests) >= 2
}
