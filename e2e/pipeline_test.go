package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// pipelineSeed is the seed TestVerifyRunsOrderDependenceAnalysis gives
// `mvn -Pflaky verify` (-Dflaky.seed) and then `flaky detect` (--seed).
const pipelineSeed = "20231"

// detectFindsTheSame runs `flaky detect` on the module in dir that
// `mvn -Pflaky verify` analysed into verified, with verify's seed and
// strategy: both entry points call the one analysis pipeline, so their
// findings are the same, test by test: kind, polluters, setters, cleaners
// and confirmed polluted-state roots. Run from the verify test, it costs no
// Maven build and no verify of its own.
func detectFindsTheSame(t *testing.T, dir, strategy string, verified *report.Report) {
	t.Helper()
	if cov := verified.Stats.Coverage; cov == nil || fmt.Sprint(cov.Seed) != pipelineSeed {
		t.Errorf("verify did not use -Dflaky.seed=%s: coverage %+v", pipelineSeed, cov)
	}
	// Problem invariants are not compared, so detect skips them. No
	// --budget, as verify had none: each sizes its own from the suite's run
	// on this machine (the orders come from the seed, not the budget).
	args := []string{"detect", "--module", dir, "--seed", pipelineSeed, "--no-invariants"}
	if strategy != "" {
		args = append(args, "--strategy", strategy)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(flakyBin(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); exitCode(err) != 1 {
		t.Fatalf("flaky detect exited %d, want 1 (findings): %v\n%s%s", exitCode(err), err, stdout.String(), stderr.String())
	}
	t.Logf("flaky detect with verify's seed: %s", time.Since(start).Round(100*time.Millisecond))
	detected, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, want := pipelineFindings(verified), pipelineFindings(detected)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("verify and detect differ (seed %s)\nverify: %q\ndetect: %q\ndetect output:\n%s", pipelineSeed, got, want, stdout.String())
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
