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
// and passed unperturbed, unperturbed until each got ControlRuns control
// runs (controlJobs). It records those that fail in a control run as NOD
// and returns the rest.
func (a *analysis) controls(ctx context.Context, tests []string, perturbed []*launcher.Result) ([]string, error) {
	if len(tests) == 0 {
		return nil, nil
	}
	defer func(phase string) { a.phase = phase }(a.phase)
	a.phase = "the control runs"
	jobs := a.controlJobs(tests)
	results, err := a.run(ctx, jobs, len(jobs))
	if err != nil {
		return nil, err
	}
	a.controlRuns = append(a.controlRuns, results...)
	return a.judgeControls(tests, perturbed), nil
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
			a.cfg.Logf("rerunning unperturbed the %d test(s) that failed perturbed, until each had %d control runs", len(due), ControlRuns)
		}
		j, _ := a.job(a.testsOrder(due), nil)
		jobs = append(jobs, j)
	}
	return jobs
}

// judgeControls reads the control runs so far of tests: it records those
// that failed in one as NOD and returns the rest; those that fewer than
// ControlRuns got to (the runs were cut) are suspected.
func (a *analysis) judgeControls(tests []string, perturbed []*launcher.Result) []string {
	var keep []string
	for _, test := range tests {
		if failedIn(test, a.controlRuns) {
			a.addNOD(test, a.controlRuns, perturbed)
			continue
		}
		if a.controlCount(test) < ControlRuns {
			a.suspect(test, a.cutBy()+" before the control runs")
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
