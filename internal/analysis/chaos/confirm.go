package chaos

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// mildParam is the parameter of a strategy that a milder rerun scales
// down, with the agent's default for it.
type mildParam struct {
	key    string  // without the chaos. prefix
	dflt   float64 // the agent's default (ChaosConfig)
	factor bool    // a factor of at least 1: its excess over 1 is scaled
}

// mildParams are the parameters whose tenth confirms a TIME or SLEEP
// finding: a failure that stays with a tenth of the perturbation is robust,
// one that needs the full setting may be the perturbation's own doing
// (a pause longer than a machine plausibly takes, sleeps past a framework's
// timeout).
var mildParams = map[string]mildParam{
	"TIME_INCREMENT": {key: "time.increment", dflt: 300},
	"TIME_ROUNDING":  {key: "time.granularity", dflt: 16},
	"TIME_SLOW":      {key: "time.slow", dflt: 10, factor: true},
	"SLEEP_INCREASE": {key: "sleep", dflt: 2000},
	"SLEEP_DECREASE": {key: "sleep", dflt: 2000},
}

// milder returns settings with strategy s's parameter at a tenth of its
// value (of its excess over 1 for factors), and the parameter set; false
// when s has no such parameter or its value does not parse.
func milder(s Strategy, settings Settings) (Settings, string, bool) {
	p, ok := mildParams[s.ID]
	if !ok {
		return settings, "", false
	}
	v := p.dflt
	var params []string
	for _, kv := range settings.Params {
		kv = canonicalParam(kv)
		k, val := paramKey(kv)
		if k != p.key {
			params = append(params, kv)
			continue
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return settings, "", false
		}
		v = f
	}
	mild := v / 10
	if p.factor {
		mild = 1 + (v-1)/10
	} else if p.key == "time.granularity" {
		mild = max(1, float64(int64(mild)))
	}
	param := p.key + "=" + strconv.FormatFloat(mild, 'f', -1, 64)
	settings.Params = append(params, param)
	return settings, param, true
}

// confirm reruns, while the budget lasts, each attributed finding's test
// alone with its strategy (an invocation of a parameterized test alone), to
// shorten its reproduce order to the test itself when that is enough, and,
// when it is not, the tests of its own class before it; then gives each
// finding control runs like its reproduce order (likeForLike); then reruns
// every finding's reproduce order until its strategies make it fail clearly
// more often than unperturbed runs do (confirmClearly), and each TIME and
// SLEEP finding with a tenth of its strategy's parameter, recording whether
// it is robust.
func (a *analysis) confirm(ctx context.Context) error {
	notAlone := map[string]bool{}
	if err := a.confirmRound(ctx, "alone", func(f *Finding) ([]string, Settings, string, bool) {
		// The test's own id: for an invocation of a parameterized test
		// (ID[2]), the runner runs that invocation alone.
		alone := []string{f.Test}
		if !attributed(f) || len(f.Order) == 1 && f.Order[0] == f.Test {
			return nil, Settings{}, "", false
		}
		if ranWith(f, alone) {
			notAlone[f.Test] = true // attribution ran it alone, and it passed
			return nil, Settings{}, "", false
		}
		return alone, a.cfg.Settings, "alone", true
	}, func(f *Finding, failed bool, order []string) {
		if failed {
			f.Order = order
		} else {
			notAlone[f.Test] = true
		}
	}); err != nil {
		return err
	}
	if err := a.confirmRound(ctx, "after their own class's tests", func(f *Finding) ([]string, Settings, string, bool) {
		own := ownClass(f.Order, f.Test)
		return own, a.cfg.Settings, "after its class's tests", attributed(f) && notAlone[f.Test] && len(own) > 1 && len(own) < len(f.Order) && !ranWith(f, own)
	}, func(f *Finding, failed bool, order []string) {
		if failed {
			f.Order = order
		}
	}); err != nil {
		return err
	}
	if err := a.likeForLike(ctx); err != nil {
		return err
	}
	a.readAgain()
	if err := a.confirmClearly(ctx); err != nil {
		return err
	}
	a.readMilder()
	return a.confirmRound(ctx, "with a tenth of the strategy's parameter", func(f *Finding) ([]string, Settings, string, bool) {
		if !attributed(f) || !a.clearly(f, 0) {
			return nil, Settings{}, "", false
		}
		settings, param, ok := milder(f.Strategies[0], a.cfg.Settings)
		return f.Order, settings, milderDetail + param, ok && f.Robust == nil
	}, func(f *Finding, failed bool, _ []string) {
		f.Robust = &failed
	})
}

// attributed reports whether f is attributed to one strategy.
func attributed(f *Finding) bool { return f.Attributed && len(f.Strategies) == 1 }

