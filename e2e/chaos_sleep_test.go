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
	for _, mode := range [][]string{nil, {"--mode", "single"}} {
		t.Run(strings.Join(append([]string{"default"}, mode...), " "), func(t *testing.T) {
			t.Parallel()
			dir := copyFixture(t, "chaos-sleep")
			e := readChaosExpected(t, dir)
			args := append([]string{"chaos", "--module", dir, "--test-timeout", "30s", "--budget", "15m"}, mode...)
			rep, out := chaosReport(t, bin, dir, args...)
			checkAPIFindings(t, rep.Findings, e)
			if len(rep.Findings) != len(e.Findings) {
				t.Errorf("%d findings, want %d:\n%s", len(rep.Findings), len(e.Findings), out)
			}
		})
	}
	t.Run("every sleep lengthened", func(t *testing.T) {
		t.Parallel()
		p := fixture(t, "chaos-sleep")
		e := readChaosExpected(t, p.dir)
		l, err := newLauncher(p.setup, javaBin(), launcher.Options{RunTimeout: 2 * time.Minute, TestTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		sleepIncrease, err := chaos.Parse("SLEEP_INCREASE")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := chaos.Run(ctx, l, chaos.Config{
			Tests:      listTests(t, p),
			Mode:       chaos.Single,
			Strategies: sleepIncrease,
			Settings: chaos.Settings{
				Roots:  chaos.RootsFor(p.setup.ModuleDir, p.setup.ClassesDir, p.setup.TestClassesDir),
				Params: []string{"sleep.limit=0"},
			},
			Logf: t.Logf,
		})
		if err != nil {
			t.Fatal(err)
		}
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
