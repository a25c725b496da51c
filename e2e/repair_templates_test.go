package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// templateFindings are the repair-templates fixture's api findings and
// the strategy that makes each fail (testdata/repair-templates/README.md).
var templateFindings = map[string]string{
	"fixture.templates.StampsTest#stampsInUtc":        "TIMEZONE",
	"fixture.templates.DrawTest#drawsBelowTheMaximum": "RANDOM_MAX",
}

// TestRepairTemplates runs `flaky chaos` with only the strategies the
// repair-templates fixture needs, then `flaky repair --no-llm`: each api
// finding (a default time zone in the code under test, an unseeded Random
// the test owns) gets a validated template patch. On a fresh copy each
// diff passes `git apply --check` and applies, keeps every test and
// assertion of each file it changes (on the parsed sources), and makes the
// test pass alone under its strategy; with both applied the unperturbed
// suite passes.
func TestRepairTemplates(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	dir := copyFixture(t, "repair-templates")
	if out, err := exec.Command(bin, "chaos", "--module", dir, "--strategy", "TIMEZONE", "--strategy", "RANDOM_MAX").CombinedOutput(); exitCode(err) != 1 {
		t.Fatalf("flaky chaos: %v, want exit status 1 (findings)\n%s", err, out)
	}
	if out, err := exec.Command(bin, "repair", "--module", dir, "--no-llm").CombinedOutput(); err != nil {
		t.Fatalf("flaky repair: %v\n%s", err, out)
	}
	got, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) != len(templateFindings) {
		t.Errorf("%d findings, want %d", len(got.Findings), len(templateFindings))
	}
	ed, err := editor.StartEditor(context.Background(), javaBin())
	if err != nil {
		t.Fatal(err)
	}
	defer ed.Close()
	clean := copyFixture(t, "repair-templates")
	for _, f := range got.Findings {
		strategy, ok := templateFindings[f.Test]
		if !ok || f.Kind != report.API || f.Repair == nil || !f.Repair.Validated || f.Repair.Kind != report.RepairTemplate {
			t.Errorf("%s %s: repair %+v, want a validated template", f.Kind, f.Test, f.Repair)
			continue
		}
		checkTemplatePatch(t, bin, ed, clean, f, strategy)
	}
	list, err := exec.Command(bin, "list-tests", "--module", clean).Output()
	if err != nil {
		t.Fatalf("flaky list-tests: %v", err)
	}
	suite := filepath.Join(t.TempDir(), "suite.txt")
	os.WriteFile(suite, list, 0o644)
	if res := runOrderOutcomes(t, bin, clean, suite); len(res) != len(templateFindings) || !allPass(res) {
		t.Errorf("after the patches, the suite's order gave %v, want its tests passing", res)
	}
}

// checkTemplatePatch applies a finding's patch to the fresh copy clean and
// checks it there: it applies, keeps the meaning of every test file it
// changes,
// and the finding's test passes under its strategy.
func checkTemplatePatch(t *testing.T, bin string, ed *editor.Editor, clean string, f report.Finding, strategy string) {
	t.Helper()
	before := map[string]string{}
	for _, rel := range f.Repair.Files {
		data, err := os.ReadFile(filepath.Join(clean, rel))
		if err != nil {
			t.Fatal(err)
		}
		before[rel] = string(data)
	}
	for _, args := range [][]string{{"apply", "--check", f.Repair.Patch}, {"apply", f.Repair.Patch}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = clean
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: git %s on a fresh copy: %v\n%s", f.Test, strings.Join(args, " "), err, out)
		}
	}
	for rel, was := range before {
		if !strings.Contains(filepath.ToSlash(rel), "src/test/") {
			continue // the code under test: no test meaning to keep
		}
		is, err := os.ReadFile(filepath.Join(clean, rel))
		if err != nil {
			t.Fatal(err)
		}
		checkMeaningKept(t, ed, was, string(is))
	}
	order := filepath.Join(t.TempDir(), "order.txt")
	os.WriteFile(order, []byte(f.Test+"\n"), 0o644)
	out, err := exec.Command(bin, "run-order", "--module", clean, "--order", order, "--chaos", strategy).CombinedOutput()
	if err != nil {
		t.Errorf("%s under %s after its patch: %v, want it passing\n%s", f.Test, strategy, err, out)
	}
}
