package e2e

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// TestTestNG lists and runs the TestNG fixtures (7.12.0 and 6.14.3):
// `flaky list-tests` gives the default order (each data-provider invocation
// a test, named as Surefire names it, the classes with @BeforeClass or
// dependsOnMethods marked as having class fixtures); an order runs a class's
// methods, and single data-provider invocations, in the requested order,
// except a class with dependsOnMethods, which keeps TestNG's order and passes
// in any requested order; a data-provider method named by itself reports each
// invocation; @BeforeSuite runs once per run; the victims fail after their
// polluters (only the data-provider invocation that needs the polluted
// state); `flaky pollution` names the tests that change static state.
// Exact findings: TestDetectFindsExactlyTheExpectedFindings and
// TestVerifyRunsOrderDependenceAnalysis.
func TestTestNG(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"testng7", "testng6"} {
		t.Run(name, func(t *testing.T) { checkTestNG(t, name) })
	}
}

func checkTestNG(t *testing.T, name string) {
	p := fixture(t, name)
	pkg := "fixture." + name + "."
	var (
		victim    = pkg + "DiscountTest#standardDiscount"
		polluter  = pkg + "OverrideTest#specialDiscount"
		isOpen    = pkg + "RegistryTest#isOpen"
		addsEntry = pkg + "RegistryTest#addsEntry"
		opens     = pkg + "AccountTest#opens"
		withdraws = pkg + "AccountTest#withdraws"
		env       = pkg + "EnvTest#environmentIsReady"
		squares1  = pkg + "SquareTest#squares[1, 1](1)"
		squares3  = pkg + "SquareTest#squares[3, 9](3)"
		formats   = pkg + "FormatTest#formats"
		free      = formats + "[0, free](1)"
		euros     = formats + "[5, 5 EUR](2)"
		switches  = pkg + "SwitchCurrencyTest#switchesToDollars"
	)
	var ids []string
	for _, ti := range checkListing(t, p) {
		ids = append(ids, ti.ID)
		if ti.Engine != "testng" {
			t.Errorf("%s listed with engine %q, want testng", ti.ID, ti.Engine)
		}
	}

	res := runOrders(t, p.launcher, ids,
		[]string{isOpen, addsEntry, squares3, env, withdraws, opens, squares1, env, formats},
		[]string{polluter, victim, switches, free, euros})
	for _, tr := range res[0].Tests {
		if tr.Outcome != launcher.Pass {
			t.Errorf("default order: %s %s\n%s", tr.Test, tr.Outcome, describe(res[0]))
		}
	}
	var ran []string
	for _, tr := range res[1].Tests {
		ran = append(ran, tr.Test)
		if tr.Outcome != launcher.Pass {
			t.Errorf("%s %s: @BeforeClass, @BeforeSuite or dependsOnMethods not kept\n%s", tr.Test, tr.Outcome, describe(res[1]))
		}
	}
	// The requested method order, but TestNG's order inside the dependsOnMethods chain.
	if want := []string{isOpen, addsEntry, squares3, env, opens, withdraws, squares1, env, free, euros}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	for test, want := range map[string]launcher.Outcome{victim: launcher.Fail, switches: launcher.Pass, free: launcher.Pass, euros: launcher.Fail} {
		if got := outcomeOf(res[2], test); got != want {
			t.Errorf("after the polluters: %s %s, want %s\n%s", test, got, want, describe(res[2]))
		}
	}

	// flaky pollution: the tests that change the fixture's static state, and
	// nothing of TestNG's own.
	dir := copyFixture(t, name)
	if out, err := exec.Command(flakyBin(t), "pollution", "--module", dir).CombinedOutput(); exitCode(err) != 1 {
		t.Fatalf("flaky pollution: %v, want exit status 1\n%s", err, out)
	}
	r, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var polluters []string
	for _, f := range r.Findings {
		if f.Kind != report.Polluter {
			continue
		}
		polluters = append(polluters, f.Test)
		for _, st := range f.PollutedState {
			if !strings.HasPrefix(st.Root, pkg) {
				t.Errorf("%s: polluted state %s outside the fixture", f.Test, st.Root)
			}
		}
	}
	slices.Sort(polluters)
	want := []string{pkg + "AccountTest#deposits", opens, withdraws, pkg + "CatalogLoaderTest#loadsCatalog", polluter,
		pkg + "PluginTest#registersPdfExporter", addsEntry, switches}
	if !slices.Equal(polluters, want) {
		t.Errorf("polluters %v, want %v", polluters, want)
	}
}

