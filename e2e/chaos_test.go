package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// chaosExpected is testdata/chaos/expected.json: one api finding per latent
// test, and the tests that must never be reported.
type chaosExpected struct {
	Findings []report.Finding `json:"findings"`
	Fixture  struct {
		Stable []string `json:"stable"`
		Seeded []string `json:"seeded"`
	} `json:"fixture"`
}

func readChaosExpected(t *testing.T, dir string) chaosExpected {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e chaosExpected
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("parsing %s/expected.json: %v", dir, err)
	}
	if len(e.Findings) == 0 || len(e.Fixture.Stable) == 0 {
		t.Fatalf("%s/expected.json lists no findings or stable tests", dir)
	}
	return e
}

// combinedSet is the strategy set a combined run needs to hit every
// expected finding: per group the expected strategy, else the default.
func (e chaosExpected) combinedSet(t *testing.T) []chaos.Strategy {
	t.Helper()
	byGroup := map[string]string{}
	for _, s := range chaos.DefaultCombined {
		byGroup[s.Group] = s.ID
	}
	for _, f := range e.Findings {
		byGroup[f.Group] = f.Strategy
	}
	var ids []string
	for _, id := range byGroup {
		ids = append(ids, id)
	}
	set, err := chaos.Parse(ids...)
	if err != nil || len(set) != len(byGroup) {
		t.Fatalf("expected.json: strategies %q: %v (one per group?)", ids, err)
	}
	return set
}

// checkAPIFindings compares reported api findings with the expected ones
// field by field (the call sites as sets), and checks that no stable or
// seeded-Random test is reported.
func checkAPIFindings(t *testing.T, got []report.Finding, e chaosExpected) {
	t.Helper()
	byTest := map[string]report.Finding{}
	for _, f := range got {
		if f.Kind != report.API {
			continue
		}
		if _, dup := byTest[f.Test]; dup {
			t.Errorf("%s reported twice", f.Test)
		}
		byTest[f.Test] = f
	}
	for _, want := range e.Findings {
		f, ok := byTest[want.Test]
		if !ok {
			t.Errorf("%s (%s) not reported", want.Test, want.Strategy)
			continue
		}
		delete(byTest, want.Test)
		if f.Strategy != want.Strategy || f.Group != want.Group {
			t.Errorf("%s: strategy %s (group %s), want %s (group %s)\n%s", want.Test, f.Strategy, f.Group, want.Strategy, want.Group, f.Message)
		}
		if g, w := sortedSites(f.CallSites), sortedSites(want.CallSites); !slices.Equal(g, w) {
			t.Errorf("%s: call sites\n got %+v\nwant %+v", want.Test, g, w)
		}
		if f.Message == "" || f.ReproduceRunOrder == "" || f.Reproduce == "" || len(f.Evidence) < 2 {
			t.Errorf("%s: message %q, reproduce %q, %d evidence entries", want.Test, f.Message, f.ReproduceRunOrder, len(f.Evidence))
		}
	}
	for test, f := range byTest {
		kind := "unexpected"
		if slices.Contains(e.Fixture.Stable, test) {
			kind = "stable"
		} else if slices.Contains(e.Fixture.Seeded, test) {
			kind = "seeded-Random"
		}
		t.Errorf("%s test %s reported with %s: %s", kind, test, f.Strategy, report.FirstLine(f.Message))
	}
}

func sortedSites(sites []report.CallSite) []report.CallSite {
	out := slices.Clone(sites)
	slices.SortFunc(out, func(a, b report.CallSite) int {
		return cmp.Or(cmp.Compare(a.Class, b.Class), cmp.Compare(a.Line, b.Line), cmp.Compare(a.API, b.API), cmp.Compare(a.Method, b.Method), cmp.Compare(a.File, b.File))
	})
	return out
}

