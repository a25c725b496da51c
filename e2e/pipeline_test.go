package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

// TestDetectAndVerifyFindTheSame runs one fixture through `flaky detect` and
// through `mvn -Pflaky verify` with the same seed and strategy: both call
// the one analysis pipeline, so their findings are the same, test by test:
// kind, polluters, setters, cleaners and confirmed polluted-state roots.
func TestDetectAndVerifyFindTheSame(t *testing.T) {
	needsTools(t)
	const name, seed, strategy = "junit4", "20231", "orders"
	dir := copyFixture(t, name)
	flakyInit(t, dir)
	out, code := mvnRun(t, dir, "-Pflaky", "verify", "-Dflaky.gate=off", "-Dflaky.budget=3m",
		"-Dflaky.seed="+seed, "-Dflaky.strategy="+strategy)
	if code != 0 {
		t.Fatalf("mvn -Pflaky verify with the gate off failed:\n%s", tail(out))
	}
	reportPath := filepath.Join(dir, "target", "flaky", "report.json")
	verified, err := report.Read(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	if cov := verified.Stats.Coverage; cov == nil || fmt.Sprint(cov.Seed) != seed {
		t.Errorf("verify did not use -Dflaky.seed=%s: coverage %+v", seed, cov)
	}

	// The same module, analysed by detect (its problem invariants are not
	// compared, so it skips them).
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(flakyBin(t), "detect", "--module", dir, "--seed", seed, "--strategy", strategy, "--budget", "3m", "--no-invariants")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); exitCode(err) != 1 {
		t.Fatalf("flaky detect exited %d, want 1 (findings): %v\n%s%s", exitCode(err), err, stdout.String(), stderr.String())
	}
	detected, err := report.Read(reportPath)
	if err != nil {
		t.Fatal(err)
	}

	got, want := pipelineFindings(verified), pipelineFindings(detected)
	if len(want) == 0 {
		t.Fatalf("detect found nothing on %s:\n%s", name, stdout.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("verify and detect differ (seed %s)\nverify: %q\ndetect: %q\nverify output:\n%s\ndetect output:\n%s", seed,
			got, want, tail(out), stdout.String())
	}
}

// pipelineFindings renders a report's findings for comparison, sorted.
func pipelineFindings(r *report.Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%s %s polluters=%s setters=%s cleaners=%s state=%s", f.Kind, f.Test,
			groupSet(f.Polluters), groupSet(f.Setters), groupSet(f.Cleaners), strings.Join(confirmedRoots(f.PollutedState), ", ")))
	}
	slices.Sort(out)
	return out
}
