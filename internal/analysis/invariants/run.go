package invariants

import (
	"context"
	"fmt"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// AgentOptions turn the agent's invariant tracer on for the module's own
// classes (those loaded from class directories; see agent/PROTOCOL.md).
var AgentOptions = agent.Options{Invariants: agent.InvariantOptions{On: true}}

// Runner runs orders in test JVMs (a *launcher.Launcher).
type Runner interface {
	RunJobs(ctx context.Context, jobs []launcher.Job) ([]*launcher.Result, error)
}

// Target is one OD test with an order in which it passes and one in which
// it fails, the test last in both.
type Target struct {
	Test             string
	Passing, Failing []string
}

// Run runs each target's passing and failing orders with the tracer on
// (all in one batch) and returns the targets' problem invariants, or why a
// target has none: a run that did not reproduce its outcome explains
// nothing.
func Run(ctx context.Context, r Runner, targets []Target) ([][]report.ProblemInvariant, []error, error) {
	opts := launcher.RunOptions{AgentOptions: AgentOptions}
	var jobs []launcher.Job
	for _, t := range targets {
		jobs = append(jobs, launcher.Job{Order: t.Passing, RunOptions: opts}, launcher.Job{Order: t.Failing, RunOptions: opts})
	}
	res, err := r.RunJobs(ctx, jobs)
	if err != nil {
		return nil, nil, fmt.Errorf("invariants: %w", err)
	}
	out := make([][]report.ProblemInvariant, len(targets))
	errs := make([]error, len(targets))
	for i, t := range targets {
		pass, fail := res[2*i], res[2*i+1]
		if got := outcome(pass, t.Test); got != launcher.Pass {
			errs[i] = fmt.Errorf("its passing order gave %q when traced", got)
			continue
		}
		if got := outcome(fail, t.Test); !got.Failed() {
			errs[i] = fmt.Errorf("its failing order gave %q when traced", got)
			continue
		}
		out[i] = Problems(OfTest(pass.Invariants, t.Test), OfTest(fail.Invariants, t.Test))
	}
	return out, errs, nil
}

// Annotate sets ProblemInvariants on every OD victim and brittle of
// findings that has a failing and a passing order, then, with the module's
// tests in suite (nil: skip it), the victims' CleanerMethods and
// ReturnValueModifiers (see FindResets); log's progress notes say how many
// it could not analyse (the rest goes on), its debug notes which and why.
func Annotate(ctx context.Context, r Runner, findings []report.Finding, suite []string, log logs.Logger) error {
	var targets []Target
	var at []int
	for i, f := range findings {
		if (f.Kind == report.ODVictim || f.Kind == report.ODBrittle) && len(f.FailingOrder) > 0 && len(f.PassingOrder) > 0 {
			targets = append(targets, Target{Test: f.Test, Passing: f.PassingOrder, Failing: f.FailingOrder})
			at = append(at, i)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	log.Logf("inferring the problem invariants of %d OD finding(s)", len(targets))
	probs, errs, err := Run(ctx, r, targets)
	if err != nil {
		return err
	}
	failed := 0
	for j, i := range at {
		if errs[j] != nil {
			failed++
			log.Debugf("no problem invariants for %s: %v", findings[i].Test, errs[j])
			continue
		}
		findings[i].ProblemInvariants = probs[j]
	}
	if failed > 0 {
		log.Logf("no problem invariants for %d of %d OD finding(s) (--debug says which and why)", failed, len(targets))
	}
	if suite == nil {
		return nil
	}
	return FindResets(ctx, r, findings, suite, log)
}

func outcome(r *launcher.Result, test string) launcher.Outcome {
	for _, t := range r.Tests {
		if t.Test == test {
			return t.Outcome
		}
	}
	return launcher.NotRun
}
