package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileNamesMissingBinary runs `mvn -Pflaky test-compile` with no
// flaky on the PATH and no -Dflaky.bin: the build fails with a message that
// says how to point it at flaky, not with exec-maven-plugin's "Cannot run
// program".
func TestProfileNamesMissingBinary(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "junit4")
	flakyInit(t, dir)
	var path []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "flaky")); err != nil {
			path = append(path, d)
		}
	}
	cmd := exec.Command("mvn", "-B", "-Dstyle.color=never", "-Pflaky", "test-compile")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+strings.Join(path, string(os.PathListSeparator)))
	out, err := cmd.CombinedOutput()
	if exitCode(err) == 0 {
		t.Fatalf("mvn -Pflaky test-compile passed without flaky:\n%s", tail(string(out)))
	}
	want := "flaky: cannot run the flaky binary flaky: put flaky on the PATH, or give its path with -Dflaky.bin=/path/to/flaky"
	if !strings.Contains(string(out), want) || strings.Contains(string(out), "Cannot run program") {
		t.Errorf("the build does not say %q:\n%s", want, tail(string(out)))
	}
}