// TestChaosCombined runs `flaky chaos` in combined mode as a user would:
// every latent test is reported with its own strategy and call sites, no
// stable or seeded test is, the report keeps other findings, and the
// reproduce command fails the test while the same order unperturbed passes.
func TestChaosCombined(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "chaos")
	e := readChaosExpected(t, dir)
	bin := flakyBin(t)

	// An earlier report of another analysis keeps its findings.
	other := report.Finding{Test: "fixture.Other#odVictim", Kind: report.ODVictim, Reproduce: "mvn ..."}
	if err := report.Write(filepath.Join(dir, "target", "flaky", "report.json"), &report.Report{Module: "chaos", Findings: []report.Finding{other}, Runs: 7}); err != nil {
		t.Fatal(err)
	}
	// Three workers: the combined run's JVM and the unperturbed one leave one
	// free from the start, so the combined run is split (the other chaos
	// tests run without --workers, with spare JVMs while cores are idle).
	args := []string{"--workers", "3", "chaos", "--module", dir, "--mode", "combined", "--strategy", chaos.Join(e.combinedSet(t))}
	rep, out := chaosReport(t, bin, dir, args...)
	checkAPIFindings(t, rep.Findings, e)
	if !slices.ContainsFunc(rep.Findings, func(f report.Finding) bool { return f.Test == other.Test && f.Kind == report.ODVictim }) {
		t.Error("the earlier od-victim finding was dropped")
	}
	if c := rep.Stats.Chaos; c == nil || c.Mode != "combined" || c.Runs < 2 || rep.Runs != 7+c.Runs {
		t.Errorf("stats: runs %d, chaos %+v", rep.Runs, rep.Stats.Chaos)
	}
	// The combined run spread over the free worker: another JVM ran its
	// end, and the findings above are still exact.
	if c := rep.Stats.Chaos; c != nil && (len(c.PerStrategy) == 0 || c.PerStrategy[0].Name != "combined" || c.PerStrategy[0].JVMs < 2) {
		t.Errorf("the combined run was not split over the free workers: %+v", c.PerStrategy)
	}
	for _, f := range e.Findings {
		if !strings.Contains(string(out), f.Test) {
			t.Errorf("output does not name %s:\n%s", f.Test, out)
		}
	}

	// The first finding's reproduce command fails it; its order unperturbed passes.
	var f report.Finding
	for _, rf := range rep.Findings {
		if rf.Kind == report.API && rf.Test == e.Findings[0].Test {
			f = rf
		}
	}
	if f.ReproduceRunOrder == "" {
		t.Fatal("no reproduce command to check")
	}
	words, err := shellquote.Split(f.ReproduceRunOrder)
	if err != nil || len(words) < 2 || words[0] != "flaky" || !slices.Contains(words, "--chaos") {
		t.Fatalf("reproduce command %q: %v", f.ReproduceRunOrder, err)
	}
	out, err = exec.Command(bin, words[1:]...).Output()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "perturbed call sites "+f.Test+" hit") {
		t.Errorf("reproduce exited %d, want 1 and the call sites printed:\n%s%s", code, out, stderrOf(err))
	}
	i := slices.Index(words, "--chaos")
	plain := slices.Delete(slices.Clone(words[1:]), i-1, i+1)
	if out, err := exec.Command(bin, plain...).Output(); err != nil {
		t.Errorf("the reproduce order without --chaos fails: %v\n%s%s", err, out, stderrOf(err))
	}

	// --explain reruns it in its reproduce command's order with the perturbation log: the perturbed call,
	// original and perturbed value.
	order, err := surefire.ReadOrderFile(words[slices.Index(words, "--order")+1])
	if err != nil {
		t.Fatal(err)
	}
	explain := exec.Command(bin, "chaos", "--module", dir, "--explain", f.Test)
	var explainErr strings.Builder
	explain.Stderr = &explainErr
	out, err = explain.Output()
	site := f.CallSites[0]
	call := fmt.Sprintf("%s.%s(%s:%d) %s: ", site.Class, site.Method, site.File, site.Line, site.API)
	if err != nil || !strings.Contains(string(out), "perturbed calls, in order:\n  "+call) {
		t.Errorf("flaky chaos --explain %s (%v) does not log the call at %s:\n%s%s", f.Test, err, call, out, explainErr.String())
	}
	if rerun := fmt.Sprintf("rerunning %s (order of %d)", f.Test, len(order)); !strings.Contains(explainErr.String(), rerun) || strings.Contains(explainErr.String(), "chaos: , ") {
		t.Errorf("flaky chaos --explain %s: want %q (the reproduce order %q) and a labelled progress line:\n%s", f.Test, rerun, order, explainErr.String())
	}
}

