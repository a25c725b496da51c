package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// flakyBin builds cmd/flaky once into the scratch directory.
func flakyBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "flaky-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "flaky")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/flaky")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = err
			t.Logf("%s", out)
		}
	})
	if binErr != nil {
		t.Fatalf("building flaky: %v", binErr)
	}
	return binPath
}

// TestCLI runs `flaky list-tests` and `flaky run-order --json` as a user would.
func TestCLI(t *testing.T) {
	t.Parallel()
	p := fixture(t, "junit4")
	bin := flakyBin(t)

	out, err := exec.Command(bin, "list-tests", "--module", p.dir).Output()
	if err != nil {
		t.Fatalf("list-tests: %v", err)
	}
	ids := strings.Fields(string(out))
	if want := p.expected.Fixture.DefaultOrder; !slices.Equal(ids, want) {
		t.Errorf("list-tests printed %v, want %v", ids, want)
	}

	v := p.expected.ofKind("od-victim")[0]
	order := join(v.Polluters[0], []string{v.Test})
	orderFile := filepath.Join(t.TempDir(), "order.txt")
	if err := os.WriteFile(orderFile, []byte("# polluted order\n"+strings.Join(order, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run-order", "--module", p.dir, "--order", orderFile, "--json")
	out, err = cmd.Output()
	if code := exitCode(err); code != 1 {
		t.Fatalf("run-order with a failing victim exited %d (%v), want 1", code, err)
	}
	var results []map[string]any
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("run-order --json printed invalid JSON: %v\n%s", err, out)
	}
	if len(results) != len(order) {
		t.Fatalf("got %d results for %d tests: %s", len(results), len(order), out)
	}
	for i, r := range results {
		for _, k := range []string{"test", "outcome", "timeMs", "message"} {
			if _, ok := r[k]; !ok {
				t.Errorf("result %d lacks %q: %v", i, k, r)
			}
		}
		if r["test"] != order[i] {
			t.Errorf("result %d is %v, want %s", i, r["test"], order[i])
		}
	}
	if last := results[len(results)-1]; last["outcome"] != "fail" && last["outcome"] != "error" {
		t.Errorf("victim outcome %v, want fail", last["outcome"])
	}

	if err := os.WriteFile(orderFile, []byte(v.Test+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(bin, "run-order", "--module", p.dir, "--order", orderFile).Output()
	if err != nil {
		t.Fatalf("victim alone: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), v.Test) {
		t.Errorf("text output does not name the test:\n%s", out)
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
