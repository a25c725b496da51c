package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// resetRoot is one polluted root of the repair-resets fixture: the
// polluter that leaves it, the victims it fails, and the reset a
// maintainer would write in the polluter's tear-down.
type resetRoot struct {
	kind, root string
	polluter   string   // test id
	file       string   // the polluter's source, relative to the module
	victims    []string // test ids
	tearDown   []string // the tear-down's statements after the repair, in order
}

// resetRoots are the fixture's polluted roots (testdata/repair-resets/README.md).
var resetRoots = []resetRoot{
	{"static-field", "fixture.resets.Handlers.BY_NAME", "fixture.resets.RegisterAuditTest#registersAudit", "RegisterAuditTest",
		[]string{"fixture.resets.AuditLookupTest#auditUnknown", "fixture.resets.HandlerCountTest#noHandlers"},
		[]string{`Handlers.unregister("audit");`}},
	{"static-field", "fixture.resets.Visits.served", "fixture.resets.VisitorTest#servesTwoVisits", "VisitorTest",
		[]string{"fixture.resets.FirstVisitTest#noVisitsYet"}, []string{"Visits.served = new AtomicInteger();"}},
	{"system-property", "resets.mode", "fixture.resets.SwitchModeTest#goesOffline", "SwitchModeTest",
		[]string{"fixture.resets.ModeDefaultTest#onlineByDefault"}, []string{`System.clearProperty("resets.mode");`}},
	{"file", "${java.io.tmpdir}/fixture-resets.lock", "fixture.resets.TakeLockTest#testTakesLock", "TakeLockTest",
		[]string{"fixture.resets.LockAbsentTest#testNoLockHeld"},
		[]string{`new File(System.getProperty("java.io.tmpdir"), "fixture-resets.lock").delete();`, "super.tearDown();"}},
	// NIO tests (#57 point 2): each is its own polluter and only victim, its
	// failing order itself twice; the reset goes into its own tear-down.
	{"static-field", "fixture.resets.Outbox.SENT", "fixture.resets.OutboxTest#sendsOneMail", "OutboxTest",
		[]string{"fixture.resets.OutboxTest#sendsOneMail"}, []string{"Outbox.SENT.clear();"}},
	{"system-property", "resets.retries", "fixture.resets.RetryBudgetTest#spendsFirstRetry", "RetryBudgetTest",
		[]string{"fixture.resets.RetryBudgetTest#spendsFirstRetry"}, []string{`System.clearProperty("resets.retries");`}},
	{"file", "${java.io.tmpdir}/fixture-resets-receipt.txt", "fixture.resets.ReceiptTest#writesNewReceipt", "ReceiptTest",
		[]string{"fixture.resets.ReceiptTest#writesNewReceipt"}, []string{`new File(System.getProperty("java.io.tmpdir"), "fixture-resets-receipt.txt").delete();`}},
}

// nio tells whether a root is an NIO test's own: its polluter is its victim.
func (r resetRoot) nio() bool { return len(r.victims) == 1 && r.victims[0] == r.polluter }

