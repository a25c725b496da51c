package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMavenProfilesReachStandaloneRuns runs a test that needs the module's own
// Maven profile (its Surefire argLine) with flaky run-order: with -P the
// profile shapes flaky's JVM and the test passes, as under `mvn -Pmodern-jvm
// test`; without it the test fails, as under plain `mvn test`.
func TestMavenProfilesReachStandaloneRuns(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "profiles")
	order := filepath.Join(t.TempDir(), "order.txt")
	if err := os.WriteFile(order, []byte("fixture.profiles.ModernJvmTest#runsWithTheProfilesArgLine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		cmd := exec.Command(flakyBin(t), append([]string{"run-order", "--module", dir, "--order", order}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), exitCode(err)
	}
	if out, code := run("-P", "modern-jvm"); code != 0 || !strings.Contains(out, "PASS") {
		t.Errorf("with -P modern-jvm: exit %d, want the test to pass:\n%s", code, out)
	}
	if out, code := run(); code != 1 || !strings.Contains(out, "the modern-jvm profile's argLine") {
		t.Errorf("without the profile: exit %d, want the test to fail on the missing property:\n%s", code, out)
	}
}