// TestChaosSingle runs single mode through the library: every latent test
// is attributed to its strategy with its call sites; no stable or seeded
// test is reported.
//
// The budget and the run timeout are sized from an unperturbed run of the
// suite on this machine (measureAnalysisLimits): a fixed 10 minutes ran
// out beside 16 spinners after 13 of the 15 strategies.
func TestChaosSingle(t *testing.T) {
	t.Parallel()
	p := fixture(t, "chaos")
	e := readChaosExpected(t, p.dir)
	tests := listTests(t, p)
	// p.launcher's, with the run timeout sized to the machine.
	opts := launcher.Options{CDSDir: launcher.CDSCache()}
	lim := measureAnalysisLimits(t, p.setup, opts, tests, len(chaos.Strategies)+1, 0)
	opts.RunTimeout = lim.Run
	l, err := newLauncher(p.setup, javaBin(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := lim.context(0)
	defer cancel()
	res, err := chaos.Run(ctx, l, chaos.Config{
		Tests:    tests,
		Mode:     chaos.Single,
		Settings: chaos.Settings{Roots: chaos.RootsFor(p.setup.ModuleDir, p.setup.ClassesDir, p.setup.TestClassesDir)},
		Budget:   lim.Budget,
		Log:      logs.Printf(t.Logf),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.BudgetExhausted || len(res.Strategies) != len(chaos.Strategies) {
		t.Fatalf("ran %s (budget exhausted: %v), want every strategy", chaos.Join(res.Strategies), res.BudgetExhausted)
	}
	findings, err := chaos.ReportFindings(res.Findings, chaos.ReportOptions{OrderDir: t.TempDir(), ModuleDir: p.dir})
	if err != nil {
		t.Fatal(err)
	}
	checkAPIFindings(t, findings, e)
	if len(res.FailUnperturbed) > 0 || len(res.Unconfirmed) > 0 {
		t.Errorf("fail unperturbed %q, unconfirmed %q; want none", res.FailUnperturbed, res.Unconfirmed)
	}
}

// TestChaosClock runs `flaky chaos` on testdata/chaos-clock as a user
// would, with the defaults (ITERATION_ORDER's passes included, which find
// nothing there) and in single mode: exactly the wall-clock
// assertion on a 200 ms operation (TIME) and the tight read timeout on a slow
// local server (NETWORK) are reported, with their call sites; deadlines a
// slow machine could not break (a poller's own 10 s, a 30 s call timeout on
// a 50 ms exchange, a token checked on another thread) are not.
func TestChaosClock(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	for _, mode := range []string{"", "single"} {
		t.Run(cmp.Or(mode, "default"), func(t *testing.T) {
			t.Parallel()
			dir := copyFixture(t, "chaos-clock")
			e := readChaosExpected(t, dir)
			args := []string{"chaos", "--module", dir}
			if mode != "" {
				args = append(args, "--mode", mode)
				args = append(args, oneSeed...)
			}
			rep, out := chaosReport(t, bin, dir, args...)
			checkAPIFindings(t, rep.Findings, e)
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
}

// mockitoTests are the fixtures' tests that use Mockito (inline and subclass mock makers).
var mockitoTests = map[string][]string{
	"mixed-mockito":    {"fixture.mixed.GreeterJUnit4Test#", "fixture.mixed.GreeterJupiterTest#"},
	"mockito-subclass": {"fixture.subclass.CheckoutServiceTest#", "fixture.subclass.MockMakerTest#"},
}

// TestChaosKeepsMockitoWorking runs the Mockito tests of the Mockito
// fixtures with every strategy's agent attached: they all still pass. The
// strategies run in layers, one strategy per group each (see
// strategyLayers), so that four JVMs cover them all.
func TestChaosKeepsMockitoWorking(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"mixed-mockito", "mockito-subclass"} {
		t.Run(name, func(t *testing.T) {
			p := fixture(t, name)
			var order []string
			for _, id := range listTests(t, p) {
				if slices.ContainsFunc(mockitoTests[name], func(prefix string) bool { return strings.HasPrefix(id, prefix) }) {
					order = append(order, id)
				}
			}
			if len(order) < 3 {
				t.Fatalf("found only %q as Mockito tests", order)
			}
			settings := chaos.Settings{Roots: chaos.RootsFor(p.setup.ModuleDir, p.setup.ClassesDir, p.setup.TestClassesDir)}
			jobs := []launcher.Job{{Order: order}}
			layers := strategyLayers()
			for _, s := range layers {
				opts, err := settings.AgentOptions(s)
				if err != nil {
					t.Fatal(err)
				}
				jobs = append(jobs, launcher.Job{Order: order, RunOptions: launcher.RunOptions{AgentOptions: opts}})
			}
			ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
			defer cancel()
			results, err := p.launcher.RunJobs(ctx, jobs)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range results[0].Tests {
				if tr.Outcome != launcher.Pass {
					t.Fatalf("unperturbed, %s: %s %s", tr.Test, tr.Outcome, report.FirstLine(tr.Message))
				}
			}
			for i, s := range layers {
				r := results[i+1]
				for _, tr := range r.Tests {
					if tr.Outcome != launcher.Pass {
						t.Errorf("%s: %s %s %s", chaos.Join(s), tr.Test, tr.Outcome, report.FirstLine(tr.Message))
					}
				}
				if len(r.Tests) != len(order) {
					t.Errorf("%s: %d results for %d tests:\n%s", chaos.Join(s), len(r.Tests), len(order), describe(r))
				}
			}
		})
	}
}

// TestChaosInVerify runs mvn -Pflaky verify with -Dflaky.chaos=combined (the
// default set, whose groups are those of every expected finding, ITERATION_ORDER's
// TagsTest included: issue #55 point 5) on the chaos fixture: the build
// fails on the new api findings, which the report lists;
// their reproduce commands carry the build's own properties (not flaky's),
// and fail the test as printed.
func TestChaosInVerify(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "chaos")
	e := readChaosExpected(t, dir)
	flakyInit(t, dir)
	if set := e.combinedSet(t); chaos.Join(set) != chaos.Join(chaos.DefaultCombined) {
		t.Fatalf("the fixture's findings need %s, not the default set", chaos.Join(set))
	}
	out, code := mvnRun(t, dir, "-Pflaky", "clean", "verify", "-Dflaky.budget=0", "-Dflaky.chaos=combined", "-Dfixture.marker=kept")
	if code == 0 {
		t.Fatalf("mvn -Pflaky verify passed with latent api tests:\n%s", tail(out))
	}
	rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(out))
	}
	checkAPIFindings(t, rep.Findings, e)
	for _, f := range e.Findings {
		if !strings.Contains(out, "NEW   api") || !strings.Contains(out, f.Test) {
			t.Errorf("the build output does not name %s as NEW api:\n%s", f.Test, tail(out))
			break
		}
	}

	// A finding's plain-Maven reproduce command fails the test in the Surefire fork.
	want := e.Findings[0].Test
	i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.Test == want && f.Kind == report.API })
	if i < 0 {
		return
	}
	words, err := shellquote.Split(rep.Findings[i].Reproduce)
	if err != nil || len(words) < 3 || words[0] != "mvn" {
		t.Fatalf("Maven reproduce command %q: %v", rep.Findings[i].Reproduce, err)
	}
	if !slices.Contains(words, "-Dfixture.marker=kept") || slices.Contains(words, "-Dflaky.budget=0") || strings.Count(rep.Findings[i].Reproduce, "-Pflaky") != 1 {
		t.Errorf("Maven reproduce command %q: want the build's -Dfixture.marker=kept, flaky's own properties left out, -Pflaky once", rep.Findings[i].Reproduce)
	}
	out, code = mvnRun(t, dir, words[1:]...)
	class, member := testid.Split(want)
	if code == 0 || !strings.Contains(out, class+"."+member+" -- Time elapsed") {
		t.Errorf("%s passed under its Maven reproduce command (exit %d):\n%s", want, code, tail(out))
	}
	// The agent runs without a driver there: nothing of it may reach the fork's stdout channel.
	if strings.Contains(out, "Corrupted") {
		t.Errorf("the Maven reproduce run warns of a corrupted channel:\n%s", tail(out))
	}
}

// strategyLayers partitions every strategy into combinable sets: the i-th
// set holds the i-th strategy of each group that has one.
func strategyLayers() [][]chaos.Strategy {
	var layers [][]chaos.Strategy
	seen := map[string]int{}
	for _, s := range chaos.Strategies {
		i := seen[s.Group]
		seen[s.Group]++
		if i == len(layers) {
			layers = append(layers, nil)
		}
		layers[i] = append(layers[i], s)
	}
	return layers
}

// listTests lists a prepared fixture's tests in their default order.
func listTests(t *testing.T, p *prepared) []string {
	t.Helper()
	infos, err := p.launcher.List(context.Background(), launcher.Selection{TestClassesDir: p.setup.TestClassesDir, Includes: p.setup.Includes, Excludes: p.setup.Excludes})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(infos))
	for i, ti := range infos {
		ids[i] = ti.ID
	}
	return ids
}

