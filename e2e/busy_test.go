package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

// TestChaosBesideSpinners runs `flaky chaos` (combined, with the workers it
// chooses) on the chaos-busy fixture, whose tests only compute, while four
// processes per core spin beside it, as on a shared CI runner: the finding
// is exact, and flaky never runs more JVMs at once than the cores, since
// none of its JVMs waits (a JVM that computes wants a core whether other
// processes leave it one or not). It checks counts from the report, never
// a time: the spinners make the run slower, not different. The module is
// built and its tests listed before the spinners start (Maven's build is
// not what is judged, and beside the spinners it took most of the test's
// time), so the analysis itself runs with what it prepared cached, as a
// second analysis of a module does.
func TestChaosBesideSpinners(t *testing.T) {
	needsTools(t)
	bin := flakyBin(t)
	dir := copyFixture(t, "chaos-busy")
	e := readChaosExpected(t, dir)
	if out, err := exec.Command(bin, "list-tests", "--module", dir).CombinedOutput(); err != nil {
		t.Fatalf("flaky list-tests: %v\n%s", err, out)
	}
	spin(t, 4*runtime.NumCPU())
	cmd := exec.Command(bin, "--debug", "chaos", "--module", dir)
	var debug bytes.Buffer
	cmd.Stderr = &debug
	out, err := cmd.Output()
	if code := exitCode(err); code != 1 {
		t.Fatalf("flaky chaos exited %d (%v), want 1\n%s%s", code, err, out, debug.Bytes())
	}
	rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	beyond := beyondWorkers(debug.Bytes())
	checkAPIFindings(t, rep.Findings, e)
	if len(rep.Findings) != len(e.Findings) {
		t.Errorf("%d findings, want %d:\n%s", len(rep.Findings), len(e.Findings), out)
	}
	st := rep.Stats.Chaos
	if st == nil {
		t.Fatalf("no chaos stats:\n%s", out)
	}
	if cores := runtime.NumCPU(); st.PeakJVMs < 1 || st.PeakJVMs > cores {
		t.Errorf("at most %d JVMs ran at once, want 1 to %d (the cores: no JVM of the fixture waits); started beyond the workers:\n%s", st.PeakJVMs, cores, beyond)
	}
	// A run takes one JVM, but the combined run may spread over free
	// workers, each JVM handing over at least one class it has not begun:
	// at most one JVM per class of the fixture (9) more than the runs.
	if st.JVMs < st.Runs || st.JVMs > st.Runs+9 {
		t.Errorf("%d JVMs for %d runs, want %d to %d", st.JVMs, st.Runs, st.Runs, st.Runs+9)
	}
	t.Logf("%d runs, %d JVMs, at most %d at once", st.Runs, st.JVMs, st.PeakJVMs)
}

// beyondWorkers returns the debug notes of a chaos run's output that say
// why a JVM started beyond the workers (one line each), or "none".
func beyondWorkers(out []byte) string {
	var notes []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "beyond the") {
			notes = append(notes, line)
		}
	}
	if len(notes) == 0 {
		return "none"
	}
	return strings.Join(notes, "\n")
}

// spin starts n processes that spin until the test ends.
func spin(t *testing.T, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
}
