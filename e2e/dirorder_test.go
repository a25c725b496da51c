package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// surefireRunning matches the line Surefire prints as it starts a test class.
var surefireRunning = regexp.MustCompile(`(?m)^\[INFO\] Running (\S+)$`)

// surefireClassOrder runs `mvn test` in dir and returns the classes in the
// order Surefire ran them, failing the test unless the build passes.
func surefireClassOrder(t *testing.T, dir string) []string {
	t.Helper()
	out, code := mvnRun(t, dir, "test")
	if code != 0 {
		t.Fatalf("mvn test exited %d:\n%s", code, tail(out))
	}
	var classes []string
	for _, m := range surefireRunning.FindAllStringSubmatch(out, -1) {
		classes = append(classes, m[1])
	}
	return classes
}

// TestDefaultOrderIsSurefires checks that flaky's default order is the one
// Surefire runs under its default runOrder (filesystem, the order of its
// directory scan), not the order of the class names. Directory order differs
// between machines, so the test learns Surefire's order first and then picks
// a victim that runs before its polluter in it but after it by name: `mvn
// test` passes, list-tests prints Surefire's order, and detect finds the
// victim only in orders that put the polluter first, never in its "original"
// order.
func TestDefaultOrderIsSurefires(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "dirorder")
	ran := surefireClassOrder(t, dir)
	if len(ran) != 6 {
		t.Fatalf("Surefire ran %d classes, want 6: %v", len(ran), ran)
	}
	victim, polluter := "", ""
	for i := 0; i < len(ran) && victim == ""; i++ {
		for j := i + 1; j < len(ran); j++ {
			if ran[j] < ran[i] {
				victim, polluter = ran[i], ran[j]
				break
			}
		}
	}
	if victim == "" {
		t.Skipf("this file system lists the test classes in name order (%v): nothing to tell apart", ran)
	}
	roles := fmt.Sprintf("polluter=%s\nvictim=%s\n", polluter, victim)
	if err := os.WriteFile(filepath.Join(dir, "roles.properties"), []byte(roles), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := surefireClassOrder(t, dir); !slices.Equal(again, ran) {
		t.Fatalf("Surefire ran %v, then %v", ran, again)
	}
	t.Logf("Surefire's order %v; victim %s, polluter %s", ran, victim, polluter)

	bin := flakyBin(t)
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "list-tests", "--module", dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("list-tests: %v\n%s", err, stderr.String())
	}
	listed := strings.Fields(string(out))
	var classes []string
	for _, id := range listed {
		classes = append(classes, testid.ClassOf(id))
	}
	if !slices.Equal(classes, ran) {
		t.Errorf("list-tests printed %v, Surefire ran %v", listed, ran)
	}
	if !strings.Contains(stderr.String(), "runOrder=filesystem") {
		t.Errorf("list-tests did not say the order is Surefire's filesystem order:\n%s", stderr.String())
	}

	cmd = exec.Command(bin, "detect", "--module", dir, "--seed", "1", "--no-invariants")
	var detectOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &detectOut, &detectOut
	if err := cmd.Run(); exitCode(err) != 1 {
		t.Fatalf("detect exited %d, want 1 (a finding): %v\n%s", exitCode(err), err, detectOut.String())
	}
	rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("detect made %d findings, want one (the victim):\n%s", len(rep.Findings), detectOut.String())
	}
	f := rep.Findings[0]
	if f.Test != victim+"#play" || f.Kind != report.ODVictim || groupSet(f.Polluters) != groupSet([][]string{{polluter + "#play"}}) {
		t.Errorf("finding %s %s polluters %v, want od-victim %s#play polluted by %s#play", f.Kind, f.Test, f.Polluters, victim, polluter)
	}
	// Evidence of a run of the original order (or first run by it) must
	// show the victim passing, as it does in Surefire.
	for _, e := range f.Evidence {
		if strings.Contains(e.Run, "original") && e.Outcome != "pass" {
			t.Errorf("the victim %s in a run of the original order (%s), which Surefire passes", e.Outcome, e.Run)
		}
	}
}
