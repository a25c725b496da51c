package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childStartingJava is a java wrapper: the first process flaky starts as a
// test JVM (with the agent) starts `sleep 1000`, a child of what flaky
// launched, writes its pid to $FLAKY_E2E_CHILD and waits for it; every
// other invocation is plain java.
const childStartingJava = `#!/bin/sh
case "$*" in
*-javaagent:*port=*)
	sleep 1000 &
	printf %s $! >"$FLAKY_E2E_CHILD.tmp" && mv "$FLAKY_E2E_CHILD.tmp" "$FLAKY_E2E_CHILD"
	wait
	;;
esac
exec "$REAL_JAVA" "$@"
`

// TestKilledFlakyLeavesNoChildren kills `flaky run-order` with SIGKILL
// while its test JVM's child runs: the child ends soon after, within what
// starting it took (flaky, its JVM's supervisor and the wrapper each a
// process start; ending them is a signal, a wake-up and a kill each).
func TestKilledFlakyLeavesNoChildren(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("only Linux ends what a test JVM started when flaky is killed")
	}
	p := fixture(t, "junit4")
	bin := flakyBin(t)
	orderFile := filepath.Join(t.TempDir(), "order.txt")
	if err := os.WriteFile(orderFile, []byte(p.expected.Fixture.DefaultOrder[0]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := exec.LookPath(javaBin())
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(t.TempDir(), "java")
	if err := os.WriteFile(wrapper, []byte(childStartingJava), 0o755); err != nil {
		t.Fatal(err)
	}
	childFile := filepath.Join(t.TempDir(), "child")
	cmd := exec.Command(bin, "--java", wrapper, "run-order", "--module", p.dir, "--order", orderFile)
	cmd.Env = append(os.Environ(), "REAL_JAVA="+real, "FLAKY_E2E_CHILD="+childFile)
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var child int
	// Polls for the event; the bound ends only a flaky that never starts
	// its JVM (it takes seconds, a minute on a busy machine).
	for deadline := time.Now().Add(10 * time.Minute); child <= 0; time.Sleep(20 * time.Millisecond) {
		data, _ := os.ReadFile(childFile)
		child, _ = strconv.Atoi(string(data))
		if time.Now().After(deadline) {
			t.Fatal("no test JVM started within 10 minutes")
		}
	}
	started := time.Since(began)
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	cmd.Process.Kill()
	cmd.Wait()
	// A child flaky did not end outlives any bound; one it ends is gone
	// within what its start took (at least 5 s), on a busy machine too.
	bound := max(5*time.Second, started)
	for deadline := time.Now().Add(bound); !ended(child); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the test JVM's child (pid %d) still runs %s after flaky was killed (starting it took %s)", child, bound.Round(100*time.Millisecond), started.Round(100*time.Millisecond))
		}
	}
}

// ended reports whether pid has ended (a zombie counts as ended).
func ended(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(rest, "Z")
}
