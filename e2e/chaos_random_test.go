package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

// TestChaosRandom runs `flaky chaos` on the chaos-random fixture in the
// default (combined) mode and in single mode, as a user would: only the
// inclusive-bound index is reported, with RANDOM_MAX and its call site; no
// rejection-sampling loop, statistical test or uniqueness through
// Math.random() is, and none of them hangs.
func TestChaosRandom(t *testing.T) {
	t.Parallel() // long and partly idle (Maven, JVM start-ups): shares the machine with another such test
	needsTools(t)
	bin := flakyBin(t)
	for _, mode := range [][]string{nil, {"--mode", "single"}} {
		t.Run(strings.Join(append([]string{"default"}, mode...), " "), func(t *testing.T) {
			dir := copyFixture(t, "chaos-random")
			e := readChaosExpected(t, dir)
			args := append([]string{"chaos", "--module", dir, "--test-timeout", "20s"}, mode...)
			out, err := exec.Command(bin, args...).Output()
			if code := exitCode(err); code != 1 {
				t.Fatalf("flaky %s exited %d (%v), want 1\n%s%s", strings.Join(args, " "), code, err, out, stderrOf(err))
			}
			rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			checkAPIFindings(t, rep.Findings, e)
			if len(rep.Findings) != len(e.Findings) {
				t.Errorf("%d findings, want %d:\n%s", len(rep.Findings), len(e.Findings), out)
			}
			if log := stderrOf(err); strings.Contains(log, "hung") || strings.Contains(log, "not reporting") {
				t.Errorf("a test hung or was dismissed:\n%s", log)
			}
		})
	}
}