// TestTestNGChaosAndRepair runs `flaky chaos` on the testng7 and testng6
// fixtures, which finds exactly their API-dependent test, then
// `flaky detect` and `flaky repair --apply --no-llm`, which repair the
// victims (a TestNG @AfterMethod resetting the polluter's state, for a test
// method and for a data-provider invocation) and the brittle test (a
// @BeforeMethod setting the state it needs): after the patches, plain Maven
// passes the brittle test alone and flaky run-order passes the victims
// after their polluters. The NIO test has no symbolic repair. On
// testng-mixed, chaos finds exactly the JUnit 4 test that TestNG's provider
// runs after the TestNG classes.
func TestTestNGChaosAndRepair(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	for _, name := range []string{"testng7", "testng6"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkTestNGChaosAndRepair(t, bin, name)
		})
	}
	t.Run("testng-mixed", func(t *testing.T) {
		t.Parallel()
		dir := copyFixture(t, "testng-mixed")
		checkLocaleFinding(t, bin, dir, "fixture.mixed.TitleTest#upperCasesTitle", "fixture.mixed.Titles")
	})
}

// checkLocaleFinding runs `flaky chaos` in dir and checks that its one
// finding is test under LOCALE, at String#toUpperCase() in class.
func checkLocaleFinding(t *testing.T, bin, dir, test, class string) {
	t.Helper()
	if out, err := exec.Command(bin, "chaos", "--module", dir).CombinedOutput(); exitCode(err) > 1 {
		t.Fatalf("flaky chaos: %v\n%s", err, out)
	}
	r, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s %s %s %d", f.Kind, f.Test, f.Group, len(f.CallSites)))
	}
	if want := []string{"api " + test + " LOCALE 1"}; !slices.Equal(got, want) {
		t.Fatalf("chaos findings %q, want %q", got, want)
	}
	if cs := r.Findings[0].CallSites[0]; cs.Class != class || cs.API != "java.lang.String#toUpperCase()" {
		t.Errorf("call site %+v, want %s's String#toUpperCase()", cs, class)
	}
}

