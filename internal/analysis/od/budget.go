// Budget estimates: the budget the analysis chooses from the detection
// plan when the caller left it open (ordering's autoBudget and fixBudget),
// and what confirming and minimising the candidates would take on the
// workers, so that detection leaves confirmation its time (confirmCost)
// and a budget the analysis chose grows to what the candidates need
// (extendBudget).

package od

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// estimate caches a costly estimate for a while: detection asks before
// every run it starts.
type estimate struct {
	mu    sync.Mutex
	at    time.Time
	value time.Duration
}

// estimateAge is how long an estimate is reused.
const estimateAge = 2 * time.Second

// get returns the cached value, or compute's when it is older than estimateAge.
func (e *estimate) get(compute func() time.Duration) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.at.IsZero() || time.Since(e.at) > estimateAge {
		e.value, e.at = compute(), time.Now()
	}
	return e.value
}

// confirmCost estimates how long confirming the candidates found so far
// takes on the workers.
func (d *detection) confirmCost() time.Duration {
	return d.planCost((&confirmation{recorder: d.recorder, cands: d.candidates()}).runs())
}

// planCost estimates how long the runs take on the workers, from the
// original runs' JVM overhead and test times.
func (rec *recorder) planCost(runs []plannedOrder) time.Duration {
	overhead, testTime := rec.costs()
	var total time.Duration
	for _, o := range runs {
		total += overhead
		for _, t := range o.tests {
			total += testTime(t)
		}
	}
	return total / time.Duration(max(rec.cfg.Workers, 1))
}

// minimiseCost estimates how long minimising the candidates takes on the
// workers: a search per cluster of candidates (delta debugging over its
// order's prefix for the polluters and again for the cleaners, about
// 2·log2(n) runs each of half the prefix, and the k runs that confirm each
// group), and the k runs of a batch of all the candidates and of its
// control each search is tried on.
func (rec *recorder) minimiseCost(cands []*candidate) time.Duration {
	var as []*candidate
	for _, c := range cands {
		if c.failing != nil {
			as = append(as, &candidate{test: c.test, failing: c.failing, passing: c.passing, od: victim})
		}
	}
	k := rec.cfg.Confirmations
	var runs []plannedOrder
	var all []string
	for _, c := range as {
		all = append(all, c.test)
	}
	for _, cl := range clusters(as) {
		prefix := cl[0].failing[:len(cl[0].failing)-1]
		steps := 2 * (2*int(math.Ceil(math.Log2(float64(len(prefix)+1)))) + k)
		for range steps {
			runs = append(runs, plannedOrder{tests: prefix[:len(prefix)/2]})
		}
		for range 2 * k {
			runs = append(runs, plannedOrder{tests: all})
		}
	}
	return rec.planCost(runs)
}

// extendBudget grows a budget the analysis chose, within MaxAutoBudget,
// when confirming and minimising the candidates would not fit in what is
// left of it, and says so in the coverage and the log.
func (rec *recorder) extendBudget(cands []*candidate) {
	elapsed := time.Since(rec.start)
	need := rec.planCost((&confirmation{recorder: rec, cands: cands}).runs()) + rec.minimiseCost(cands)
	if elapsed+need <= rec.cfg.Budget || rec.cfg.Budget >= MaxAutoBudget {
		return
	}
	b := min(MaxAutoBudget, (elapsed + need + time.Minute - 1).Truncate(time.Minute))
	rec.mu.Lock()
	why := fmt.Sprintf("%s; extended from %s: confirming and minimising %d candidate(s) needs ~%s after %s of detection",
		rec.cov.BudgetWhy, rec.cfg.Budget, len(cands), need.Round(time.Second), elapsed.Round(time.Second))
	rec.mu.Unlock()
	rec.setBudget(b, why)
	rec.logf("budget %s: confirming and minimising %d candidate(s) needs ~%s", b, len(cands), need.Round(time.Second))
}

// autoBudget scales the default budget to the suite from the original runs:
// the detection orders cost about rounds full runs, four for the
// twice-in-a-row runs and one JVM per test alone, shared by the workers;
// the budget is three times that (the rest is for confirming and
// minimising), within MinAutoBudget and MaxAutoBudget. It also says how it
// got there.
func (og *ordering) autoBudget(rounds int) (time.Duration, string) {
	var suite, tests time.Duration
	for _, r := range og.originals {
		if r.Duration <= suite {
			continue
		}
		suite, tests = r.Duration, 0
		for _, t := range r.Tests {
			tests += time.Duration(t.TimeMs) * time.Millisecond
		}
	}
	if suite == 0 {
		return DefaultBudget, "the default; the suite's run time is unknown"
	}
	n := len(og.s.tests)
	overhead := max(suite-tests, 300*time.Millisecond)
	alone := overhead + tests/time.Duration(n)
	detect := (time.Duration(rounds+4)*suite + time.Duration(len(og.alone()))*alone) / time.Duration(og.cfg.Workers)
	b := min(max(3*detect, MinAutoBudget), MaxAutoBudget).Round(time.Minute)
	return b, fmt.Sprintf("scaled to the suite: %d tests, %s per run of the suite, ~%s per test alone, ~%s of detection runs on %d workers",
		n, suite.Round(100*time.Millisecond), alone.Round(100*time.Millisecond), detect.Round(time.Second), og.cfg.Workers)
}

// fixBudget chooses the budget when the caller left it open (autoBudget,
// from the plan's rounds exploration orders) and arms the hard stop.
func (og *ordering) fixBudget(rounds int) {
	if og.cfg.Budget != 0 {
		return
	}
	b, why := og.autoBudget(rounds)
	og.auto = true
	og.setBudget(b, why)
	og.logf("budget %s (%s)", b, why)
}
