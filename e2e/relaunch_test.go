package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// refusedOnceJava is a java wrapper: the first JVM it starts with the flaky
// agent gets a port nobody listens on, so the agent's connection is refused
// and it halts the JVM with status 86, as when a loaded machine keeps the
// driver from answering in time; every other invocation is plain java.
const refusedOnceJava = `#!/bin/sh
agent=
for a in "$@"; do
	case "$a" in -javaagent:*port=*) agent=1 ;; esac
done
if [ -n "$agent" ] && mkdir "$FLAKY_E2E_REFUSED" 2>/dev/null; then
	first=1
	for a in "$@"; do
		if [ -n "$first" ]; then set --; first=; fi
		case "$a" in -javaagent:*) a=$(printf '%s' "$a" | sed 's/port=[0-9]*/port=1/') ;; esac
		set -- "$@" "$a"
	done
fi
exec "$REAL_JAVA" "$@"
`

// TestRelaunchAfterRefusedConnection runs an order with a JVM whose first
// connection to flaky is refused: the JVM is relaunched, the run has the
// same results as an undisturbed one, and flaky says so.
func TestRelaunchAfterRefusedConnection(t *testing.T) {
	t.Parallel()
	p, bin, orderFile, real, wrapper := victimOrderWithJava(t, refusedOnceJava)
	marker := filepath.Join(t.TempDir(), "refused")
	runOrder := func(java string) (string, string) {
		cmd := exec.Command(bin, "--java", java, "run-order", "--module", p.dir, "--order", orderFile, "--json")
		cmd.Env = append(os.Environ(), "REAL_JAVA="+real, "FLAKY_E2E_REFUSED="+marker)
		return runOrderJSON(t, cmd, nil)
	}
	want, _ := runOrder(real)
	got, stderr := runOrder(wrapper)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the wrapper refused no connection: %v", err)
	}
	if got != want {
		t.Errorf("after a relaunch: %s; undisturbed: %s", got, want)
	}
	if !strings.Contains(stderr, "did not connect to flaky (exit status 86: [flaky] cannot connect to the flaky driver") ||
		!strings.Contains(stderr, "relaunched it (attempt 2 of 3)") {
		t.Errorf("run-order does not note the relaunch:\n%s", stderr)
	}
}

// victimOrderWithJava writes the junit4 fixture's first victim after its
// polluter to an order file and script to an executable java wrapper (which
// runs $REAL_JAVA), and returns the fixture, flaky's binary, the order
// file, the real java and the wrapper.
func victimOrderWithJava(t *testing.T, script string) (p *prepared, bin, orderFile, realJava, wrapper string) {
	t.Helper()
	p = fixture(t, "junit4")
	bin = flakyBin(t)
	v := p.expected.ofKind("od-victim")[0]
	order := join(v.Polluters[0], []string{v.Test})
	orderFile = filepath.Join(t.TempDir(), "order.txt")
	if err := os.WriteFile(orderFile, []byte(strings.Join(order, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	realJava, err := exec.LookPath(javaBin())
	if err != nil {
		t.Fatal(err)
	}
	wrapper = filepath.Join(t.TempDir(), "java")
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p, bin, orderFile, realJava, wrapper
}

// runOrderJSON starts cmd, a `flaky run-order --json` of an order whose
// last test fails, calls during (when not nil) while it runs, and returns
// its results as "test=outcome ..." and its stderr; it fails t unless
// flaky exits 1.
func runOrderJSON(t *testing.T, cmd *exec.Cmd, during func()) (string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		during()
	}
	if code := exitCode(cmd.Wait()); code != 1 {
		t.Fatalf("%s exited %d, want 1 (the victim fails)\n%s", strings.Join(cmd.Args, " "), code, stderr.String())
	}
	var results []struct{ Test, Outcome string }
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("run-order --json: %v\n%s", err, stdout.String())
	}
	var parts []string
	for _, r := range results {
		parts = append(parts, r.Test+"="+r.Outcome)
	}
	return strings.Join(parts, " "), stderr.String()
}