func checkTestNGChaosAndRepair(t *testing.T, bin, name string) {
	dir := copyFixture(t, name)
	pkg := "fixture." + name + "."
	var (
		victim   = pkg + "DiscountTest#standardDiscount"
		polluter = pkg + "OverrideTest#specialDiscount"
		brittle  = pkg + "CatalogReaderTest#readsCatalog"
		euros    = pkg + "FormatTest#formats[5, 5 EUR](2)"
		switches = pkg + "SwitchCurrencyTest#switchesToDollars"
	)
	checkLocaleFinding(t, bin, dir, pkg+"HeadingTest#upperCasesTitle", pkg+"Headings")

	reportPath := filepath.Join(dir, "target", "flaky", "report.json")
	if out, err := exec.Command(bin, "detect", "--module", dir, "--no-invariants", "--strategy", "orders").CombinedOutput(); exitCode(err) > 1 {
		t.Fatalf("flaky detect: %v\n%s", err, out)
	}
	// Exit status 1: the NIO test is left unrepaired.
	if out, err := exec.Command(bin, "repair", "--module", dir, "--apply", "--no-llm").CombinedOutput(); exitCode(err) != 1 {
		t.Fatalf("flaky repair --apply: %v, want exit status 1\n%s", err, out)
	}
	r, err := report.Read(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	repaired := map[string]string{}
	for _, f := range r.Findings {
		if f.Repair != nil && f.Repair.Validated {
			repaired[f.Test] = f.Repair.Kind
		}
	}
	if want := map[string]string{victim: report.RepairReset, euros: report.RepairReset, brittle: report.RepairSetter}; !maps.Equal(repaired, want) {
		t.Errorf("repaired %v, want %v", repaired, want)
	}
	for file, annotation := range map[string]string{"OverrideTest.java": "@AfterMethod", "SwitchCurrencyTest.java": "@AfterMethod", "CatalogReaderTest.java": "@BeforeMethod"} {
		data, err := os.ReadFile(filepath.Join(dir, "src", "test", "java", "fixture", name, file))
		if err != nil || !strings.Contains(string(data), annotation) || !strings.Contains(string(data), "import org.testng.annotations."+annotation[1:]+";") {
			t.Errorf("%s: want a TestNG %s (%v):\n%s", file, annotation, err, data)
		}
	}
	cmd := exec.Command("mvn", "-B", "-q", "test", "-Dtest=CatalogReaderTest")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the repaired brittle test alone fails under plain Maven: %v\n%s", err, tail(string(out)))
	}
	order := filepath.Join(t.TempDir(), "order.txt")
	if err := os.WriteFile(order, []byte(strings.Join([]string{polluter, victim, switches, euros}, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "run-order", "--module", dir, "--order", order).CombinedOutput(); err != nil {
		t.Errorf("the repaired victims fail after their polluters: %v\n%s", err, out)
	}
}

// TestTestNGMixedModule lists the testng-mixed fixture (TestNG and JUnit 4 in
// one module) in the order Surefire's TestNG provider runs it: the TestNG
// classes first, then the JUnit ones, each test with its framework's
// engine. Exact findings across the frameworks:
// TestDetectFindsExactlyTheExpectedFindings and
// TestVerifyRunsOrderDependenceAnalysis.
func TestTestNGMixedModule(t *testing.T) {
	t.Parallel()
	p := fixture(t, "testng-mixed")
	infos := listTestsCLI(t, p.dir)
	var got []string
	for _, ti := range infos {
		got = append(got, ti.ID+" "+ti.Engine)
	}
	want := []string{
		"fixture.mixed.GreetingTest#greets testng", "fixture.mixed.LimitTest#defaultLimit testng",
		"fixture.mixed.AlignTest#padsLeft junit4", "fixture.mixed.RaiseLimitTest#raisesLimit junit4",
		"fixture.mixed.TitleTest#upperCasesTitle junit4",
	}
	if !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q", got, want)
	}
	if ids := launcher.IDs(infos); !slices.Equal(ids, p.expected.Fixture.DefaultOrder) {
		t.Errorf("listed %v, want expected.json's default order %v", ids, p.expected.Fixture.DefaultOrder)
	}
}

// TestTestNGMixedRepair runs `flaky repair --no-llm` on the testng-mixed
// fixture with its expected findings as the report: the TestNG victim's
// polluter is a JUnit 4 test, so the validated patch is a JUnit 4 @After in
// the polluter's class that resets the state (exactly the diff below), and
// the TestNG victim passes after it, run by TestNG after JUnit 4.
func TestTestNGMixedRepair(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "testng-mixed")
	// The report: the expected finding with the values of the polluted state
	// that the root-cause analysis records.
	rep, err := report.Read(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || len(rep.Findings[0].PollutedState) != 1 {
		t.Fatalf("expected.json: findings %+v, want one with one polluted state", rep.Findings)
	}
	rep.Findings[0].PollutedState[0].Passing, rep.Findings[0].PollutedState[0].Failing = "5", "9"
	reportPath := filepath.Join(dir, "target", "flaky", "report.json")
	os.MkdirAll(filepath.Dir(reportPath), 0o755)
	if err := report.Write(reportPath, rep); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(flakyBin(t), "repair", "--module", dir, "--no-llm").CombinedOutput(); err != nil {
		t.Fatalf("flaky repair: %v\n%s", err, out)
	}
	if rep, err = report.Read(reportPath); err != nil {
		t.Fatal(err)
	}
	const victim = "fixture.mixed.LimitTest#defaultLimit"
	if len(rep.Findings) != 1 || rep.Findings[0].Test != victim {
		t.Fatalf("findings %+v, want %s alone", rep.Findings, victim)
	}
	r := rep.Findings[0].Repair
	if r == nil || !r.Validated || r.Kind != report.RepairReset || !slices.Equal(r.Files, []string{"src/test/java/fixture/mixed/RaiseLimitTest.java"}) {
		t.Fatalf("repair %+v, want a validated reset in the JUnit 4 polluter", r)
	}
	patch, err := os.ReadFile(r.Patch)
	if err != nil {
		t.Fatal(err)
	}
	const want = `diff --git a/src/test/java/fixture/mixed/RaiseLimitTest.java b/src/test/java/fixture/mixed/RaiseLimitTest.java
--- a/src/test/java/fixture/mixed/RaiseLimitTest.java
+++ b/src/test/java/fixture/mixed/RaiseLimitTest.java
@@ -3,9 +3,15 @@
 import static org.junit.Assert.assertEquals;
 
 import org.junit.Test;
+import org.junit.After;
 
 /** JUnit 4 polluter: raises the limit and leaves it. */
 public class RaiseLimitTest {
+    @After
+    public void restoreSharedState() {
+        Limits.max = 5;
+    }
+
     @Test
     public void raisesLimit() {
         Limits.max = 9;
`
	if string(patch) != want {
		t.Errorf("patch %s:\n%s\nwant:\n%s", r.Patch, patch, want)
	}
}