// readMilder judges the robustness of each attributed finding that a milder
// run beside attribution's first round (planMilder) answers for: one of its
// strategy whose order up to the test is the finding's order.
func (a *analysis) readMilder() {
	for i := range a.res.Findings {
		f := &a.res.Findings[i]
		if !attributed(f) || !a.clearly(f, 0) {
			continue
		}
		s := f.Strategies[0]
		_, param, ok := milder(s, a.cfg.Settings)
		if !ok {
			continue
		}
		for _, run := range a.milder[s.ID] {
			at := entryOf(run.order, f.Test)
			if at < 0 || !slices.Equal(jvmOrder(run.order, run.result, at), f.Order) {
				continue
			}
			if failed, ok := f.addRun(run.result, f.Order, milderDetail+param); ok {
				f.Robust = &failed
				break
			}
		}
	}
}

// readAgain adds to each attributed finding the again runs beside
// attribution's first round (planAgain) of its strategy that ran its test
// after an order that ends with its reproduce order: confirmation's first
// rerun, run early.
func (a *analysis) readAgain() {
	for i := range a.res.Findings {
		f := &a.res.Findings[i]
		if !attributed(f) {
			continue
		}
		for _, run := range a.again[f.Strategies[0].ID] {
			if order := ranUpTo(run.result, f.Test); endsWith(order, f.Order, f.Test) {
				f.addRun(run.result, order, againDetail)
			}
		}
	}
}

// ranWith reports whether attribution already ran f's strategy on order
// (its outcome is then in f's evidence: a failure there would have been
// f's order).
func ranWith(f *Finding, order []string) bool {
	return slices.ContainsFunc(f.Evidence, func(e Evidence) bool {
		return e.Run == f.Strategies[0].ID && e.Detail == "" && slices.Equal(e.Order, order)
	})
}

// ownClass returns the entries of order of test's top-level class.
func ownClass(order []string, test string) []string {
	var own []string
	for _, e := range order {
		if topClass(e) == topClass(test) {
			own = append(own, e)
		}
	}
	return own
}

// topClass returns the top-level class of a test id.
func topClass(id string) string { return testid.Parse(id).TopLevel() }

// confirmRound runs, for each finding that plan accepts, its strategies on
// the order with the settings plan returns (one job per distinct order,
// strategies and detail: findings may share one), then hands each finding
// whose run got to its test to apply, with whether the test failed there
// and the order its JVM ran up to it.
func (a *analysis) confirmRound(ctx context.Context, what string,
	plan func(f *Finding) (order []string, settings Settings, detail string, ok bool),
	apply func(f *Finding, failed bool, order []string)) error {
	var jobs []launcher.Job
	index := map[string]int{}
	keys := make([]string, len(a.res.Findings))
	details := make([]string, len(a.res.Findings))
	for i := range a.res.Findings {
		f := &a.res.Findings[i]
		order, settings, detail, ok := plan(f)
		if !ok {
			continue
		}
		key := strings.Join(order, "\n") + "\x00" + Join(f.Strategies) + "\x00" + detail
		keys[i], details[i] = key, detail
		if _, seen := index[key]; seen {
			continue
		}
		j, err := a.jobWith(settings, order, f.Strategies)
		if err != nil {
			return err
		}
		index[key] = len(jobs)
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 || a.res.Interrupted {
		return nil
	}
	a.cfg.Log.Logf("rerunning %d finding(s) %s", len(jobs), what)
	results, err := a.run(ctx, jobs, 0)
	if err != nil {
		return err
	}
	for i := range a.res.Findings {
		f := &a.res.Findings[i]
		if keys[i] == "" {
			continue
		}
		r := results[index[keys[i]]]
		if r == nil {
			continue
		}
		// The order its JVM ran up to the test: the planned one, or its
		// part that ran f's test when the run is shared.
		order := ranUpTo(r, f.Test)
		if failed, ok := f.addRun(r, order, details[i]); ok {
			apply(f, failed, order)
		}
	}
	return nil
}

// addRun adds confirmation's run r of f's strategies on order to f's
// evidence and reports whether the test failed there (its own failure);
// false when the run did not get to the test.
func (f *Finding) addRun(r *launcher.Result, order []string, detail string) (failed, ok bool) {
	t, ok := resultOf(r, f.Test)
	if !ok {
		return false, false
	}
	f.Evidence = append(f.Evidence, Evidence{Run: Join(f.Strategies), Strategies: f.Strategies, Order: order, Outcome: t.Outcome,
		Message: t.Message, Detail: detail, Resumed: r.Resumed, own: ownFailure(t), perturbed: perturbedBy(r, f.Test)})
	return ownFailure(t), true
}

// countFindings fills in the findings of each run's coverage: for a
// single strategy, the findings it makes fail on its own; for the combined
// run, all of them (suspected failures are none).
func (a *analysis) countFindings() {
	for i, c := range a.res.Coverage {
		if c.Run == string(Combined) {
			a.res.Coverage[i].Findings = len(a.res.Findings)
			continue
		}
		n := 0
		for _, f := range a.res.Findings {
			if slices.ContainsFunc(f.FailsWith, func(s Strategy) bool { return s.ID == c.Run }) {
				n++
			}
		}
		a.res.Coverage[i].Findings = n
	}
}
