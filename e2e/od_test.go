package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// detectFixtures are the fixtures `flaky detect` must get exactly right.
var detectFixtures = []string{"junit4", "jupiter5", "jupiter6", "mixed-mockito", "mockito-subclass", "jmock", "classfixtures", "junit3", "testng7", "testng6", "testng-mixed"}

// warmDetect are the fixtures whose `flaky detect` explores in warm JVMs
// (--warm): their findings, all confirmed in fresh JVMs, must still be
// exactly expected.json's, the findings of fresh detection (which the other
// fixtures check, and `make bench` compares on every fixture). One JUnit 4,
// one Jupiter and one TestNG fixture; this costs no run of its own.
var warmDetect = map[string]bool{"junit4": true, "jupiter5": true, "testng7": true}

// detectArgs are more `flaky detect` arguments per fixture: manyvictims
// and onestate run with a fixed seed (its README says how its other seeds were checked).
var detectArgs = map[string][]string{"manyvictims": {"--seed", "1"}, "onestate": {"--seed", "1"}}

// detection is one `flaky detect` run on a prepared fixture.
type detection struct {
	p       *prepared
	report  *report.Report
	stdout  string
	stderr  string
	code    int
	elapsed time.Duration
}

var (
	detectionsMu sync.Mutex
	detections   = map[string]*detectionOnce{}
)

type detectionOnce struct {
	once sync.Once
	d    *detection
	err  error
}

// detect runs `flaky detect` with its defaults, but without naming the
// polluted state (TestPollutedState covers that, and the verify tests run
// it) and with the order generators alone (the dataflow tests cover the
// data-dependency analysis), once per fixture and test binary.
func detect(t *testing.T, name string) *detection {
	t.Helper()
	p := fixture(t, name)
	bin := flakyBin(t)
	detectionsMu.Lock()
	o, ok := detections[name]
	if !ok {
		o = &detectionOnce{}
		detections[name] = o
	}
	detectionsMu.Unlock()
	o.once.Do(func() {
		d := &detection{p: p}
		var stdout, stderr bytes.Buffer
		args := []string{"detect", "--module", p.dir, "--no-state", "--no-invariants", "--strategy", "orders"}
		if warmDetect[name] {
			args = append(args, "--warm")
		}
		args = append(args, detectArgs[name]...)
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		d.elapsed = time.Since(start)
		d.stdout, d.stderr, d.code = stdout.String(), stderr.String(), exitCode(err)
		if d.code != 0 && d.code != 1 {
			o.err = fmt.Errorf("flaky detect exited %d: %v\n%s%s", d.code, err, d.stdout, d.stderr)
			return
		}
		d.report, o.err = report.Read(filepath.Join(p.dir, "target", "flaky", "report.json"))
		o.d = d
	})
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.d
}

// groupSet renders groups as a comparable set: each group sorted, then the groups.
func groupSet(groups [][]string) string {
	var parts []string
	for _, g := range groups {
		parts = append(parts, strings.Join(slices.Sorted(slices.Values(g)), " + "))
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, " | ") + "]"
}

// TestDetectFindsExactlyTheExpectedFindings runs `flaky detect` with its
// defaults (with --warm on the warmDetect fixtures) on each fixture and
// compares the report with expected.json field by field: kinds, polluters,
// setters, cleaners, and nothing more.
func TestDetectFindsExactlyTheExpectedFindings(t *testing.T) {
	t.Parallel()
	for _, name := range detectFixtures {
		t.Run(name, func(t *testing.T) { t.Parallel(); checkDetection(t, name, detect(t, name)) })
	}
}

// TestDetectFindsEveryVictimOfOnePolluter runs `flaky detect` with its
// defaults (seed 1) on manyvictims: 42 victims in four classes of one
// polluter of one static registry, with one cleaner, and 3 victims of a
// second polluter of another static set. Each must be a confirmed,
// minimised finding with its polluter and cleaner, within the default
// budget, nothing unconfirmed.
func TestDetectFindsEveryVictimOfOnePolluter(t *testing.T) {
	t.Parallel()
	d := detect(t, "manyvictims")
	checkDetection(t, "manyvictims", d)
	if cov := d.report.Stats.Coverage; cov != nil && len(cov.Unminimised) > 0 {
		t.Errorf("not minimised: %v", cov.Unminimised)
	}
}

