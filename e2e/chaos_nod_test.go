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

// The chaos-nod fixture's tests flaky without perturbation.
const (
	runCounter = "fixture.chaosnod.RunCounterTest#failsEveryFifthRun"
	inbox      = "fixture.chaosnod.InboxTest#bSeesThePoolStarted"
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
// without perturbation with its rates, never attributed to a strategy; so
// is a test exposed whenever it runs first in its class in a JVM, which the
// control runs like its reproduce order show (#54 point 3); a
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
				if n.Failures < 1 || n.Failures > n.Runs || n.PerturbedFailures > n.PerturbedRuns || n.Test == runCounter && n.PerturbedFailures < 1 {
					t.Errorf("nod %+v: want failures unperturbed (and for %s perturbed), within their runs", n, runCounter)
				}
			}
			if slices.Sort(nod); !slices.Equal(nod, e.NOD) {
				t.Errorf("nod = %q, want %q", nod, e.NOD)
			}
			// Combined, the inbox test failed in the combined run (its first) and passed its first control runs,
			// second in its class after aSlugsTheInbox; attribution ran it alone, first in its class, where every
			// strategy failed it; the control runs like that (alone, unperturbed) fail it too: flaky without
			// perturbation, failing 5 of its 11 unperturbed runs. (Single, its first run is the unperturbed one.)
			wantNOD := []report.ChaosNOD{{Test: runCounter, Runs: 6, Failures: 1, PerturbedRuns: 1, PerturbedFailures: 1},
				{Test: inbox, Runs: 11, Failures: 5, PerturbedRuns: 1, PerturbedFailures: 1}}
			if mode == "combined" && !slices.Equal(c.NOD, wantNOD) {
				t.Errorf("combined nod = %+v, want %+v", c.NOD, wantNOD)
			}
			for _, test := range e.NOD {
				if !strings.Contains(string(out), "nod  "+test+" fails unperturbed ") {
					t.Errorf("output does not name %s as flaky without perturbation:\n%s", test, out)
				}
			}
			checkNODFinding(t, rep, runCounter)
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