// chaosReport runs `flaky` with args (a chaos command on the module in
// dir) with bin, expects exit 1 (findings) and returns the module's report
// and the command's output.
func chaosReport(t *testing.T, bin, dir string, args ...string) (*report.Report, []byte) {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if code := exitCode(err); code != 1 {
		t.Fatalf("flaky %s exited %d (%v), want 1\n%s%s", strings.Join(args, " "), code, err, out, stderrOf(err))
	}
	rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return rep, out
}

// oneSeed runs ITERATION_ORDER under its first seed only: for single-mode
// runs of every strategy on a fixture without a test that depends on an
// iteration order, where the two further seeds (chaos.DefaultSeeds) would
// run the whole suite twice more to find nothing. The default-mode runs
// keep the default seeds (ITERATION_ORDER's own pass and the further ones
// run there on the workers the combined run leaves free, and must find
// nothing on those fixtures either), and TestChaosIterationOrder and
// TestChaosExpectedException check what the further seeds find.
var oneSeed = []string{"--seeds", "1"}

// chaosModesExact runs `flaky chaos` on a copy of fixture in the default
// (combined) and in single mode (with single's arguments after args), each
// a parallel subtest, and checks that both report exactly the fixture's
// expected findings.
func chaosModesExact(t *testing.T, bin, fixture string, single []string, args ...string) {
	t.Helper()
	for _, mode := range [][]string{nil, {"--mode", "single"}} {
		t.Run(strings.Join(append([]string{"default"}, mode...), " "), func(t *testing.T) {
			t.Parallel()
			dir := copyFixture(t, fixture)
			e := readChaosExpected(t, dir)
			args := append(append([]string{"chaos", "--module", dir}, args...), mode...)
			if mode != nil {
				args = append(args, single...)
			}
			rep, out := chaosReport(t, bin, dir, args...)
			checkAPIFindings(t, rep.Findings, e)
			if len(rep.Findings) != len(e.Findings) {
				t.Errorf("%d findings, want %d:\n%s", len(rep.Findings), len(e.Findings), out)
			}
		})
	}
}