// TestDetectMinimisesOneStateOnce runs `flaky detect` with its defaults
// (seed 1) on onestate: 40 victims of one static field, one polluter, one
// cleaner. Each must be a confirmed, minimised finding with its polluter
// and cleaner, and the JVMs the report records must stay within what issue
// 56's design costs: the detection orders; confirmation's runs of each
// victim alone (k in all, one of them detection's) and of its failing and
// passing orders; one search for the state's polluters and one for its
// cleaners (delta debugging over the suite: a few runs per halving, and k
// confirmations each); the batches (the polluter before all the victims
// and the control, the cleaner between them, k runs each); and one short
// order per victim. A search per victim costs about ten runs more each.
func TestDetectMinimisesOneStateOnce(t *testing.T) {
	t.Parallel()
	d := detect(t, "onestate")
	checkDetection(t, "onestate", d)
	cov := d.report.Stats.Coverage
	if cov == nil {
		t.Fatal("no coverage")
	}
	if len(cov.Unminimised) > 0 {
		t.Errorf("not minimised: %v", cov.Unminimised)
	}
	detection := cov.Orders - cov.Generators["confirm"] - cov.Generators["minimise"]
	victims, tests, k := len(d.report.Findings), d.report.Stats.Tests, 3
	halvings := bits.Len(uint(tests))
	confirmation := (k-1)*victims + 2*2*2
	searches := 2 * (4*halvings + k)
	batches := 3*k + 3
	if bound := detection + confirmation + searches + batches + victims; cov.Orders > bound || cov.JVMs > bound {
		t.Errorf("%d orders, %d JVMs: want at most %d (%d of detection, %d of confirmation, %d for the searches, %d in batches, %d short orders): %v",
			cov.Orders, cov.JVMs, bound, detection, confirmation, searches, batches, victims, cov.Generators)
	}
	t.Logf("%d orders, %d JVMs: %v", cov.Orders, cov.JVMs, cov.Generators)
}

// checkDetection compares a detection's report with the fixture's
// expected.json field by field (kinds, polluters, setters, cleaners, and
// nothing more), and checks its coverage and console.
func checkDetection(t *testing.T, name string, d *detection) {
	t.Helper()
	t.Logf("flaky detect on %s: %s, %d orders\n%s", name, d.elapsed.Round(100*time.Millisecond), d.report.Stats.Orders, d.stdout)
	want := map[string]finding{}
	for _, f := range d.p.expected.Findings {
		want[f.Test+" "+f.Kind] = f
	}
	if wantCode := min(len(want), 1); d.code != wantCode {
		t.Errorf("exit status %d, want %d", d.code, wantCode)
	}
	for _, f := range d.report.Findings {
		w, ok := want[f.Test+" "+string(f.Kind)]
		if !ok {
			t.Errorf("unexpected finding: %s %s (%s)", f.Kind, f.Test, f.Message)
			continue
		}
		delete(want, f.Test+" "+string(f.Kind))
		for _, field := range []struct {
			name      string
			got, want [][]string
		}{{"polluters", f.Polluters, w.Polluters}, {"setters", f.Setters, w.Setters}, {"cleaners", f.Cleaners, w.Cleaners}} {
			if g, w := groupSet(field.got), groupSet(field.want); g != w {
				t.Errorf("%s %s: %s %s, want %s", f.Kind, f.Test, field.name, g, w)
			}
		}
		if n := len(f.FailingOrder); n == 0 || f.FailingOrder[n-1] != f.Test {
			t.Errorf("%s %s: failing order %v does not end with the test", f.Kind, f.Test, f.FailingOrder)
		}
		if n := len(f.PassingOrder); n == 0 || f.PassingOrder[n-1] != f.Test {
			t.Errorf("%s %s: passing order %v does not end with the test", f.Kind, f.Test, f.PassingOrder)
		}
		if f.Reproduce == "" || f.ReproduceRunOrder == "" || len(f.Evidence) == 0 || (f.Kind != report.NIO && f.Kind != report.NOD && f.Message == "") {
			t.Errorf("%s %s: incomplete finding %+v", f.Kind, f.Test, f)
		}
	}
	for _, w := range want {
		t.Errorf("missing finding: %s %s", w.Kind, w.Test)
	}
	cov := d.report.Stats.Coverage
	if warmDetect[name] && (cov == nil || cov.WarmOrders == 0 || cov.WarmJVMs == 0) {
		t.Errorf("detect --warm ran no order in a warm JVM: coverage %+v", cov)
	}
	// A warm JVM's problems (threads left running, an early stop, class
	// loaders of finished orders still reachable) are notes on stderr.
	for _, line := range strings.Split(d.stderr, "\n") {
		if strings.Contains(line, "note: warm: ") {
			t.Errorf("detect --warm: %s", line)
		}
	}
	if cov == nil || cov.BudgetExhausted || cov.Rounds == 0 || cov.PairsCovered == 0 || cov.TestsAlone == 0 || len(cov.Unconfirmed) > 0 {
		t.Errorf("coverage %+v", cov)
	}
	lines := strings.Split(strings.TrimSpace(d.stdout), "\n")
	if len(lines) != len(d.report.Findings)+2 {
		t.Errorf("console: want one line per finding, a summary and the report path:\n%s", d.stdout)
	}
}

