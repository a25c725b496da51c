package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/chaos"
	"github.com/flakyhq/flaky/internal/launcher"
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
	for _, mode := range [][]string{nil, {"--mode", "single"}} {
		t.Run(strings.Join(append([]string{"default"}, mode...), " "), func(t *testing.T) {
			t.Parallel()
			dir := copyFixture(t, "chaos-random")
			e := readChaosExpected(t, dir)
			args := append([]string{"chaos", "--module", dir, "--test-timeout", "20s"}, mode...)
			rep, out := chaosReport(t, bin, dir, args...)
			checkAPIFindings(t, rep.Findings, e)
			if len(rep.Findings) != len(e.Findings) {
				t.Errorf("%d findings, want %d:\n%s", len(rep.Findings), len(e.Findings), out)
			}
		})
	}
	t.Run("constant extreme", func(t *testing.T) {
		t.Parallel()
		p := fixture(t, "chaos-random")
		e := readChaosExpected(t, p.dir)
		l, err := newLauncher(p.setup, javaBin(), launcher.Options{RunTimeout: 2 * time.Minute, TestTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		randomMax, err := chaos.Parse("RANDOM_MAX")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := chaos.Run(ctx, l, chaos.Config{
			Tests:      listTests(t, p),
			Mode:       chaos.Single,
			Strategies: randomMax,
			Settings: chaos.Settings{
				Roots:  chaos.RootsFor(p.setup.ModuleDir, p.setup.ClassesDir, p.setup.TestClassesDir),
				Params: []string{"random.limit=0"},
			},
			Logf: t.Logf,
		})
		if err != nil {
			t.Fatal(err)
		}
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
