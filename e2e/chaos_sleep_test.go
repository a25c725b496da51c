package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/chaos"
	"github.com/flakyhq/flaky/internal/launcher"
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
	chaosModesExact(t, bin, "chaos-sleep", "--test-timeout", "30s", "--budget", "15m")
	t.Run("every sleep lengthened", func(t *testing.T) {
		t.Parallel()
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
