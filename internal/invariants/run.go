package invariants

import (
	"context"
	"fmt"

	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// AgentOptions turn the agent's invariant tracer on for the module's own
// classes (those loaded from class directories; see agent/PROTOCOL.md).
var AgentOptions = []string{"invariants=on"}

// Analyze runs an OD test's passing and failing orders (the test last) with
// the tracer on and returns its problem invariants. It fails when either
// run does not reproduce its outcome, since invariants of a run that did
// not fail (or pass) would explain nothing.
func Analyze(ctx context.Context, l *launcher.Launcher, test string, passing, failing []string) ([]report.ProblemInvariant, error) {
	opts := launcher.RunOptions{AgentOptions: AgentOptions}
	res, err := l.RunJobs(ctx, []launcher.Job{{Order: passing, RunOptions: opts}, {Order: failing, RunOptions: opts}})
	if err != nil {
		return nil, fmt.Errorf("tracing %s: %w", test, err)
	}
	for i, wantFail := range []bool{false, true} {
		if got := outcome(res[i], test); got.Failed() != wantFail || got == launcher.NotRun || got == "" {
			return nil, fmt.Errorf("tracing %s: the %s order gave %q", test, map[bool]string{false: "passing", true: "failing"}[wantFail], got)
		}
	}
	return Problems(OfTest(res[0].Invariants, test), OfTest(res[1].Invariants, test)), nil
}

func outcome(r *launcher.Result, test string) launcher.Outcome {
	for _, t := range r.Tests {
		if t.Test == test {
			return t.Outcome
		}
	}
	return ""
}
