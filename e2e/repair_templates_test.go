package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// templateFinding is what the repair-templates fixture's api finding of a
// test must get: the strategy that makes it fail, and the one file its
// patch changes with a line the patch adds there
// (testdata/repair-templates/README.md).
type templateFinding struct {
	strategy, file, added string
}

// templateFindings are the repair-templates fixture's api findings, by test.
var templateFindings = map[string]templateFinding{
	"fixture.templates.StampsTest#stampsInUtc": {"TIMEZONE", "src/main/java/fixture/templates/Stamps.java",
		"return at.atZone(ZoneOffset.UTC).getHour();"},
	"fixture.templates.DrawTest#drawsBelowTheMaximum": {"RANDOM_MAX", "src/test/java/fixture/templates/DrawTest.java",
		"private final Random rnd = new Random(42L);"},
	"fixture.templates.TagsTest#listsTheTags": {"ITERATION_ORDER", "src/test/java/fixture/templates/TagsTest.java",
		`assertEquals("[a, b, c]", Tags.of("c", "a", "b").stream().sorted().collect(Collectors.toList()).toString());`},
	"fixture.templates.CountsTest#countsInInsertionOrder": {"ITERATION_ORDER", "src/test/java/fixture/templates/CountsTest.java",
		"Map<String, Integer> counts = new LinkedHashMap<>();"},
	"fixture.templates.MailerTest#sendsInBackground": {"ASYNC_DELAY", "src/test/java/fixture/templates/MailerTest.java",
		`while (!mailer.sentTo("ada") && System.nanoTime() - deadline < 0) {`},
	"fixture.templates.MailerTest#confirmsTheSend": {"ASYNC_DELAY", "src/test/java/fixture/templates/MailerTest.java",
		"sent.await(30, TimeUnit.SECONDS);"},
}

// templateStrategies are the strategies that find the fixture's findings.
func templateStrategies() []string {
	var args []string
	for _, f := range templateFindings {
		if !slices.Contains(args, f.strategy) {
			args = append(args, "--strategy", f.strategy)
		}
	}
	return args
}

// TestRepairTemplates runs `flaky chaos` with only the strategies the
// repair-templates fixture needs, then `flaky repair --no-llm`: each api
// finding (a default time zone in the code under test, an unseeded Random
// the test owns, a set's text compared in its iteration order, the test's
// own HashMap compared as text, a fixed sleep before an assertion on a
// background task's work, a tight deadline on a latch in an assertion)
// gets a validated template patch that
// changes exactly the expected file and adds the expected line. On a fresh
// copy each diff passes `git apply --check` and applies, keeps every test
// and assertion of each file it changes (on the parsed sources), and makes
// the test pass alone under its strategy; with all applied the unperturbed
// suite passes.
func TestRepairTemplates(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	dir := copyFixture(t, "repair-templates")
	if out, err := exec.Command(bin, append([]string{"chaos", "--module", dir}, templateStrategies()...)...).CombinedOutput(); exitCode(err) != 1 {
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
	applied := map[string]bool{}
	for _, f := range got.Findings {
		want, ok := templateFindings[f.Test]
		if !ok || f.Kind != report.API || f.Repair == nil || !f.Repair.Validated || f.Repair.Kind != report.RepairTemplate {
			t.Errorf("%s %s: repair %+v, want a validated template", f.Kind, f.Test, f.Repair)
			continue
		}
		if !slices.Equal(f.Repair.Files, []string{want.file}) {
			t.Errorf("%s: patch changes %v, want only %s", f.Test, f.Repair.Files, want.file)
		}
		checkTemplatePatch(t, bin, ed, clean, f, want, applied)
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
// changes, and the finding's test passes under its strategy. A diff that
// findings share (their patches change one file) is applied and checked
// once; applied holds those applied so far.
func checkTemplatePatch(t *testing.T, bin string, ed *editor.Editor, clean string, f report.Finding, want templateFinding, applied map[string]bool) {
	t.Helper()
	if !applied[f.Repair.Patch] {
		applied[f.Repair.Patch] = true
		applyTemplatePatch(t, ed, clean, f)
	}
	if is, err := os.ReadFile(filepath.Join(clean, want.file)); err != nil || !slices.Contains(trimmedLines(string(is)), want.added) {
		t.Errorf("%s: %s after its patch lacks the line %q (%v)", f.Test, want.file, want.added, err)
	}
	order := filepath.Join(t.TempDir(), "order.txt")
	os.WriteFile(order, []byte(f.Test+"\n"), 0o644)
	out, err := exec.Command(bin, "run-order", "--module", clean, "--order", order, "--chaos", want.strategy).CombinedOutput()
	if err != nil {
		t.Errorf("%s under %s after its patch: %v, want it passing\n%s", f.Test, want.strategy, err, out)
	}
}

// applyTemplatePatch applies a finding's patch to clean (after git apply
// --check) and checks that every test file it changes keeps its meaning.
func applyTemplatePatch(t *testing.T, ed *editor.Editor, clean string, f report.Finding) {
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
		checkMeaningKeptBy(t, ed, was, string(is), func(f editor.Fact) editor.Fact {
			f.Text = "" // the assertion as printed: its actual value's expression may change
			return f
		})
	}
}

// trimmedLines are a text's lines without their leading and trailing blanks.
func trimmedLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	return out
}