// libraryChaosRun runs one strategy in single mode through the library on
// fixture's tests with the agent parameter param (which lifts a default
// rule, so the fixture's false alarms show), and returns the result with
// the fixture's expectations. The test timeout that cuts the hangs is
// three unperturbed runs of the suite on this machine, at least
// testTimeout (see measureAnalysisLimits), as are the run timeout and the
// budget: a fixed one fired on a busy machine before the first test began.
func libraryChaosRun(t *testing.T, name, strategy, param string, testTimeout time.Duration) (*chaos.Result, chaosExpected) {
	t.Helper()
	p := fixture(t, name)
	e := readChaosExpected(t, p.dir)
	tests := listTests(t, p)
	lim := measureAnalysisLimits(t, p.setup, launcher.Options{}, tests, 2, testTimeout)
	l, err := newLauncher(p.setup, javaBin(), launcher.Options{RunTimeout: lim.Run, TestTimeout: lim.Test})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	strategies, err := chaos.Parse(strategy)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := lim.context(0)
	defer cancel()
	res, err := chaos.Run(ctx, l, chaos.Config{
		Tests:      tests,
		Mode:       chaos.Single,
		Strategies: strategies,
		Settings: chaos.Settings{
			Roots:  chaos.RootsFor(p.setup.ModuleDir, p.setup.ClassesDir, p.setup.TestClassesDir),
			Params: []string{param},
		},
		Budget: lim.Budget,
		Log:    logs.Printf(t.Logf),
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, e
}

// stderrOf returns a failed command's captured standard error.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return fmt.Sprintf("stderr:\n%s", ee.Stderr)
	}
	return ""
}

// modernExpected is testdata/chaos-modern/expected.json's fixture part:
// per latent test the strategies that make it fail, and per test the
// strategies whose failures of it are dismissed.
type modernExpected struct {
	Fixture struct {
		FailsUnder map[string][]string `json:"failsUnder"`
		Dismissed  map[string][]string `json:"dismissed"`
		// MayBeDismissed are dismissals that depend on timing (TIME_ROUNDING
		// fails a polling test only when no rounding step falls within
		// the framework's timeout).
		MayBeDismissed map[string][]string `json:"mayBeDismissed"`
	} `json:"fixture"`
}

