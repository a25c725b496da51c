package e2e

import (
	"strings"
	"testing"
)

// TestChaosIterationOrder runs a plain `flaky chaos` (the default combined
// set, in which ITERATION_ORDER runs in a pass of its own: issue #55, point
// 5) and `flaky chaos --mode single --strategy ITERATION_ORDER` on
// testdata/chaos-iteration, and both find exactly the same (points 1 and 2): two
// different HashMaps with the same keys compared as text are found (each
// map draws its own permutation), one map iterated twice is not (an
// unchanged collection keeps its order), and a test only the third default
// seed breaks is found, its reproduce commands passing that seed. Point 3:
// a getDeclaredFields()[0] test whose @After walks a map reports only the
// getDeclaredFields() site, marked as the one that alone flips it (the
// bisection over its two sites; expected.json holds the exact sites), and a
// HashSet only the JDK iterates is no finding.
func TestChaosIterationOrder(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	for _, mode := range [][]string{nil, {"--mode", "single", "--strategy", "ITERATION_ORDER"}} {
		t.Run(strings.Join(append([]string{"default"}, mode...), " "), func(t *testing.T) {
			t.Parallel()
			dir := copyFixture(t, "chaos-iteration")
			e := readChaosExpected(t, dir)
			args := append([]string{"chaos", "--module", dir}, mode...)
			rep, out := chaosReport(t, bin, dir, args...)
			checkAPIFindings(t, rep.Findings, e)
			if len(rep.Findings) != len(e.Findings) {
				t.Errorf("%d findings, want %d:\n%s", len(rep.Findings), len(e.Findings), out)
			}
			for _, f := range rep.Findings {
				seeded := strings.Contains(f.Reproduce, "seed=24303") && strings.Contains(f.ReproduceRunOrder, "seed=24303")
				if want := f.Test == "fixture.iteration.CatalogTest#firstOfFourIsNeverB"; seeded != want {
					t.Errorf("%s: reproduce commands pass seed=24303: %v, want %v\n%s\n%s", f.Test, seeded, want, f.Reproduce, f.ReproduceRunOrder)
				}
			}
		})
	}
}