// TestRepairResets runs `flaky detect` and then `flaky repair` on the
// repair-resets fixture, whose polluters leave a static registry entry, a
// static counter, a system property and a file behind with no cleaner in
// the suite (one polluter is a JUnit 3 TestCase without a tearDown): detect
// names and confirms each polluted root, and repair gives one validated
// reset per root, in the polluter's tear-down (created: @After, or JUnit
// 3's tearDown calling super.tearDown() last), which all its victims share.
// Three NIO tests (a static collection, a system property, a file) each get
// the reset of the state their second run finds in their own tear-down:
// their failing order is the test twice in one JVM.
// Each diff applies on its own to a fresh copy of the fixture, where the
// failing orders of its victims fail before and pass after it and the
// suite's order passes, and it keeps every test and assertion of the file
// it changes (compared on the parsed sources).
func TestRepairResets(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	dir := copyFixture(t, "repair-resets")

	start := time.Now()
	out, err := exec.Command(bin, "detect", "--module", dir).CombinedOutput()
	if code := exitCode(err); code != 1 {
		t.Fatalf("flaky detect exited %d, want 1 (flaky tests found):\n%s", code, out)
	}
	t.Logf("flaky detect: %s", time.Since(start).Round(time.Second))
	reportPath := filepath.Join(dir, "target", "flaky", "report.json")
	checkDetectedRoots(t, reportPath)

	start = time.Now()
	out, err = exec.Command(bin, "repair", "--module", dir, "--no-llm").CombinedOutput()
	if err != nil {
		t.Fatalf("flaky repair: %v\n%s", err, out)
	}
	t.Logf("flaky repair: %s\n%s", time.Since(start).Round(time.Second), out)
	got, err := report.Read(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	patches := resetPatches(t, got)
	if diffs, _ := filepath.Glob(filepath.Join(dir, "target", "flaky", "repair", "*.diff")); len(diffs) != len(resetRoots) {
		t.Errorf("diffs %v, want one per polluted root (%d)", diffs, len(resetRoots))
	}

	ed, err := editor.StartEditor(context.Background(), javaBin())
	if err != nil {
		t.Fatal(err)
	}
	defer ed.Close()
	for _, root := range resetRoots {
		if patches[root.root] == "" {
			continue
		}
		t.Run(root.file, func(t *testing.T) { checkResetPatch(t, bin, ed, root, patches[root.root]) })
	}
}

// checkDetectedRoots checks that detect found exactly the fixture's
// victims, each with its polluter and its confirmed polluted root.
func checkDetectedRoots(t *testing.T, reportPath string) {
	t.Helper()
	rep, err := report.Read(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]resetRoot{}
	for _, r := range resetRoots {
		for _, v := range r.victims {
			want[v] = r
		}
	}
	for _, f := range rep.Findings {
		r, ok := want[f.Test]
		kind := report.ODVictim
		if r.nio() {
			kind = report.NIO
		}
		if !ok || f.Kind != kind {
			t.Errorf("detect found %s %s, want only the fixture's victims and NIO tests", f.Kind, f.Test)
			continue
		}
		delete(want, f.Test)
		if r.nio() {
			if len(f.Polluters) != 0 {
				t.Errorf("%s: polluters %v, want none (NIO)", f.Test, f.Polluters)
			}
		} else if len(f.Polluters) != 1 || !slices.Equal(f.Polluters[0], []string{r.polluter}) {
			t.Errorf("%s: polluters %v, want [[%s]]", f.Test, f.Polluters, r.polluter)
		}
		if len(f.PollutedState) != 1 || f.PollutedState[0].Kind != r.kind || f.PollutedState[0].Root != r.root || !f.PollutedState[0].Confirmed {
			t.Errorf("%s: polluted state %+v, want the confirmed %s %s", f.Test, f.PollutedState, r.kind, r.root)
		}
	}
	for v := range want {
		t.Errorf("detect did not report the victim %s", v)
	}
}

// resetPatches checks that every finding has a validated reset of its
// polluter's file and that the victims of one root share one diff, a diff
// of its own: it returns each root's diff.
func resetPatches(t *testing.T, got *report.Report) map[string]string {
	t.Helper()
	byTest := map[string]*report.Finding{}
	for i := range got.Findings {
		byTest[got.Findings[i].Test] = &got.Findings[i]
	}
	patches := map[string]string{}
	roots := map[string]string{} // diff -> root
	for _, root := range resetRoots {
		file := "src/test/java/fixture/resets/" + root.file + ".java"
		for _, v := range root.victims {
			f := byTest[v]
			if f == nil || f.Repair == nil || !f.Repair.Validated || f.Repair.Kind != report.RepairReset || f.Repair.Patch == "" || !slices.Equal(f.Repair.Files, []string{file}) {
				t.Errorf("%s: repair %+v, want a validated reset of %s", v, f, file)
				continue
			}
			switch p := patches[root.root]; {
			case p == "":
				patches[root.root] = f.Repair.Patch
			case p != f.Repair.Patch:
				t.Errorf("%s: patch %s, want the one its root's other victims share, %s", v, f.Repair.Patch, p)
			}
		}
		if other, ok := roots[patches[root.root]]; ok && patches[root.root] != "" {
			t.Errorf("roots %s and %s share the diff %s, want one each", other, root.root, patches[root.root])
		}
		roots[patches[root.root]] = root.root
	}
	return patches
}

// checkResetPatch applies one root's diff to a fresh copy of the fixture
// (git apply --check first): its victims fail after the polluter before
// and pass after (an NIO test: its second run in a row); the suite's order passes; the polluter's tear-down holds
// the reset; and the file keeps every test and assertion.
func checkResetPatch(t *testing.T, bin string, ed *editor.Editor, root resetRoot, patch string) {
	clean := copyFixture(t, "repair-resets")
	rel := filepath.Join("src", "test", "java", "fixture", "resets", root.file+".java")
	before, err := os.ReadFile(filepath.Join(clean, rel))
	if err != nil {
		t.Fatal(err)
	}
	failing := filepath.Join(t.TempDir(), "failing.txt")
	var order []string
	for _, v := range root.victims {
		order = append(order, root.polluter, v)
	}
	os.WriteFile(failing, []byte(strings.Join(order, "\n")+"\n"), 0o644)
	if res := runOrderOutcomes(t, bin, clean, failing); !victimsFail(res, root.victims) {
		t.Fatalf("before the patch, the failing order gave %v, want its victims failing", res)
	}
	for _, args := range [][]string{{"apply", "--check", patch}, {"apply", patch}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = clean
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s on a fresh copy: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	after, err := os.ReadFile(filepath.Join(clean, rel))
	if err != nil {
		t.Fatal(err)
	}
	checkMeaningKept(t, ed, string(before), string(after))
	checkTearDown(t, ed, string(after), root)
	if res := runOrderOutcomes(t, bin, clean, failing); !allPass(res) {
		t.Errorf("after the patch, the failing order gave %v, want every test passing", res)
	}
	list, err := exec.Command(bin, "list-tests", "--module", clean).Output()
	if err != nil {
		t.Fatalf("flaky list-tests: %v", err)
	}
	suite := filepath.Join(t.TempDir(), "suite.txt")
	os.WriteFile(suite, list, 0o644)
	if res := runOrderOutcomes(t, bin, clean, suite); len(res) != 12 || !allPass(res) {
		t.Errorf("after the patch, the suite's order gave %v, want its 12 tests passing", res)
	}
}

// runOrderOutcomes runs an order file with flaky run-order --json and
// returns each test's outcome.
func runOrderOutcomes(t *testing.T, bin, module, order string) map[string]string {
	t.Helper()
	out, err := exec.Command(bin, "run-order", "--module", module, "--order", order, "--json").Output()
	if code := exitCode(err); code != 0 && code != 1 {
		t.Fatalf("flaky run-order exited %d: %v\n%s", code, err, out)
	}
	var results []struct{ Test, Outcome string }
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("run-order --json: %v\n%s", err, out)
	}
	res := map[string]string{}
	for _, r := range results {
		res[r.Test] = r.Outcome
	}
	return res
}

func victimsFail(res map[string]string, victims []string) bool {
	for _, v := range victims {
		if res[v] != "fail" {
			return false
		}
	}
	return len(res) > 0
}

func allPass(res map[string]string) bool {
	for _, o := range res {
		if o != "pass" {
			return false
		}
	}
	return len(res) > 0
}

// checkMeaningKept compares the facts of a test file (the editor's
// test-meaning, on the parsed source) before and after a patch: every
// test, assertion, expected exception, timeout, rule and import stays, as
// many of each, and nothing but imports is added (no disabling annotation,
// assumption, swallowing catch, return or assertion of its own).
func checkMeaningKept(t *testing.T, ed *editor.Editor, before, after string) {
	t.Helper()
	checkMeaningKeptBy(t, ed, before, after, func(f editor.Fact) editor.Fact { return f })
}

// checkMeaningKeptBy is checkMeaningKept with facts compared by what key
// keeps of them: a template may change how an assertion's actual value is
// computed (its text), not the fact's kind, place or key (the assertion
// call, what encloses it, its literal, constant and variable arguments,
// the literals and operators of the others).
func checkMeaningKeptBy(t *testing.T, ed *editor.Editor, before, after string, key func(editor.Fact) editor.Fact) {
	t.Helper()
	was, err := ed.TestMeaning(before)
	if err != nil {
		t.Fatal(err)
	}
	is, err := ed.TestMeaning(after)
	if err != nil {
		t.Fatal(err)
	}
	count := func(facts []editor.Fact) map[editor.Fact]int {
		n := map[editor.Fact]int{}
		for _, f := range facts {
			n[key(f)]++
		}
		return n
	}
	wasN, isN := count(was), count(is)
	asserts := 0
	for f, n := range wasN {
		if f.Kind == "assertion" {
			asserts += n
		}
		if isN[f] != n && (f.Kind != "import" || isN[f] < n) {
			t.Errorf("%s %s `%s`: %d after the patch, want %d", f.Kind, f.Where, f.Text+f.Key, isN[f], n)
		}
	}
	for f, n := range isN {
		if n > wasN[f] && f.Kind != "import" {
			t.Errorf("the patch adds %s %s `%s`", f.Kind, f.Where, f.Text+f.Key)
		}
	}
	if asserts == 0 {
		t.Errorf("no assertion found in the file before the patch: facts %v", was)
	}
}

// checkTearDown checks that the polluter's class has one tear-down (an
// @After method, or JUnit 3's tearDown) and that it holds the root's reset.
func checkTearDown(t *testing.T, ed *editor.Editor, src string, root resetRoot) {
	t.Helper()
	info, err := ed.Info(src, root.file)
	if err != nil {
		t.Fatal(err)
	}
	downs := info.Lifecycle("After")
	if m := info.Method("tearDown"); m != nil {
		downs = append(downs, *m)
	}
	if len(downs) != 1 || !slices.Equal(downs[0].Body, root.tearDown) {
		t.Errorf("%s: tear-down(s) %+v, want one holding %q", root.file, downs, root.tearDown)
	}
}
