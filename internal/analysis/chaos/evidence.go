package chaos

import (
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// perturbedBy returns the strategies that perturbed calls in r during test
// or its class's fixtures and static initialisers (the perturbation events
// of r for them, as --explain counts a test's perturbed calls), in the
// order r reported them.
func perturbedBy(r *launcher.Result, test string) []string {
	if r == nil {
		return nil
	}
	class := testid.ClassOf(test)
	var ids []string
	for _, p := range r.Perturbations {
		if (p.Test == test || p.Test == class) && !slices.Contains(ids, p.Strategy) {
			ids = append(ids, p.Strategy)
		}
	}
	return ids
}

// perturbedWith reports whether e's run perturbed a call of one of
// strategies during its test.
func (e Evidence) perturbedWith(strategies []Strategy) bool {
	return slices.ContainsFunc(strategies, func(s Strategy) bool { return slices.Contains(e.perturbed, s.ID) })
}

// tied reports whether a run that f's test failed (its own failure)
// perturbed a call of f's strategies during it: the evidence that ties the
// failure to them. It returns how many of its runs it failed otherwise.
func (f *Finding) tied() (bool, int) {
	failed := 0
	for _, e := range f.Evidence {
		if !e.own || !e.Outcome.Failed() || e.Strategies == nil {
			continue
		}
		if e.perturbedWith(f.Strategies) {
			return true, 0
		}
		failed++
	}
	return false, failed
}

// requireEvidence leaves out the findings and suspects none of whose
// failing runs perturbed a call of their strategies during the test (or
// its class's fixtures): nothing ties the failure to a strategy that did
// not touch the test. One that failed unperturbed too is flaky without
// perturbation (judgeUnperturbed records it); the others are dismissed,
// saying so.
func (a *analysis) requireEvidence() {
	untied := func(f *Finding) bool {
		ok, failed := f.tied()
		if ok {
			return false
		}
		if a.judgeUnperturbed(f.Test) {
			why := fmt.Sprintf("none of the %d run(s) it failed with %s perturbed a call during it or its class's fixtures: nothing ties the failure to %s", failed, Join(f.Strategies), Join(f.Strategies))
			a.res.Dismissed = append(a.res.Dismissed, Dismissal{Test: f.Test, Strategy: Join(f.Strategies), Why: why})
			a.cfg.Log.Logf("not reporting %s under %s: %s", f.Test, Join(f.Strategies), why)
		}
		return true
	}
	a.res.Findings = slices.DeleteFunc(a.res.Findings, func(f Finding) bool { return untied(&f) })
	a.res.Suspected = slices.DeleteFunc(a.res.Suspected, func(s Suspect) bool { return untied(&s.Finding) })
}