// TestDetectReproduceCommandsReproduce runs the reproduce commands of the
// detect reports as printed: every `flaky run-order` command with the built
// binary, and the plain Maven command, in a copy of the fixture with the flaky
// profile added, of each fixture's first finding (its framework and Surefire)
// and of one finding per kind of everyKindFixture (the command's form depends
// on the kind, not on the framework; each is a whole Maven build).
// everyKindFixture is the detect fixture whose reproduce commands
// TestDetectReproduceCommandsReproduce runs with Maven for every kind of
// finding: it has one of each kind order-dependence analysis reports.
const everyKindFixture = "jupiter5"

func TestDetectReproduceCommandsReproduce(t *testing.T) {
	t.Parallel()
	bin := flakyBin(t)
	for _, name := range detectFixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := detect(t, name)
			if len(d.report.Findings) == 0 {
				return
			}
			// The plain-Maven commands run as printed, in a copy of the fixture
			// (they start with `cd MODULE && flaky init &&`: the fixtures lack the profile).
			// Every run-order command runs (one JVM each); the Maven command, a whole
			// build, for the fixture's first finding, and everyKindFixture's first
			// of each kind.
			mavenDir := copyFixture(t, name)
			mavenRan := map[report.Kind]bool{}
			for _, f := range d.report.Findings {
				withMaven := len(mavenRan) == 0 || name == everyKindFixture && !mavenRan[f.Kind]
				mavenRan[f.Kind] = true
				t.Run(string(f.Kind)+"/"+f.Test[strings.LastIndexByte(f.Test, '.')+1:], func(t *testing.T) {
					args, err := shellquote.Split(f.ReproduceRunOrder)
					if err != nil || len(args) < 2 || args[0] != "flaky" {
						t.Fatalf("run-order command %q: %v", f.ReproduceRunOrder, err)
					}
					out, err := exec.Command(bin, args[1:]...).CombinedOutput()
					if code := exitCode(err); code != 1 || !failedIn(string(out), f.Test) {
						t.Errorf("%s exited %d, want 1 with %s failing:\n%s", f.ReproduceRunOrder, code, f.Test, out)
					}
					if !withMaven {
						return
					}

					prefix := "cd " + shellquote.Join(d.p.dir) + " && flaky init && mvn "
					if !strings.HasPrefix(f.Reproduce, prefix) {
						t.Fatalf("maven command %q does not start with %q", f.Reproduce, prefix)
					}
					command := "cd " + shellquote.Join(mavenDir) + strings.TrimPrefix(f.Reproduce, "cd "+shellquote.Join(d.p.dir))
					reports := filepath.Join(mavenDir, "target", "surefire-reports")
					os.RemoveAll(reports)
					run := exec.Command("sh", "-c", command+" -B -Dstyle.color=never")
					run.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
					mo, err := run.CombinedOutput()
					mout, code := string(mo), exitCode(err)
					if code == 0 {
						t.Fatalf("%s passed:\n%s", f.Reproduce, tail(mout))
					}
					cases, err := surefire.ReadReports(reports)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.ContainsFunc(cases, func(c surefire.TestCase) bool { return sameTest(c, f.Test) && c.Outcome != surefire.Pass }) {
						t.Errorf("%s: %s did not fail; Surefire reports %+v\n%s", f.Reproduce, f.Test, cases, tail(mout))
					}
				})
			}
		})
	}
}

// failedIn reports whether run-order's text output shows test failing
// (a data-provider invocation's id has spaces in its parameters).
func failedIn(out, test string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && (f[0] == "FAIL" || f[0] == "ERROR") && strings.HasPrefix(strings.Join(f[2:], " "), test) {
			return true
		}
	}
	return false
}

