package chaos

import (
	"context"
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// ControlRuns is how many times the tests that failed perturbed (and passed
// in the unperturbed run) are rerun unperturbed before any is attributed to a
// strategy: a test that fails one run in five fails in one of five control
// runs with probability 1-(4/5)^5, two times in three.
const ControlRuns = 5

// NOD is a test flaky without any perturbation: it both passed and failed
// in unperturbed runs of one order (the suite's, or its control runs'), so
// no strategy is named for it.
type NOD struct {
	Test string
	// Runs and Failures count the unperturbed runs that got to the test
	// (the unperturbed run and the control runs) and those it failed.
	Runs, Failures int
	// PerturbedRuns and PerturbedFailures count the perturbed runs that
	// got to it and those it failed.
	PerturbedRuns, PerturbedFailures int
	// Order is the order of an unperturbed run it failed in (a control
	// run's when one failed it: the shortest), ending with the test, and
	// Message that failure's message.
	Order   []string
	Message string
	// Evidence are the unperturbed runs that got to it, the perturbed ones it
	// failed, and the first perturbed one it passed.
	Evidence []Evidence
}

// String says the rates: "p.T#a fails unperturbed 1 of 6 runs, perturbed 1 of 1".
func (n NOD) String() string {
	return fmt.Sprintf("%s fails unperturbed %d of %d runs, perturbed %d of %d", n.Test, n.Failures, n.Runs, n.PerturbedFailures, n.PerturbedRuns)
}

// Failing is a test that failed unperturbed without a pass in the same
// order to show it flaky: broken, or order-dependent (flaky detect's
// business), never an API finding.
type Failing struct {
	Test string
	// Why says which unperturbed runs it failed and passed.
	Why string
}

// String is "p.T#a: fails in every unperturbed run (6 of 6)".
func (f Failing) String() string { return f.Test + ": " + f.Why }

// perturbedRate counts the runs of rs that got to test, and those it failed
// (the machinery's failures left out).
func perturbedRate(test string, rs []*launcher.Result) (runs, failures int) {
	for _, r := range rs {
		if r == nil {
			continue
		}
		if t, ok := resultOf(r, test); ok && t.Outcome != launcher.NotRun && t.Outcome != launcher.Skipped {
			runs++
			if ownFailure(t) {
				failures++
			}
		}
	}
	return runs, failures
}

// controlRun is the evidence detail of a control run.
const controlRun = "control run"

// tally counts a test's results in some runs.
type tally struct{ runs, passes, failures int }

// tallyOf counts the runs of rs that got to test, those it passed and those
// it failed (however it failed).
func tallyOf(test string, rs []*launcher.Result) tally {
	var n tally
	for _, r := range rs {
		if r == nil {
			continue
		}
		t, ok := resultOf(r, test)
		if !ok || t.Outcome == launcher.NotRun || t.Outcome == launcher.Skipped {
			continue
		}
		n.runs++
		switch {
		case t.Outcome == launcher.Pass:
			n.passes++
		case t.Outcome.Failed():
			n.failures++
		}
	}
	return n
}

// unperturbedTally counts test's unperturbed runs: the suite's and its
// control runs.
func (a *analysis) unperturbedTally(test string) tally {
	return tallyOf(test, slices.Concat(a.baseline, a.controlRuns))
}

// judgeUnperturbed judges test by its unperturbed runs: those of the
// suite's order, and its control runs (alone). It reports whether it never
// failed in one. A test that did is recorded as failing unperturbed: NOD
// when it both passed and failed in runs of one order (for the suite's
// order a pass in one of its perturbed runs counts too: perturbation makes
// tests fail, not pass), else Failing with the runs it failed and passed
// (broken, or failing in one order and passing in the other:
// order-dependent).
func (a *analysis) judgeUnperturbed(test string) bool {
	suite, alone := tallyOf(test, a.baseline), tallyOf(test, a.controlRuns)
	if suite.failures == 0 && alone.failures == 0 {
		return true
	}
	if !slices.Contains(a.res.FailUnperturbed, test) {
		a.res.FailUnperturbed = append(a.res.FailUnperturbed, test)
	}
	passedPerturbed := tallyOf(test, a.perturbedRuns).passes > 0
	var why string
	switch {
	case suite.failures > 0 && (suite.passes > 0 || passedPerturbed), alone.failures > 0 && alone.passes > 0:
		a.addNOD(test)
		return false
	case suite.failures > 0 && alone.passes > 0:
		why = fmt.Sprintf("fails unperturbed in the suite's order (%d of %d runs) and passes alone (%d of %d): order-dependent? (flaky detect)", suite.failures, suite.runs, alone.passes, alone.runs)
	case suite.passes > 0:
		why = fmt.Sprintf("fails unperturbed alone (%d of %d runs) and passes in the suite's order (%d of %d): order-dependent? (flaky detect)", alone.failures, alone.runs, suite.passes, suite.runs)
	default:
		why = fmt.Sprintf("fails in every unperturbed run (%d of %d)", suite.failures+alone.failures, suite.runs+alone.runs)
	}
	a.res.Failing = append(a.res.Failing, Failing{Test: test, Why: why})
	a.cfg.Log.Logf("not attributing %s to a strategy: it %s", test, why)
	return false
}

// addNOD records test as flaky without perturbation, with its unperturbed
// and perturbed runs so far.
func (a *analysis) addNOD(test string) {
	n := NOD{Test: test}
	u := a.unperturbedTally(test)
	n.Runs, n.Failures = u.runs, u.failures
	n.PerturbedRuns, n.PerturbedFailures = perturbedRate(test, a.perturbedRuns)
	// The order to reproduce: a failing control run's (the test among the
	// failing tests alone), else the suite's.
	for _, r := range slices.Concat(a.controlRuns, a.baseline) {
		if r == nil {
			continue
		}
		if t, ok := resultOf(r, test); ok && t.Outcome.Failed() && n.Order == nil {
			n.Order, n.Message = ranUpTo(r, test), t.Message
		}
	}
	unperturbed := func(rs []*launcher.Result, detail string) {
		for _, r := range rs {
			if r == nil {
				continue
			}
			if t, ok := resultOf(r, test); ok && t.Outcome != launcher.NotRun {
				n.Evidence = append(n.Evidence, Evidence{Run: "unperturbed", Order: ranUpTo(r, test), Outcome: t.Outcome, Message: t.Message, Detail: detail, Resumed: r.Resumed})
			}
		}
	}
	unperturbed(a.baseline, "")
	unperturbed(a.controlRuns, controlRun)
	// The perturbed runs it failed, and the first it passed (single mode
	// runs the suite once per strategy: their passes say little more).
	passed := false
	for i, r := range a.perturbedRuns {
		if t, ok := resultOf(r, test); ok && t.Outcome != launcher.NotRun && (t.Outcome.Failed() || !passed) {
			passed = passed || !t.Outcome.Failed()
			set := a.perturbedSet(i)
			n.Evidence = append(n.Evidence, Evidence{Run: Join(set), Strategies: set, Order: ranUpTo(r, test), Outcome: t.Outcome, Message: t.Message, Resumed: r.Resumed})
		}
	}
	a.res.NOD = append(a.res.NOD, n)
	a.cfg.Log.Logf("not attributing %s to a strategy: it %s", test, n.String()[len(test)+1:])
}

// controls reruns the tests, which failed in the perturbed runs and passed
// unperturbed, unperturbed until each got ControlRuns control runs
// (controlJobs), and with them the tests that failed unperturbed
// (unperturbedFailures) and those whose perturbed failures were dismissed
// (dismissedTests). It judges them all (judgeControls) and returns the
// first that never failed unperturbed.
func (a *analysis) controls(ctx context.Context, tests []string) ([]string, error) {
	judge, rerun := a.unperturbedFailures()
	rerun = slices.Concat(tests, rerun, a.dismissedTests(tests))
	if len(rerun) > 0 {
		defer func(phase string) { a.phase = phase }(a.phase)
		a.phase = "the control runs"
		jobs := a.controlJobs(rerun)
		results, err := a.run(ctx, jobs, len(jobs))
		if err != nil {
			return nil, err
		}
		a.controlRuns = append(a.controlRuns, results...)
	}
	return a.judgeControls(tests, judge), nil
}

// unperturbedFailures returns the tests that failed in the unperturbed runs
// of the suite's order, in that order, to be judged by their unperturbed
// runs, and those of them that need control runs for it: those that did
// not also pass in a run of the suite's order, unless the caller made the
// unperturbed runs (its reruns judge them).
func (a *analysis) unperturbedFailures() (judge, rerun []string) {
	for _, test := range a.cfg.Tests {
		b := tallyOf(test, a.baseline)
		if b.failures == 0 {
			continue
		}
		judge = append(judge, test)
		if len(a.cfg.Baseline) == 0 && b.passes == 0 && tallyOf(test, a.perturbedRuns).passes == 0 {
			rerun = append(rerun, test)
		}
	}
	return judge, rerun
}

// controlCount counts the control runs so far that got to test.
func (a *analysis) controlCount(test string) int {
	n := 0
	for _, r := range a.controlRuns {
		if r == nil {
			continue
		}
		if _, ok := resultOf(r, test); ok {
			n++
		}
	}
	return n
}

// controlJobs returns the control runs that tests are still due for, each
// getting ControlRuns with those so far: each run holds the tests due for
// it alone, in the suite's order, in one unperturbed JVM, as attribution's
// first round runs them with a strategy (so the two compare like with like;
// the unperturbed run of the suite's order is the control of the later
// rounds).
func (a *analysis) controlJobs(tests []string) []launcher.Job {
	ran := map[string]int{}
	for _, t := range tests {
		ran[t] = a.controlCount(t)
	}
	var jobs []launcher.Job
	for k := 0; ; k++ {
		due := slices.DeleteFunc(slices.Clone(tests), func(t string) bool { return ran[t]+k >= ControlRuns })
		if len(due) == 0 {
			break
		}
		if k == 0 {
			a.cfg.Log.Logf("rerunning unperturbed the %d test(s) that failed, until each had %d control runs", len(due), ControlRuns)
		}
		j, _ := a.job(a.testsOrder(due), nil)
		jobs = append(jobs, j)
	}
	return jobs
}

// judgeControls judges tests, which failed perturbed and passed in the
// unperturbed run, failing, which failed there, and the dismissed tests
// (dismissedTests), by their unperturbed runs so far (judgeUnperturbed). It
// returns the tests that never failed unperturbed; those that fewer than
// ControlRuns got to (the runs were cut) are suspected. A dismissed test
// that failed unperturbed is no longer dismissed: it is recorded as failing
// unperturbed.
func (a *analysis) judgeControls(tests, failing []string) []string {
	var keep []string
	for _, test := range tests {
		if !a.judgeUnperturbed(test) {
			continue
		}
		if a.controlCount(test) < ControlRuns {
			a.suspect(test, a.cutBy()+" before the control runs")
		}
		keep = append(keep, test)
	}
	for _, test := range failing {
		a.judgeUnperturbed(test)
	}
	for _, test := range a.dismissedTests(tests) {
		if !a.judgeUnperturbed(test) {
			a.res.Dismissed = slices.DeleteFunc(a.res.Dismissed, func(d Dismissal) bool { return d.Test == test })
		}
	}
	return keep
}

// dismissedTests returns the tests whose failures in the perturbed runs so
// far were dismissed (a framework's timeout the perturbation stretched, see
// dismiss) and that passed the unperturbed runs, but for tests, in the
// suite's order: before their failures are let go, they get the control
// runs a failure gets, and one that fails there is flaky without
// perturbation, not the perturbation's doing.
func (a *analysis) dismissedTests(tests []string) []string {
	var out []string
	for _, d := range a.res.Dismissed {
		if entryOf(a.cfg.Tests, d.Test) >= 0 && a.passedBaseline(d.Test) && !slices.Contains(tests, d.Test) && !slices.Contains(out, d.Test) {
			out = append(out, d.Test)
		}
	}
	return a.inSuiteOrder(out)
}

// sameLayout counts the unperturbed runs so far (the suite's and the
// control runs) whose JVM ran exactly order up to test: the test at the
// same position after the same tests, from the JVM's start.
func (a *analysis) sameLayout(test string, order []string) int {
	n := 0
	for _, r := range slices.Concat(a.baseline, a.controlRuns) {
		if r == nil {
			continue
		}
		if t, ok := resultOf(r, test); ok && t.Outcome != launcher.NotRun && t.Outcome != launcher.Skipped && slices.Equal(ranUpTo(r, test), order) {
			n++
		}
	}
	return n
}

// likeForLike gives every finding, and every failure the budget cut
// (suspected), control runs like the perturbed run that failed it:
// unperturbed runs of its reproduce order, each in a JVM of its own, so
// that the test runs at the same position after the same tests, until
// ControlRuns of its unperturbed runs had that layout. A test exposed in
// one layout only (the first test of its class in a JVM, say) fails there
// unperturbed as well, and the earlier control runs, which ran it among the
// other failing tests, could not show it. They run whatever the budget (as
// the first control runs do). The tests that fail one are judged by their
// unperturbed runs (judgeUnperturbed: flaky without perturbation, with
// their rates) and leave the findings and suspects.
func (a *analysis) likeForLike(ctx context.Context) error {
	if a.res.Interrupted {
		return nil
	}
	var jobs []launcher.Job
	var tests []string
	for _, f := range a.controlled() {
		for range ControlRuns - a.sameLayout(f.Test, f.Order) {
			j, _ := a.job(f.Order, nil)
			jobs, tests = append(jobs, j), append(tests, f.Test)
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	defer func(phase string) { a.phase = phase }(a.phase)
	a.phase = "the control runs"
	a.cfg.Log.Logf("rerunning unperturbed the reproduce orders of %d finding(s), until each had %d control runs in that layout", len(slices.Compact(tests)), ControlRuns)
	results, err := a.run(ctx, jobs, len(jobs))
	if err != nil {
		return err
	}
	a.controlRuns = append(a.controlRuns, results...)
	for _, f := range a.controlled() {
		for _, r := range results {
			if r == nil {
				continue // interrupted
			}
			if t, ok := resultOf(r, f.Test); ok && slices.Equal(ranUpTo(r, f.Test), f.Order) {
				f.Evidence = append(f.Evidence, Evidence{Run: "unperturbed", Order: f.Order, Outcome: t.Outcome, Message: t.Message, Detail: controlRun, Resumed: r.Resumed})
			}
		}
	}
	a.res.Findings = slices.DeleteFunc(a.res.Findings, func(f Finding) bool { return !a.judgeUnperturbed(f.Test) })
	a.res.Suspected = slices.DeleteFunc(a.res.Suspected, func(s Suspect) bool { return !a.judgeUnperturbed(s.Test) })
	return nil
}

// controlled returns the findings and suspects likeForLike controls: those
// with a reproduce order.
func (a *analysis) controlled() []*Finding {
	var out []*Finding
	for i := range a.res.Findings {
		out = append(out, &a.res.Findings[i])
	}
	for i := range a.res.Suspected {
		out = append(out, &a.res.Suspected[i].Finding)
	}
	return slices.DeleteFunc(out, func(f *Finding) bool { return len(f.Order) == 0 })
}
