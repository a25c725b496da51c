package chaos

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// clearAlpha is the significance at which a finding's strategies make its
// test fail clearly more often than unperturbed runs do (Fisher's exact
// test, one-sided), before the correction for the strategies tried.
const clearAlpha = 0.05

// maxAgain is how many times, at most, confirmation reruns a finding's
// reproduce order with its strategies to show that they make the test fail
// clearly more often than unperturbed runs do.
const maxAgain = 4

// againDetail is the Evidence.Detail of confirmClearly's runs.
const againDetail = "again"

// milderDetail starts the Evidence.Detail of a run with a tenth of its
// strategy's parameter.
const milderDetail = "milder: "

// fisherGreater is the one-sided p-value of Fisher's exact test that the
// first of two groups of runs fails more often than the second: the
// chance, were both to fail at one rate, that at least f1 of the failures
// of all n1+n2 runs fall in the first group.
func fisherGreater(f1, n1, f2, n2 int) float64 {
	binom := func(n, k int) *big.Float {
		return new(big.Float).SetInt(new(big.Int).Binomial(int64(n), int64(k)))
	}
	failures := f1 + f2
	tail := new(big.Float)
	for x := f1; x <= min(n1, failures); x++ {
		tail.Add(tail, new(big.Float).Mul(binom(n1, x), binom(n2, failures-x)))
	}
	p, _ := new(big.Float).Quo(tail, binom(n1+n2, failures)).Float64()
	return p
}

// ownTally counts f's runs with exactly its strategies on orders that end
// with its reproduce order, and those that failed the test (its own
// failures; the machinery's are no runs): attribution's and
// confirmation's, not the run that found the failure (it is why the test
// was looked at, so it says nothing of its rate) nor the milder ones.
func (f *Finding) ownTally() (runs, failures int) {
	for i, e := range f.Evidence {
		if i == f.foundBy || !slices.Equal(IDs(e.Strategies), IDs(f.Strategies)) || !endsWith(e.Order, f.Order, f.Test) || strings.HasPrefix(e.Detail, milderDetail) ||
			e.Outcome == launcher.NotRun || e.Outcome == launcher.Skipped || e.Outcome.Failed() && !e.own {
			continue
		}
		runs++
		if e.own {
			failures++
		}
	}
	return runs, failures
}

// endsWith reports whether order ends with tail, whose last entries both
// run test (one may be the parameterized test whose invocation the other
// names).
func endsWith(order, tail []string, test string) bool {
	n := len(tail)
	if n == 0 || len(order) < n {
		return false
	}
	end := order[len(order)-n:]
	return slices.Equal(end[:n-1], tail[:n-1]) && testid.IsInvocation(test, end[n-1]) && testid.IsInvocation(test, tail[n-1])
}

// inSuiteOrder returns tests (test ids, invocations) in the order the
// suite's order runs them.
func (a *analysis) inSuiteOrder(tests []string) []string {
	out := slices.Clone(tests)
	slices.SortStableFunc(out, func(x, y string) int { return cmp.Compare(entryOf(a.cfg.Tests, x), entryOf(a.cfg.Tests, y)) })
	return out
}

// clearly reports whether f's strategies make its test fail clearly more
// often than its unperturbed runs (the suite's, the control runs) do, were
// it to fail more further runs with them: Fisher's exact test at
// clearAlpha, divided by the strategies tried alone before f's was named
// from their runs (Bonferroni: the more tried, the likelier one fails a
// test that fails now and then by chance).
func (a *analysis) clearly(f *Finding, more int) bool {
	runs, failures := f.ownTally()
	u := a.unperturbedTally(f.Test)
	return fisherGreater(failures+more, runs+more, u.failures, u.runs) <= clearAlpha/float64(max(1, f.tried))
}

// confirmClearly reruns the reproduce order of each finding with its
// strategies, one round at a time and at most maxAgain times, until they
// make the test fail clearly more often than unperturbed runs do (a
// finding that fails every time needs two such failures after the run that
// found it, more when several strategies were tried); those it cannot show
// so are suspected.
func (a *analysis) confirmClearly(ctx context.Context) error {
	for left := maxAgain; left > 0; left-- {
		// The findings due whose reproduce order is the test alone rerun
		// together, one JVM per strategies, in the suite's order: as the
		// control runs and attribution's first round run failing tests.
		due := map[*Finding]bool{}
		alone := map[string][]string{}
		for i := range a.res.Findings {
			f := &a.res.Findings[i]
			if due[f] = !a.clearly(f, 0) && a.clearly(f, left); due[f] && len(f.Order) == 1 {
				alone[Join(f.Strategies)] = append(alone[Join(f.Strategies)], f.Test)
			}
		}
		for k, tests := range alone {
			alone[k] = a.inSuiteOrder(tests)
		}
		if err := a.confirmRound(ctx, "again on their reproduce order", func(f *Finding) ([]string, Settings, string, bool) {
			if len(f.Order) == 1 {
				return alone[Join(f.Strategies)], a.cfg.Settings, againDetail, due[f]
			}
			return f.Order, a.cfg.Settings, againDetail, due[f]
		}, func(*Finding, bool, []string) {}); err != nil {
			return err
		}
	}
	for i := range a.res.Findings {
		f := &a.res.Findings[i]
		if a.clearly(f, 0) {
			continue
		}
		runs, failures := f.ownTally()
		u := a.unperturbedTally(f.Test)
		why := fmt.Sprintf("with %s it failed %d of %d runs after the one that found it, unperturbed %d of %d: not clearly more often", Join(f.Strategies), failures, runs, u.failures, u.runs)
		if f.tried > 1 {
			why += fmt.Sprintf(" (after %d strategies were tried alone)", f.tried)
		}
		if (a.res.BudgetExhausted || a.res.Interrupted) && a.clearly(f, maxAgain) {
			why = a.cutBy() + " before it was rerun enough; " + why
		}
		a.suspect(f.Test, why)
	}
	return nil
}