// sameTest reports whether a Surefire test case is the test id (JUnit
// Platform names may carry "()" or an invocation suffix).
func sameTest(c surefire.TestCase, id string) bool {
	class, method := testid.Split(id)
	return c.Class == class && strings.HasPrefix(c.Name, method)
}

// TestVerifyRunsOrderDependenceAnalysis runs `mvn -Pflaky verify` on single-module
// fixtures: the verify driver finds the expected order-dependent tests in the
// recorded fork environment and reports each once, also in the Surefire-format
// reports; the fork record has the pom's system properties and environment
// variables and none of the build's other variables; each OD finding carries
// its confirmed polluted state.
//
// jupiter6 runs with -Dflaky.strategy=orders (no data dependencies), junit4
// with the default strategy, both: the data dependencies first, then the
// order generators, with the same findings. junit4 runs with a fixed seed
// (-Dflaky.seed), and `flaky detect` with that seed then finds exactly
// what verify found.
func TestVerifyRunsOrderDependenceAnalysis(t *testing.T) {
	t.Parallel()
	// jupiter6 runs on Surefire 3.5.4, junit4 on Surefire 2.22.2, junit3
	// (JUnit 3.8.1 alone) on Surefire 3.5.4, testng7 (TestNG 7.12.0) on
	// Surefire 3.5.4 and testng-mixed (TestNG 6.14.3 and JUnit 4) on
	// Surefire 3.5.4. TestVerifyOnOtherMavens verifies testng6 (TestNG
	// 6.14.3 on Surefire 2.22.2) the same way, with Maven 3.9.
	for _, c := range []struct {
		name, strategy string
		sameAsDetect   bool
	}{{"jupiter6", "orders", false}, {"junit4", "", true}, {"junit3", "", false}, {"testng7", "", false}, {"testng-mixed", "orders", false}} {
		t.Run(c.name, func(t *testing.T) { t.Parallel(); verifyFindsExpected(t, c.name, c.strategy, c.sameAsDetect) })
	}
}

// checkVerifyFindings compares the findings of a verify report with the
// fixture's expected ones: kind, test, polluters, state-setters, cleaners.
func checkVerifyFindings(t *testing.T, r *report.Report, e expected) {
	t.Helper()
	var got, want []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s %s polluters=%s setters=%s cleaners=%s", f.Kind, f.Test, groupSet(f.Polluters), groupSet(f.Setters), groupSet(f.Cleaners)))
	}
	for _, f := range e.Findings {
		want = append(want, fmt.Sprintf("%s %s polluters=%s setters=%s cleaners=%s", f.Kind, f.Test, groupSet(f.Polluters), groupSet(f.Setters), groupSet(f.Cleaners)))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		data, _ := json.MarshalIndent(r.Findings, "", " ")
		t.Errorf("verify findings\n got %q\nwant %q\n%s", got, want, data)
	}
}

func verifyFindsExpected(t *testing.T, name, strategy string, sameAsDetect bool) {
	verifyFindsExpectedWith(t, "mvn", copyFixture(t, name), strategy, sameAsDetect)
}

