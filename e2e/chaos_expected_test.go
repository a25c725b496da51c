package e2e

import "testing"

// TestChaosExpectedException runs `flaky chaos --strategy ITERATION_ORDER`
// in both modes on a JUnit 4 test whose @Test(expected = ...) exception
// only the declared field order produces: under the perturbation JUnit
// fails it with "Expected exception: ..." from framework frames alone, and
// that is the test failing, reported with its call site, not left out as
// the framework's failure (issue #55, point 4).
func TestChaosExpectedException(t *testing.T) {
	t.Parallel()
	needsTools(t)
	chaosModesExact(t, flakyBin(t), "chaos-expected", nil, "--strategy", "ITERATION_ORDER")
}
