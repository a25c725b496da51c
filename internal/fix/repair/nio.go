// The NIO plan: a test that fails on its own second run leaves state its
// first run did not find; the root-cause analysis names it (the state
// capture's diff between the test's first and second start, confirmed by
// restoring the first run's values before the second), and the generated
// reset of the reset plan restores it around the test: in its own
// tear-down, else its own set-up.

package repair

import (
	"context"

	"github.com/flakyhq/flaky/internal/report"
)

// nioReset is the generated reset of an NIO finding's polluted state (see
// generatedReset) in the test's tear-down, else its set-up, validated by
// the test twice in one JVM, alone, and in the module's default order.
func (r *run) nioReset(ctx context.Context, f report.Finding, states []State) (*candidate, []string, string, error) {
	if len(states) == 0 {
		return nil, nil, "no state known that the test's second run finds changed (the root-cause analysis did not record one)", nil
	}
	places := []placement{
		{f.Test, "after", "tear-down of " + f.Test},
		{f.Test, "before", "set-up of " + f.Test},
	}
	return r.generatedReset(ctx, f, states, places, []string{f.Test})
}
