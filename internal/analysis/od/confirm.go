// Confirmation, the third stage: confirm takes the candidates, reruns each
// alone, twice in a row and in its failing and passing orders until enough
// runs agree (a failure seen only in a warm JVM is rechecked in fresh
// ones), and classifies it (classify.go): a confirmed victim or brittle is
// recorded as a finding at once, marked incomplete until minimisation gives
// its groups (so that the budget can cut minimisation, never confirmation),
// and a non-idempotent finding is recorded as such.

package od

import (
	"context"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// unreproduced is how many fresh reruns of an order a failure seen only in
// a warm JVM gets before confirm calls it unreproduced: a NOD test that
// fails one run in three still fails in one of them 99.7% of the time.
const unreproduced = 16

// confirmation is the third stage: it takes the candidates detection gave
// (cands) and gives the confirmed victims and brittles, which minimisation
// takes; the findings it records (confirmed) are in the recorder.
type confirmation struct {
	*recorder
	cands []*candidate
}

// confirm reruns each candidate alone and twice in a row until each has k
// outcomes, and its failing and passing orders until each has two (the
// shortest failing or passing order found by minimisation gets k later),
// then classifies it, and returns the confirmed victims and brittles: the
// candidates whose findings are incomplete until minimisation completes
// them. A non-idempotent finding is recorded and complete.
func (cf *confirmation) confirm(ctx context.Context, deadline time.Time) ([]*candidate, error) {
	cands := cf.cands
	k, pre := cf.cfg.Confirmations, min(cf.cfg.Confirmations, 2)
	err := cf.run(ctx, deadline, cf.runs())
	// A failure seen only in a warm JVM that its order's fresh reruns
	// did not reproduce is what a NOD test's rare failure looks like: in
	// fresh JVMs that first failure would have made the order's outcome
	// mixed. Rerun the order fresh until it fails again or has
	// unreproduced runs; a failure then makes the test NOD on fresh
	// evidence alone, and none leaves it stable.
	// Where a fresh run showed the outcome too, its order is taken
	// instead (and rerun), as without warm runs.
	var again, fallback [][]string
	for _, c := range cands {
		if c.failing == nil {
			continue
		}
		if cf.st.get(c.failing).fail == 0 && cf.warm.get(c.failing).fail > 0 {
			if c.freshFailing != nil {
				c.failing = c.freshFailing
				fallback = append(fallback, c.failing)
			} else {
				again = append(again, c.failing)
			}
		}
		if cf.st.get(c.passing).pass == 0 && cf.warm.get(c.passing).pass > 0 && c.freshPassing != nil {
			c.passing = c.freshPassing
			fallback = append(fallback, c.passing)
		}
	}
	if len(fallback) > 0 && err == nil {
		err = cf.run(ctx, deadline, cf.plan(nil, genConfirm, fallback, pre))
	}
	if len(again) > 0 && err == nil {
		err = cf.run(ctx, deadline, cf.plan(nil, genConfirm, again, pre+unreproduced))
	}
	var out []*candidate
	for _, c := range cands {
		alone := cf.st.get([]string{c.test}).tally
		if c.failing != nil {
			c.od = classifyOD(alone, cf.st.get(c.failing).tally, cf.st.get(c.passing).tally, k, pre)
		}
		if c.nio && classifyNIO(alone, cf.st.get([]string{c.test, c.test}).tally, k) == nonIdempotent {
			once, twice := []string{c.test}, []string{c.test, c.test}
			f := &Finding{Test: c.test, Kind: report.NIO, FailingOrder: twice, PassingOrder: once}
			if alone.fails() {
				f.FailingOrder, f.PassingOrder = once, twice
			}
			f.Message = cf.failureMessage(c.test, f.FailingOrder)
			cf.add(f)
		}
		if f := cf.confirmed(c); f != nil {
			cf.add(f)
			out = append(out, c)
		}
	}
	return out, err
}

// runs returns the runs confirm starts with for the candidates: each alone
// (or twice in a row) until it has k outcomes, its failing and passing
// orders until each has two.
func (cf *confirmation) runs() []plannedOrder {
	cands := cf.cands
	k, pre := cf.cfg.Confirmations, min(cf.cfg.Confirmations, 2)
	var alone, prefixes [][]string
	for _, c := range cands {
		if c.nio {
			alone = append(alone, []string{c.test, c.test})
		} else {
			alone = append(alone, []string{c.test})
		}
		if c.failing != nil {
			prefixes = append(prefixes, c.failing, c.passing)
		}
	}
	return cf.plan(cf.plan(nil, genConfirm, alone, k), genConfirm, prefixes, pre)
}

// confirmed returns the finding of a candidate confirmed victim or brittle
// (nil for any other verdict): its failing and passing orders as
// confirmation ran them, no groups yet, incomplete until minimisation
// completes it.
func (rec *recorder) confirmed(c *candidate) *Finding {
	t := c.test
	switch c.od {
	case victim:
		return &Finding{Test: t, Kind: report.ODVictim, FailingOrder: c.failing, PassingOrder: []string{t},
			Message: rec.failureMessage(t, c.failing), Incomplete: true}
	case brittle:
		return &Finding{Test: t, Kind: report.ODBrittle, FailingOrder: []string{t}, PassingOrder: c.passing,
			Message: rec.failureMessage(t, []string{t}), Incomplete: true}
	}
	return nil
}

// failureMessage returns the failure message of the first of the orders
// that failed, else of any run of t that failed.
func (rec *recorder) failureMessage(t string, orders ...[]string) string {
	for _, o := range orders {
		if ob := rec.st.get(o); ob.fail > 0 {
			return ob.message
		}
	}
	for _, ob := range rec.st.all(t) {
		if ob.fail > 0 {
			return ob.message
		}
	}
	return ""
}
