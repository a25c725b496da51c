package e2e

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestProfileNamesMissingBinary runs `mvn -Pflaky test-compile` with no
// flaky on the PATH: with a -Dflaky.bin that does not exist, the build fails
// (in the plugin's prepare goal) with a message that says how to point it at
// flaky, not with a bare "Cannot run program"; with no -Dflaky.bin either, the
// plugin asks Maven for the binary and the build fails naming the artifact
// (a development build's is in no repository; offline, so that no
// repository is asked).
func TestProfileNamesMissingBinary(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "junit4")
	flakyInit(t, dir)
	run := func(args ...string) string {
		cmd := exec.Command("mvn", append([]string{"-B", "-Dstyle.color=never", "-Pflaky", "test-compile"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+pathWithoutFlaky())
		out, err := cmd.CombinedOutput()
		if exitCode(err) == 0 {
			t.Fatalf("mvn -Pflaky test-compile %s passed without flaky:\n%s", strings.Join(args, " "), tail(string(out)))
		}
		if strings.Contains(string(out), "Cannot run program") {
			t.Errorf("the build ran a missing binary:\n%s", tail(string(out)))
		}
		return string(out)
	}
	missing := "/no/such/dir/flaky"
	want := "flaky: cannot run the flaky binary " + missing + ": put flaky on the PATH, or give its path with -Dflaky.bin=/path/to/flaky"
	if out := run("-Dflaky.bin=" + missing); !strings.Contains(out, want) {
		t.Errorf("the build does not say %q:\n%s", want, tail(out))
	}
	artifact := "dev.flaky:flaky:exe:" + hostClassifier(t) + ":0.0.0-dev"
	if out := run("--offline"); !strings.Contains(out, artifact) {
		t.Errorf("the build does not name %s:\n%s", artifact, tail(out))
	}
}

// hostClassifier is the classifier of this platform's flaky artifact.
func hostClassifier(t *testing.T) string {
	t.Helper()
	c, ok := map[string]string{"linux/amd64": "linux-x86_64", "linux/arm64": "linux-aarch_64",
		"darwin/amd64": "osx-x86_64", "darwin/arm64": "osx-aarch_64"}[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		t.Skipf("flaky publishes no binary for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return c
}
