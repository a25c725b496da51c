package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// TestChaosSleep runs `flaky chaos` on testdata/chaos-sleep in default
// (combined) and single mode, as a user would: only the test that sleeps
// too briefly for work that sleeps is reported, with SLEEP_INCREASE and
// both call sites; the library that polls with many short sleeps is not.
// With every sleep lengthened (sleep.limit=0, the library run) the polling
// test hangs: the fixture holds the false alarm the default rule avoids.
func TestChaosSleep(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	// The test timeout and the budget (which single mode needs to reach the
	// sleep strategies) are sized from an unperturbed run of the suite on
	// this machine, at least 30 s and 15 minutes (measureAnalysisLimits).
	p := fixture(t, "chaos-sleep")
	lim := measureAnalysisLimits(t, p.setup, launcher.Options{}, listTests(t, p), len(chaos.Strategies)+1, 30*time.Second)
	budget := max(15*time.Minute, lim.Budget)
	chaosModesExact(t, bin, "chaos-sleep", oneSeed, "--test-timeout", lim.Test.Round(time.Second).String(), "--budget", budget.Round(time.Second).String())
	t.Run("every sleep lengthened", func(t *testing.T) {
		t.Parallel()
		// The polling test's 150 sleeps, each 2 s longer, take 300 s: a
		// hang at the test timeout (libraryChaosRun's: three unperturbed
		// runs of the suite, at least 10 s) unless one such run takes 100 s.
		res, e := libraryChaosRun(t, "chaos-sleep", "SLEEP_INCREASE", "sleep.limit=0", 10*time.Second)
		for _, test := range append(slices.Clone(e.Fixture.Stable), e.Findings[0].Test) {
			i := slices.IndexFunc(res.Findings, func(f chaos.Finding) bool { return f.Test == test })
			if i < 0 {
				t.Errorf("%s does not fail when every sleep is lengthened", test)
				continue
			}
			if slices.Contains(e.Fixture.Stable, test) && res.Findings[i].Evidence[0].Outcome != launcher.Timeout {
				t.Errorf("%s: %s, want a hang at the test timeout", test, res.Findings[i].Evidence[0].Outcome)
			}
		}
	})
}