// verifyFindsExpectedWith runs `flaky init` and `mvn -Pflaky verify` with the
// Maven launcher mvnBin on dir, a copy of a fixture, and checks the findings
// against its expected.json, the reports and the fork record.
func verifyFindsExpectedWith(t *testing.T, mvnBin, dir, strategy string, sameAsDetect bool) {
	needsTools(t)
	e := readExpected(t, dir)
	flakyInit(t, dir)
	const secret = "do-not-record-this-token"
	// No -Dflaky.budget: verify sizes it from the fork's run measured on
	// this machine (and grows it for its confirmations); a fixed one can
	// run out on a busy machine and drop findings.
	args := []string{"-Pflaky", "verify", "-Dflaky.gate=off"}
	if strategy != "" {
		args = append(args, "-Dflaky.strategy="+strategy)
	}
	if sameAsDetect {
		args = append(args, "-Dflaky.seed="+pipelineSeed)
	}
	// A secret in the build's environment must not reach the fork record.
	out, code := mvnRunWith(t, mvnBin, dir, []string{"FLAKY_E2E_CI_TOKEN=" + secret}, args...)
	if code != 0 {
		t.Fatalf("mvn -Pflaky verify with the gate off failed:\n%s", tail(out))
	}
	r, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The strategy reaches verify: data dependencies ran unless it is orders.
	if df := r.Stats.Dataflow; (strategy == "orders") != (df == nil) || df != nil && (df.ReferenceRuns != 1 || df.Manifest == 0 || r.Stats.Coverage.Generators["dataflow"] != df.Runs) {
		t.Errorf("strategy %q: dataflow stats %+v, coverage %+v", strategy, df, r.Stats.Coverage)
	} else if df != nil {
		t.Logf("data dependencies: %d JVM runs, %d ms", df.Runs, df.DurationMs)
	}
	checkVerifyFindings(t, r, e)
	if cov := r.Stats.Coverage; cov == nil || cov.Rounds == 0 || cov.TestsAlone == 0 {
		t.Errorf("coverage %+v", cov)
	}
	// The verify report names and confirms the polluted state of each OD finding.
	for _, w := range e.Findings {
		if len(w.PollutedState) == 0 {
			continue
		}
		i := slices.IndexFunc(r.Findings, func(f report.Finding) bool { return f.Test == w.Test && string(f.Kind) == w.Kind })
		if i < 0 {
			continue
		}
		// The roots are exact; the paths inside a root that differ depend on
		// the passing order the analysis found (a cache warmed by earlier tests
		// holds more entries), so they are not compared.
		if got, want := confirmedRoots(r.Findings[i].PollutedState), confirmedRoots(w.PollutedState); !slices.Equal(got, want) {
			t.Errorf("%s %s: confirmed polluted roots %q, want %q (all: %+v)", w.Kind, w.Test, got, want, r.Findings[i].PollutedState)
		}
	}
	if !strings.Contains(out, "order dependence") {
		t.Errorf("the build output does not show the analysis:\n%s", tail(out))
	}

	// Every finding is a flaky test in the Surefire-format reports.
	cases, err := surefire.ReadReports(filepath.Join(dir, "target", "flaky", "surefire"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if !slices.ContainsFunc(cases, func(c surefire.TestCase) bool { return c.ID() == f.Test && c.Flakes > 0 }) {
			t.Errorf("%s %s is not a flaky test in target/flaky/surefire: %+v", f.Kind, f.Test, cases)
		}
	}

	// The fork record: the pom's system properties (also JVM-namespace ones) and
	// environment variables, not the rest of the build's environment.
	records, err := surefire.ReadForkRecords(filepath.Join(dir, "target"))
	if err != nil || len(records) != 1 {
		t.Fatalf("fork records %v, %v", records, err)
	}
	rec := records[0]
	if rec.SystemProperties["fixture.greeting"] != "hello" || rec.SystemProperties["java.awt.headless"] != "true" {
		t.Errorf("system properties %v lack the pom's systemPropertyVariables", rec.SystemProperties)
	}
	if _, ok := rec.SystemProperties["java.io.tmpdir"]; ok {
		t.Errorf("system properties %v have the JVM's own java.io.tmpdir", rec.SystemProperties)
	}
	if rec.Environment["FIXTURE_REGION"] != "eu-west" {
		t.Errorf("environment %v lacks the pom's environmentVariables", rec.Environment)
	}
	if data, _ := os.ReadFile(rec.File); strings.Contains(string(data), secret) {
		t.Errorf("%s records the build's environment (a secret)", rec.File)
	}

	if sameAsDetect {
		detectFindsTheSame(t, dir, strategy, r)
	}
}

// TestDetectRunsClashingTestsAlone checks that a test binding a fixed port,
// which collides when two of flaky's JVMs run it at once, is not reported
// (the exact findings of the jmock fixture say so) because the runs it
// clashed in were rerun alone, and that the report names it.
func TestDetectRunsClashingTestsAlone(t *testing.T) {
	t.Parallel()
	d := detect(t, "jmock")
	const beacon = "fixture.jmock.BeaconTest#listensOnItsPort"
	if c := d.report.Stats.Coverage; c == nil || !slices.Contains(c.Serial, beacon) {
		t.Errorf("the report's coverage does not list %s as run alone after a clash: %+v\n%s", beacon, c, d.stderr)
	}
	for _, f := range d.report.Findings {
		if f.Test == beacon {
			t.Errorf("%s reported as %s: %s", beacon, f.Kind, f.Message)
		}
	}
}

// confirmedRoots lists the kinds and roots of the confirmed items, sorted
// and each once.
func confirmedRoots(items []report.StateItem) []string {
	var out []string
	for _, it := range items {
		if key := it.Kind + " " + it.Root; it.Confirmed && !slices.Contains(out, key) {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}
