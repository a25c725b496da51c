package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/report"
)

// chaosNODExpected is testdata/chaos-nod/expected.json.
type chaosNODExpected struct {
	Findings  []report.Finding `json:"findings"`
	NOD       []string         `json:"nod"`
	Dismissed []string         `json:"dismissed"`
	Tests     int              `json:"tests"`
}

// TestChaosNOD runs `flaky chaos` in both modes on a suite with a test that
// fails without any perturbation one run in five: it is reported as flaky
// without perturbation with its rates, never attributed to a strategy; a
// framework timeout wrapped by ExpectedException is dismissed, not left out
// as machinery; a class without @Test methods is no test; the true
// counterpart is reported with its strategy and call site.
func TestChaosNOD(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	for _, mode := range []string{"combined", "single"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := copyFixture(t, "chaos-nod")
			data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			var e chaosNODExpected
			if err := json.Unmarshal(data, &e); err != nil {
				t.Fatal(err)
			}
			// One worker makes the order of the runs, and so the runs the counter test fails, fixed.
			args := []string{"--workers", "1", "chaos", "--module", dir, "--mode", mode}
			cmd := exec.Command(bin, args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if code := exitCode(err); code != 1 {
				t.Fatalf("flaky %s exited %d (%v), want 1\n%s%s", strings.Join(args, " "), code, err, out, stderr.String())
			}
			rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			checkAPIFindings(t, rep.Findings, chaosExpected{Findings: e.Findings})
			c := rep.Stats.Chaos
			if c == nil {
				t.Fatal("no chaos stats")
			}
			var nod []string
			for _, n := range c.NOD {
				nod = append(nod, n.Test)
				if n.Failures < 1 || n.Failures >= n.Runs+1 || n.PerturbedFailures < 1 || n.PerturbedRuns < n.PerturbedFailures {
					t.Errorf("nod %+v: want failures both unperturbed and perturbed, within their runs", n)
				}
			}
			if !slices.Equal(nod, e.NOD) {
				t.Errorf("nod = %q, want %q", nod, e.NOD)
			}
			if mode == "combined" && (len(c.NOD) != 1 || c.NOD[0] != (report.ChaosNOD{Test: e.NOD[0], Runs: 6, Failures: 1, PerturbedRuns: 1, PerturbedFailures: 1})) {
				t.Errorf("combined nod = %+v, want 1 of 6 unperturbed runs and 1 of 1 perturbed", c.NOD)
			}
			if !strings.Contains(string(out), "nod  "+e.NOD[0]+" fails unperturbed ") {
				t.Errorf("output does not name %s as flaky without perturbation:\n%s", e.NOD[0], out)
			}
			checkNODFinding(t, rep, e.NOD[0])
			for _, test := range e.Dismissed {
				if !strings.Contains(stderr.String(), "not reporting "+test+" under ") {
					t.Errorf("%s not dismissed:\n%s", test, stderr.String())
				}
				if slices.ContainsFunc(c.Machinery, func(m string) bool { return strings.HasPrefix(m, test+" ") }) {
					t.Errorf("%s left out as machinery: %q", test, c.Machinery)
				}
			}
			if c.Tests != e.Tests {
				t.Errorf("tests = %d, want %d (a class without @Test methods is no test)", c.Tests, e.Tests)
			}
		})
	}
}

// checkNODFinding checks that rep holds test as a nod finding whose
// reproduce command reruns it unperturbed, repeated so that it fails: the
// counter test fails in one of any five runs, and the command runs it more
// than five times, so each of two reruns fails it.
func checkNODFinding(t *testing.T, rep *report.Report, test string) {
	t.Helper()
	i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.Test == test && f.Kind == report.NOD })
	if i < 0 {
		t.Errorf("no nod finding for %s: %+v", test, rep.Findings)
		return
	}
	f := rep.Findings[i]
	if strings.Contains(f.ReproduceRunOrder, "--chaos") || f.Reproduce == "" || len(f.Evidence) < 2 {
		t.Errorf("nod finding %+v: want an unperturbed reproduce command and its runs", f)
	}
	args, err := shellquote.Split(f.ReproduceRunOrder)
	if err != nil || len(args) < 2 {
		t.Fatalf("reproduce %q: %v", f.ReproduceRunOrder, err)
	}
	for range 2 {
		out, err := exec.Command(flakyBin(t), args[1:]...).CombinedOutput()
		if code := exitCode(err); code != 1 || !failedIn(string(out), test) {
			t.Fatalf("%s exited %d, want 1 with %s failing:\n%s", f.ReproduceRunOrder, code, test, out)
		}
	}
}
