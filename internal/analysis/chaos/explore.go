package chaos

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// jobs returns a job running order per strategy set, then an unperturbed
// one when the caller gave no baseline.
func (a *analysis) jobs(order []string, sets [][]Strategy) ([]launcher.Job, error) {
	var jobs []launcher.Job
	for _, set := range sets {
		j, err := a.job(order, set)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	if len(a.cfg.Baseline) == 0 {
		j, _ := a.job(order, nil)
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// setBaseline uses the caller's unperturbed runs, else the ones just run,
// and counts the tests they ran.
func (a *analysis) setBaseline(ran []*launcher.Result) {
	a.baseline = a.cfg.Baseline
	if len(a.baseline) == 0 {
		for _, r := range ran {
			if r != nil {
				a.baseline = append(a.baseline, r)
			}
		}
	}
	for _, r := range a.baseline {
		a.res.Tests = max(a.res.Tests, ranCount(r))
	}
}

// ranCount counts the tests of r that got a result.
func ranCount(r *launcher.Result) int {
	n := 0
	for _, t := range r.Tests {
		if t.Outcome != launcher.NotRun {
			n++
		}
	}
	return n
}

// passesUnperturbed reports whether test, which failed in some of the
// perturbed runs, passed in the unperturbed runs and failed in none; one
// they did not get to is recorded as unconfirmed (one that failed there is
// judged with the other unperturbed failures, see judgeUnperturbed).
func (a *analysis) passesUnperturbed(test string) bool {
	if b := tallyOf(test, a.baseline); b.passes == 0 && b.failures == 0 {
		a.res.Unconfirmed = append(a.res.Unconfirmed, test)
	}
	return a.passedBaseline(test)
}

// passedBaseline is passesUnperturbed without recording anything.
func (a *analysis) passedBaseline(test string) bool {
	b := tallyOf(test, a.baseline)
	return b.passes > 0 && b.failures == 0
}

// single runs the suite once per strategy.
func (a *analysis) single(ctx context.Context) error {
	sets := make([][]Strategy, len(a.cfg.Strategies))
	for i, s := range a.cfg.Strategies {
		sets[i] = []Strategy{s}
	}
	jobs, err := a.jobs(a.cfg.Tests, sets)
	if err != nil {
		return err
	}
	// The unperturbed run (last) goes first, so the budget cannot drop it.
	jobs = append(jobs[len(sets):], jobs[:len(sets)]...)
	unperturbed := len(jobs) - len(sets)
	results, err := a.suiteRuns(ctx, jobs, unperturbed)
	if err != nil {
		return err
	}
	a.setBaseline(results[:unperturbed])
	a.reserveAttribution()
	a.phase = "attribution"
	byStrategy := map[string]*launcher.Result{}
	for i, s := range a.cfg.Strategies {
		r := results[unperturbed+i]
		if r == nil {
			a.res.Skipped = append(a.res.Skipped, s)
			continue
		}
		a.dismiss([]Strategy{s}, r)
		byStrategy[s.ID] = r
		a.res.Strategies = append(a.res.Strategies, s)
		a.noteEarlyEnd(s.ID, r)
	}
	failing := a.singleFailing(byStrategy)
	var runs []*launcher.Result
	for _, s := range a.res.Strategies {
		runs = append(runs, byStrategy[s.ID])
	}
	a.perturbedRuns = runs
	failing = slices.DeleteFunc(failing, func(test string) bool { return a.cfg.judged[test] || !a.passesUnperturbed(test) })
	if failing, err = a.controls(ctx, failing); err != nil {
		return err
	}
	for _, test := range failing {
		a.res.Findings = append(a.res.Findings, a.singleFinding(test, byStrategy))
	}
	return nil
}

// suiteRuns runs single mode's jobs of the suite, the unperturbed ones
// first, and returns their results; the caller's run (Config.ran) instead
// when it made the one perturbed run.
func (a *analysis) suiteRuns(ctx context.Context, jobs []launcher.Job, unperturbed int) ([]*launcher.Result, error) {
	if r := a.cfg.ran; r != nil && unperturbed == 0 && len(jobs) == 1 {
		a.wall = map[*launcher.Result]time.Duration{r: a.cfg.ranWall}
		return []*launcher.Result{r}, nil
	}
	a.cfg.Log.Logf("running %d tests once per strategy (%s), and unperturbed", len(a.cfg.Tests), Join(a.cfg.Strategies))
	a.perturbing = true
	defer func() { a.perturbing = false }()
	return a.run(ctx, jobs, max(unperturbed, min(a.cfg.Workers, len(jobs))))
}

// singleFailing returns the tests that failed with some strategy, in the
// order they ran, the run of each strategy being byStrategy's, and counts
// each run's coverage; a failure that is the machinery's is noted and left
// out.
func (a *analysis) singleFailing(byStrategy map[string]*launcher.Result) []string {
	var failing []string
	for _, s := range a.res.Strategies {
		r := byStrategy[s.ID]
		cov := a.coverageOf(s.ID, []Strategy{s}, r)
		for _, t := range r.Tests {
			if !t.Outcome.Failed() || entryOf(a.cfg.Tests, t.Test) < 0 {
				continue
			}
			if why := a.leftOut(t); why != "" {
				a.res.Machinery = append(a.res.Machinery, fmt.Sprintf("%s under %s: %s", t.Test, s.ID, why))
				continue
			}
			cov.count(t)
			if !slices.Contains(failing, t.Test) {
				failing = append(failing, t.Test)
			}
		}
		a.res.Coverage = append(a.res.Coverage, cov)
	}
	return failing
}

// singleFinding is the finding of test, which failed with some strategy
// and passed its control runs, from the runs of each strategy
// (byStrategy) and the unperturbed ones.
func (a *analysis) singleFinding(test string, byStrategy map[string]*launcher.Result) Finding {
	entry := entryOf(a.cfg.Tests, test)
	f := Finding{Test: test, Attributed: true, tried: 1}
	for _, s := range a.res.Strategies {
		r := byStrategy[s.ID]
		t, _ := resultOf(r, test)
		order := jvmOrder(a.cfg.Tests, r, entry)
		msg := t.Message
		failed := ownFailure(t)
		if t.Outcome.Failed() && !failed {
			msg += "\n(left out: " + machinery(t) + ")"
		}
		f.Evidence = append(f.Evidence, Evidence{Run: s.ID, Strategies: []Strategy{s}, Order: order, Outcome: t.Outcome, Message: msg, Resumed: r.Resumed, own: failed, perturbed: perturbedBy(r, test)})
		if !failed {
			continue
		}
		f.FailsWith = append(f.FailsWith, s)
		sites := callSites(r, test, func(strategy, _ string) bool { return strategy == s.ID })
		// The first strategy that failed it, preferring one whose call
		// sites it hit (a finding needs them, see requireEvidence), then one
		// within the specification.
		if hit, had := len(sites) > 0, len(f.CallSites) > 0; f.Strategies == nil || hit && !had ||
			hit == had && f.Strategies[0].OutsideSpec && !s.OutsideSpec {
			f.Strategies, f.CallSites, f.Message, f.Order, f.foundBy = []Strategy{s}, sites, msg, order, len(f.Evidence)-1
		}
	}
	if others := slices.DeleteFunc(slices.Clone(f.FailsWith), func(s Strategy) bool { return s.ID == f.Strategies[0].ID }); len(others) > 0 {
		f.Message += "\n(" + Join(others) + " make it fail too)"
	}
	f.Message += outsideSpecNote(f.Strategies)
	f.Evidence = append(f.Evidence, a.baselineEvidence(test, a.cfg.Tests[:entry+1])...)
	return f
}

// coverageOf counts what run r of strategies ran; Failed and Findings are
// the caller's to count.
func (a *analysis) coverageOf(label string, strategies []Strategy, r *launcher.Result) Coverage {
	c := Coverage{Run: label, Strategies: strategies, JVMs: 1 + len(r.Resumed), Duration: a.wall[r]}
	for _, t := range r.Tests {
		if t.Outcome == launcher.NotRun {
			c.NotRun++
			c.NotRunTests = append(c.NotRunTests, t.Test)
		} else {
			c.Ran++
		}
	}
	return c
}

// count counts a failure of the run that is the test's own.
func (c *Coverage) count(t launcher.TestResult) {
	if ownFailure(t) {
		c.Failed++
		c.FailedTests = append(c.FailedTests, t.Test)
	}
}

// perturbedSet returns the strategies of perturbedRuns[i]: the whole set
// in combined mode, its one strategy in single mode (the runs are in the
// order of Result.Strategies).
func (a *analysis) perturbedSet(i int) []Strategy {
	if a.cfg.Mode == Combined {
		return a.res.Strategies
	}
	return a.res.Strategies[i : i+1]
}

// noteEarlyEnd logs a perturbed run whose JVMs ended early: where the order
// went on in a fresh JVM, and the tests no JVM got to, which are not
// analysed.
func (a *analysis) noteEarlyEnd(label string, r *launcher.Result) {
	for _, res := range r.Resumed {
		if res.Why != launcher.HandedOver {
			a.cfg.Log.Logf("with %s, %s", label, res)
		}
	}
	n := 0
	for _, t := range r.Tests {
		if t.Outcome == launcher.NotRun {
			n++
		}
	}
	if n > 0 {
		a.cfg.Log.Logf("with %s, the JVM ended early (exit status %d): %d test(s) did not run and are not analysed", label, r.Exit.Status, n)
	}
}

// baselineEvidence is the unperturbed runs' evidence for test.
func (a *analysis) baselineEvidence(test string, order []string) []Evidence {
	var out []Evidence
	for _, r := range a.baseline {
		if t, ok := resultOf(r, test); ok {
			out = append(out, Evidence{Run: "unperturbed", Order: order, Outcome: t.Outcome, Message: t.Message, Resumed: r.Resumed})
		}
	}
	return out
}

// outsideSpecNote warns about strategies that break the API's specification.
func outsideSpecNote(strategies []Strategy) string {
	var note string
	for _, s := range strategies {
		if s.OutsideSpec {
			note += "\n(" + s.ID + " goes beyond what the API's specification allows: the test may be right to rely on it)"
		}
	}
	return note
}
