package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDetectSaysWhatDidNotRun runs `flaky detect` on the exits fixture,
// whose six tests of ExitsInBeforeClassTest never run (System.exit in
// @BeforeClass) beside four that pass (issue 53, item 13: detect said
// "1 flaky of 10 tests" and nothing of the six). The count says that 6 did
// not run, the console, report.json and summary.md name them, and detect
// exits 1: no clean verdict for tests that never ran.
func TestDetectSaysWhatDidNotRun(t *testing.T) {
	t.Parallel()
	d := detect(t, "exits")
	exits := d.p.expected.Fixture.Exits
	if d.code != 1 {
		t.Errorf("detect exited %d, want 1\n%s%s", d.code, d.stdout, d.stderr)
	}
	if !strings.Contains(d.stdout, "0 flaky of 10 tests (6 did not run):") {
		t.Errorf("the count does not say that 6 tests did not run:\n%s", d.stdout)
	}
	console := "did not run (crashed, timed out or got no result in every run: nothing was judged of them): 6 tests, "
	line := ""
	for l := range strings.Lines(d.stdout) {
		if strings.HasPrefix(l, console) {
			line = l
		}
	}
	for _, id := range exits {
		if !strings.Contains(line, id) {
			t.Errorf("the console's line %q does not name %s", line, id)
		}
	}
	if !strings.Contains(d.stderr, "6 of 10 tests did not run in any order") {
		t.Errorf("stderr does not say why the exit status is 1:\n%s", d.stderr)
	}
	cov := d.report.Stats.Coverage
	if cov == nil || !slices.Equal(slices.Sorted(slices.Values(cov.NeverRan)), slices.Sorted(slices.Values(exits))) {
		t.Errorf("report.json's neverRan = %v, want %v", cov, exits)
	}
	if len(d.report.Findings) > 0 {
		t.Errorf("findings %v, want none", d.report.Findings)
	}
	md, err := os.ReadFile(filepath.Join(d.p.dir, "target", "flaky", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## flaky: no new flaky tests, but 6 tests did not run") || !strings.Contains(string(md), "`"+exits[0]+"`") {
		t.Errorf("summary.md does not say what did not run:\n%s", md)
	}
}
