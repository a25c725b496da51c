package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// TestClassesWithoutTests runs list-tests, detect, chaos in both modes and
// mvn -Pflaky verify on a suite of one passing test and three classes named like tests that
// have none: a JUnit 4 class with a runner (JUnit's initializationError "No
// runnable methods"), a JUnit 3 TestCase (JUnit 3's warning "No tests
// found") and a helper Surefire does not run. None is listed, analysed or
// counted: each command exits 0 and leaves nothing out.
func TestClassesWithoutTests(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	dir := copyFixture(t, "notests")
	commands := [][]string{
		{"list-tests", "--module", dir},
		{"detect", "--module", dir, "--no-state", "--no-invariants"},
		{"chaos", "--module", dir, "--mode", "combined"},
		{"chaos", "--module", dir, "--mode", "single"},
	}
	for _, args := range commands {
		out, err := exec.Command(bin, append([]string{"-q"}, args...)...).CombinedOutput()
		if code := exitCode(err); code != 0 {
			t.Errorf("flaky %s exited %d (%v), want 0\n%s", strings.Join(args, " "), code, err, out)
		}
		for _, bad := range []string{"#initializationError", "TestSuite$1#warning", "left out", "SharedRunnerTest#", "SharedTestCase#", "SupportTest#"} {
			if strings.Contains(string(out), bad) {
				t.Errorf("flaky %s prints %q:\n%s", strings.Join(args, " "), bad, out)
			}
		}
		if args[0] == "list-tests" && !strings.HasSuffix(string(out), "\nfixture.notests.GreeterTest#greetsByName\n") {
			t.Errorf("list-tests does not end with the one test:\n%s", out)
		}
	}
	// verify: the flaky provider lists through the same runner, so Surefire's fork does not run them either.
	dir = copyFixture(t, "notests")
	flakyInit(t, dir)
	out, code := mvnRun(t, dir, "-Pflaky", "verify", "-Dflaky.chaos=combined")
	if code != 0 {
		t.Errorf("mvn -Pflaky verify exited %d, want 0:\n%s", code, tail(out))
	}
	for _, bad := range []string{"initializationError", "TestSuite$1", "left out"} {
		if strings.Contains(out, bad) {
			t.Errorf("mvn -Pflaky verify prints %q:\n%s", bad, tail(out))
		}
	}
	// The provider says what it left out, and Surefire counts the one test.
	for _, want := range []string{"fixture.notests.SharedRunnerTest has no tests (No runnable methods): not listed", "Tests run: 1, Failures: 0, Errors: 0, Skipped: 0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("mvn -Pflaky verify does not print %q:\n%s", want, tail(out))
		}
	}
}
