package chaos

import (
	"context"
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/launcher"
)

// ControlRuns is how many times the tests that failed perturbed (and passed
// in the unperturbed run) are rerun unperturbed before any is attributed to a
// strategy: a test that fails one run in five fails in one of five control
// runs with probability 1-(4/5)^5, two times in three.
const ControlRuns = 5

// NOD is a test that failed perturbed and fails unperturbed too: flaky
// without any perturbation, so no strategy is named for it.
type NOD struct {
	Test string
	// Runs and Failures count the unperturbed runs that got to the test
	// (the unperturbed run and the control runs) and those it failed.
	Runs, Failures int
	// PerturbedRuns and PerturbedFailures count the perturbed runs that
	// got to it and those it failed.
	PerturbedRuns, PerturbedFailures int
}

// String says the rates: "p.T#a fails unperturbed 1 of 6 runs, perturbed 1 of 1".
func (n NOD) String() string {
	return fmt.Sprintf("%s fails unperturbed %d of %d runs, perturbed %d of %d", n.Test, n.Failures, n.Runs, n.PerturbedFailures, n.PerturbedRuns)
}

// unperturbedRate counts the unperturbed runs so far that got to test, and
// those it failed.
func (a *analysis) unperturbedRate(test string, extra []*launcher.Result) (runs, failures int) {
	for _, r := range slices.Concat(a.baseline, extra) {
		if r == nil {
			continue
		}
		if t, ok := resultOf(r, test); ok && t.Outcome != launcher.NotRun && t.Outcome != launcher.Skipped {
			runs++
			if t.Outcome.Failed() {
				failures++
			}
		}
	}
	return runs, failures
}

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

// addNOD records test as flaky without perturbation, with the unperturbed
// runs extra besides the baseline and the perturbed runs perturbed.
func (a *analysis) addNOD(test string, extra, perturbed []*launcher.Result) {
	n := NOD{Test: test}
	n.Runs, n.Failures = a.unperturbedRate(test, extra)
	n.PerturbedRuns, n.PerturbedFailures = perturbedRate(test, perturbed)
	a.res.NOD = append(a.res.NOD, n)
	if !slices.Contains(a.res.FailUnperturbed, test) {
		a.res.FailUnperturbed = append(a.res.FailUnperturbed, test)
	}
	a.cfg.Logf("not attributing %s to a strategy: it %s", test, n.String()[len(test)+1:])
}

// controls reruns the tests, which failed in the perturbed runs perturbed
// and passed unperturbed, ControlRuns times unperturbed (controlJobs). It
// records those that fail in a control run as NOD and returns the rest.
func (a *analysis) controls(ctx context.Context, tests []string, perturbed []*launcher.Result) ([]string, error) {
	if len(tests) == 0 {
		return nil, nil
	}
	defer func(phase string) { a.phase = phase }(a.phase)
	a.phase = "the control runs"
	results, err := a.run(ctx, a.controlJobs(tests), ControlRuns)
	if err != nil {
		return nil, err
	}
	return a.judgeControls(tests, results, perturbed), nil
}

// controlJobs returns the control runs of tests: ControlRuns times those
// tests alone, in the suite's order, in one unperturbed JVM per run, as
// attribution's first round runs them with a strategy (so the two compare
// like with like; the unperturbed run of the suite's order is the control
// of the later rounds).
func (a *analysis) controlJobs(tests []string) []launcher.Job {
	order := a.testsOrder(tests)
	jobs := make([]launcher.Job, ControlRuns)
	for i := range jobs {
		jobs[i], _ = a.job(order, nil)
	}
	a.cfg.Logf("rerunning the %d test(s) that failed perturbed %d times unperturbed", len(tests), ControlRuns)
	return jobs
}

// judgeControls reads the control runs of tests: it records those that
// failed in one as NOD and returns the rest; when the runs were cut, all of
// tests are suspected.
func (a *analysis) judgeControls(tests []string, results, perturbed []*launcher.Result) []string {
	if slices.Contains(results, nil) { // interrupted
		for _, test := range tests {
			a.suspect(test, a.cutBy()+" before the control runs")
		}
		return tests
	}
	var keep []string
	for _, test := range tests {
		if failedIn(test, results) {
			a.addNOD(test, results, perturbed)
			continue
		}
		keep = append(keep, test)
	}
	return keep
}

// failedIn reports whether test failed in one of rs, however it failed.
func failedIn(test string, rs []*launcher.Result) bool {
	for _, r := range rs {
		if r == nil {
			continue
		}
		if t, ok := resultOf(r, test); ok && t.Outcome.Failed() {
			return true
		}
	}
	return false
}
