package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// TestChaosRandom runs `flaky chaos` on the chaos-random fixture in the
// default (combined) mode and in single mode, as a user would: only the
// inclusive-bound index is reported, with RANDOM_MAX and its call site; no
// rejection-sampling loop, statistical test or uniqueness through
// Math.random() is. With every draw the same extreme (random.limit=0, the
// library run) each of those fails or hangs: the fixture holds the false
// alarms the default rule avoids.
func TestChaosRandom(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	// A test that hung would be cut and reported; the test timeout is three
	// unperturbed runs of the suite on this machine, at least 20 s (a fixed
	// 20 s can end a busy machine's JVM before its first test).
	p := fixture(t, "chaos-random")
	lim := measureAnalysisLimits(t, p.setup, launcher.Options{}, listTests(t, p), len(chaos.Strategies)+1, 20*time.Second)
	chaosModesExact(t, bin, "chaos-random", oneSeed, "--test-timeout", lim.Test.Round(time.Second).String())
	t.Run("constant extreme", func(t *testing.T) {
		t.Parallel()
		res, e := libraryChaosRun(t, "chaos-random", "RANDOM_MAX", "random.limit=0", 5*time.Second)
		for _, test := range e.Fixture.Stable {
			failed := slices.ContainsFunc(res.Findings, func(f chaos.Finding) bool { return f.Test == test })
			hung := slices.ContainsFunc(res.Dismissed, func(d chaos.Dismissal) bool { return d.Test == test })
			if !failed && !hung {
				t.Errorf("%s neither fails nor hangs when every draw is the extreme", test)
			}
		}
		for _, f := range res.Findings {
			if slices.Contains(e.Fixture.Seeded, f.Test) {
				t.Errorf("seeded test %s reported", f.Test)
			}
		}
	})
}