// TestChaosModern runs single mode with every strategy on the chaos-modern
// fixture (asynchronous waits, java.time, time zones, Gson walking a
// HashMap with chaos.iteration.scope=all, JDK 17 random ranges): each
// latent test is reported with its strategy and both call sites, fails
// under exactly the expected strategies, and the tests that wait properly,
// seed their randomness, poll the clock from several threads, sample by
// rejection (a hang under RANDOM_MAX only) or meet JUnit's own timeout only
// under TIME_SLOW/TIME_ROUNDING/SLEEP_INCREASE are never reported.
func TestChaosModern(t *testing.T) {
	t.Parallel()
	p := fixture(t, "chaos-modern")
	e := readChaosExpected(t, p.dir)
	var m modernExpected
	data, err := os.ReadFile(filepath.Join(p.dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	// BillingTest#billsThisMonth fails wherever today is a month's last
	// day: unperturbed on that day here (it is no API finding then), and
	// under TIMEZONE (Pacific/Chatham, up to 13:45 ahead of UTC) from when
	// that day begins there.
	started := time.Now()
	if lastDayOfMonth(started, time.Local) {
		t.Skip("today is a month's last day: BillingTest#billsThisMonth fails unperturbed")
	}
	// The test timeout, the run timeout and the budget are sized from an
	// unperturbed run of the suite on this machine (measureAnalysisLimits):
	// a fixed 8 s test timeout ended every perturbed JVM beside 16
	// spinners before its first test began.
	tests := listTests(t, p)
	lim := measureAnalysisLimits(t, p.setup, launcher.Options{}, tests, len(chaos.Strategies)+1, 8*time.Second)
	l, err := newLauncher(p.setup, javaBin(), launcher.Options{RunTimeout: lim.Run, TestTimeout: lim.Test})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := lim.context(0)
	defer cancel()
	res, err := chaos.Run(ctx, l, chaos.Config{
		Tests: tests,
		Mode:  chaos.Single,
		Settings: chaos.Settings{
			Roots:  chaos.RootsFor(p.setup.ModuleDir, p.setup.ClassesDir, p.setup.TestClassesDir),
			Params: []string{"iteration.scope=all"},
		},
		Budget: lim.Budget,
		Log:    logs.Printf(t.Logf),
	})
	if err != nil {
		t.Fatal(err)
	}
	findings, err := chaos.ReportFindings(res.Findings, chaos.ReportOptions{OrderDir: t.TempDir(), ModuleDir: p.dir})
	if err != nil {
		t.Fatal(err)
	}
	checkAPIFindings(t, findings, e)
	for _, f := range res.Findings {
		var failed []string
		for _, ev := range f.Evidence {
			if ev.Run != "unperturbed" && ev.Outcome.Failed() && !slices.Contains(failed, ev.Run) {
				failed = append(failed, ev.Run)
			}
		}
		want := m.Fixture.FailsUnder[f.Test]
		if f.Test == "fixture.modern.BillingTest#billsThisMonth" {
			chatham, err := time.LoadLocation("Pacific/Chatham")
			if err != nil {
				t.Fatal(err)
			}
			before, after := lastDayOfMonth(started, chatham), lastDayOfMonth(time.Now(), chatham)
			if before != after {
				continue // the day changed there during the run: either is right
			}
			if before {
				want = append(slices.Clone(want), "TIMEZONE")
			}
		}
		if !slices.Equal(sorted(failed), sorted(want)) {
			t.Errorf("%s fails under %q, want %q", f.Test, failed, want)
		}
	}
	dismissed := map[string][]string{}
	for _, d := range res.Dismissed {
		dismissed[d.Test] = append(dismissed[d.Test], d.Strategy)
	}
	for test, want := range m.Fixture.Dismissed {
		got := slices.DeleteFunc(slices.Clone(dismissed[test]), func(s string) bool { return slices.Contains(m.Fixture.MayBeDismissed[test], s) })
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("%s dismissed under %q, want %q (and maybe %q)", test, dismissed[test], want, m.Fixture.MayBeDismissed[test])
		}
	}
}

// lastDayOfMonth reports whether t falls on the last day of a month in loc.
func lastDayOfMonth(t time.Time, loc *time.Location) bool {
	day := t.In(loc)
	return day.AddDate(0, 0, 1).Month() != day.Month()
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
