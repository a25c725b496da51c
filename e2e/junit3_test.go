package e2e

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/surefire"
)

// TestJUnit3Alone lists and runs the junit3 fixture, whose only test
// dependency is JUnit 3.8.1: `flaky list-tests` gives the default order (a
// suite class's tests in their own class's place), orders that split the class whose
// suite() wraps its tests in a TestSetup keep the TestSetup around every part,
// the polluter fails the victim, and the default order's outcomes are those of
// Surefire's JUnit 3 provider. Exact findings: TestDetectFindsExactlyTheExpectedFindings
// and TestVerifyRunsOrderDependenceAnalysis.
func TestJUnit3Alone(t *testing.T) {
	t.Parallel()
	p := fixture(t, "junit3")
	const (
		victim   = "fixture.junit3.DiscountTest#testStandardDiscount"
		polluter = "fixture.junit3.OverrideTest#testSpecialDiscount"
		isOpen   = "fixture.junit3.RegistrySuiteTest#testIsOpen"
		adds     = "fixture.junit3.RegistrySuiteTest#testAddsEntry"
	)
	ids := launcher.IDs(checkListing(t, p))

	res := runOrders(t, p.launcher, ids, []string{isOpen, victim, adds, isOpen}, []string{polluter, victim})
	for _, tr := range res[0].Tests {
		if tr.Outcome != launcher.Pass {
			t.Errorf("default order: %s %s\n%s", tr.Test, tr.Outcome, describe(res[0]))
		}
	}
	if len(res[1].Tests) != 4 || slices.ContainsFunc(res[1].Tests, func(tr launcher.TestResult) bool { return tr.Outcome != launcher.Pass }) {
		t.Errorf("a split suite() class lost its TestSetup:\n%s", describe(res[1]))
	}
	if got := outcomeOf(res[2], victim); got != launcher.Fail {
		t.Errorf("victim after its polluter: %s, want fail\n%s", got, describe(res[2]))
	}

	// Surefire's JUnit 3 provider: the same outcomes, and the suite class's
	// tests run twice (through AllTests and on their own).
	dir := copyFixture(t, "junit3")
	cmd := exec.Command("mvn", "-B", "-q", "test", "-Dmaven.test.failure.ignore=true")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mvn test: %v\n%s", err, out)
	}
	cases, err := surefire.ReadReports(filepath.Join(dir, "target", "surefire-reports"))
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, c := range cases {
		runs[c.ID()]++
		if c.Outcome != surefire.Pass {
			t.Errorf("surefire: %s %s", c.ID(), c.Outcome)
		}
	}
	for _, id := range ids {
		want := 1
		if id == "fixture.junit3.PadderTest#testPadsLeft" {
			want = 2
		}
		if runs[id] != want {
			t.Errorf("surefire ran %s %d times, want %d (all: %v)", id, runs[id], want, runs)
		}
	}
	if len(runs) != len(ids) {
		t.Errorf("surefire ran %v, flaky lists %v", runs, ids)
	}
}
