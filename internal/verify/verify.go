// Package verify is the driver behind the verify phase of `mvn -Pflaky verify`:
// it reads what the flaky Surefire provider recorded about the module's fork,
// replicates that environment in JVMs it launches itself, reruns the recorded
// order, runs the analysis pipeline (internal/pipeline) on each fork, writes
// the module's reports and applies the gate.
package verify

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/buildinfo"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/gate/baseline"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/output/publish"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// DefaultReruns is how often the recorded order is rerun when Config.Reruns is 0.
const DefaultReruns = 3

// DefaultTestTimeout bounds one test of verify's runs when
// Config.TestTimeout is 0: a test that hangs (perturbed or not) is cut
// there, and the rest of the order goes on in a fresh JVM, instead of the
// whole run waiting for the run timeout. The Surefire provider's default
// (dev.flaky.surefire.TestTimeout) is the same, as is every other
// command's (launcher.DefaultTestTimeout).
const DefaultTestTimeout = launcher.DefaultTestTimeout

// Config says what to verify and how.
type Config struct {
	ModuleDir string // the module's base directory
	BuildDir  string // its build directory (target)
	Root      string // the project root, where .flaky/baseline.json lives
	Module    string // the module's name in reports; default: its path relative to Root
	Gate      bool   // fail on flaky tests the baseline does not accept
	Reruns    int    // reruns of the recorded order; 0 means DefaultReruns
	Rounds    int    // exploration orders of the order-dependence analysis; 0: its default, negative: none
	// Budget bounds the order-dependence analysis per fork; 0 means its default, negative turns it off.
	Budget time.Duration
	Java   string // java executable; default: the one the fork used
	// MavenArgs are the Maven profiles and properties (-Pa,b -Dk=v) of the
	// build that ran verify, which the findings' reproduce commands carry.
	MavenArgs []string
	Workers   int // parallel JVMs; 0 means one per core
	// AutoWorkers lets the chaos analysis run more JVMs than Workers while
	// those running wait, not keeping cores busy (chaos.Config.AutoWorkers).
	AutoWorkers bool
	// TestTimeout bounds one test of every run; 0 means the provider's
	// timeout in the fork (-Dflaky.testTimeout) or, for a fork that
	// recorded none, DefaultTestTimeout; negative means none.
	TestTimeout time.Duration
	Out         io.Writer
	Chaos       ChaosConfig // API perturbation (see chaos.go); off by default
	Repair      bool        // propose validated patches for the findings (see repair.go)
	// Strategy is how OD tests are searched for: dataflow.StrategyDataflow,
	// StrategyOrders or StrategyBoth (the default, also for "").
	Strategy string
	// Seed drives the order generators' random choices; 0 means a new one
	// (the time) for each fork, or with a Change, the change's (from its
	// commit).
	Seed int64
	// Change, when set, judges only the tests a change can affect (see
	// pipeline.ChangeOptions); nil judges every test.
	Change *pipeline.ChangeOptions
	// Confirmations is how many runs of an order must agree before a
	// finding is reported; 0 means od.DefaultConfirmations.
	Confirmations int
	// DataflowReverse adds a reference run of the reversed order to the
	// data dependencies.
	DataflowReverse bool
	// NoState skips naming and confirming the polluted state of OD findings.
	NoState bool
	// NoInvariants skips inferring the problem invariants of OD findings.
	NoInvariants bool
	// Progress hears the analyses' phases and runs; nil shows nothing.
	Progress *progress.Tracker
	// Debug prints the analyses' lines about single items (each data
	// dependency, victim, finding that could not be analysed) too.
	Debug bool
	// Name is the module's name on the console: default Module, or for
	// the root module (".") its artifactId.
	Name string
	// Knowledge is the knowledge folder the order-dependence analysis
	// records what it learned in (see knowledge.Dir); "" means the
	// default, under flaky's cache directory.
	Knowledge string
}

// Result is what Run found and decided.
type Result struct {
	Report   *report.Report
	Verdict  baseline.Verdict
	Failing  []string // tests that failed in every run: real failures, not flaky ones
	Pass     bool     // the build may pass
	Warnings []string
}

// runOutcome is one test's outcome in one run.
type runOutcome struct {
	run       string
	orderFile string // of the order the run ran
	outcome   launcher.Outcome
	message   string
	ftype     string
	stack     string
}

// rerun reruns fork rec's recorded order (rerunsOf) and then its tests
// that failed in every run (confirmFailing), adding their outcomes to
// outcomes, in a launcher it returns open with the reruns and how many
// confirmation runs it made; when there is nothing to rerun it starts no
// launcher (no JVM) and returns nil.
func rerun(ctx context.Context, cfg Config, jars agent.Jars, rec *surefire.ForkRecord, orderDir, orderFile string, outcomes map[string][]runOutcome) (*launcher.Launcher, []*launcher.Result, int, error) {
	order := rec.TestIDs()
	n := rerunsOf(cfg)
	if n == 0 && !slices.ContainsFunc(order, func(t string) bool { return failsEveryRun(outcomes[t]) }) {
		return nil, nil, 0, nil
	}
	l, err := launcher.New(envOf(rec, cfg.Java), jars, launcherOptions(cfg, rec))
	if err != nil {
		return nil, nil, 0, err
	}
	// Reruns of one order: a JVM that ends early (a hang cut at the
	// test timeout, a crash) does not keep the tests after it from a result.
	jobs := make([]launcher.Job, n)
	for i := range jobs {
		jobs[i] = launcher.Job{Order: order, RunOptions: launcher.RunOptions{Resume: true}}
	}
	var results []*launcher.Result
	if n > 0 {
		cfg.Progress.Phase("rerunning the recorded order", n, time.Time{})
		if results, err = l.RunJobs(ctx, jobs); err != nil {
			l.Close()
			return nil, nil, 0, err
		}
	}
	for i, r := range results {
		addOutcomes(outcomes, fmt.Sprintf("rerun %d", i+1), orderFile, r)
	}
	confirmed, err := confirmFailing(ctx, cfg, l, order, orderDir, outcomes)
	if err != nil {
		l.Close()
		return nil, nil, 0, err
	}
	return l, results, confirmed, nil
}

// rerunsOf returns how often each fork's recorded order is rerun:
// Config.Reruns, but none when a change affects no test (only
// documentation changed, or nothing) and no chaos analysis needs the reruns
// as its baseline: nothing is judged, so no test JVM starts (a test that
// failed in the build is still rerun by confirmFailing).
func rerunsOf(cfg Config) int {
	if cfg.Change != nil && cfg.Change.Inert() != "" && cfg.Chaos.Mode == "" {
		return 0
	}
	return cfg.Reruns
}

// ConfirmReruns bounds the runs a test that failed in every run of its
// order so far gets before verify calls it failing rather than flaky: one
// that fails one run in three still fails the Surefire run and three reruns
// about once in a hundred builds, and all eight about once in 7,000. A test
// that timed out in every run gets none: each would cost the test timeout.
const ConfirmReruns = 4

// confirmFailing reruns the order up to the last of its tests that failed
// in every run so far (outcomes), not only by timing out, cfg.Workers runs
// at a time (0: one per core), until each such test has passed once or
// ConfirmReruns runs were made, and adds their outcomes to outcomes; it
// returns the runs made. The runs are the recorded order's, cut after the
// test: what ran before it is the same.
func confirmFailing(ctx context.Context, cfg Config, l *launcher.Launcher, order []string, orderDir string, outcomes map[string][]runOutcome) (int, error) {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	made := 0
	for made < ConfirmReruns {
		last := -1
		for i, test := range order {
			if failsEveryRun(outcomes[test]) && !timedOutEveryRun(outcomes[test]) {
				last = i
			}
		}
		if last < 0 {
			break
		}
		if made == 0 {
			cfg.Progress.Phase("rerunning the tests that failed in every run", ConfirmReruns, time.Time{})
		}
		prefix := order[:last+1]
		orderFile, err := surefire.WriteOrderFile(orderDir, prefix)
		if err != nil {
			return made, err
		}
		jobs := make([]launcher.Job, min(workers, ConfirmReruns-made))
		for i := range jobs {
			jobs[i] = launcher.Job{Order: prefix, RunOptions: launcher.RunOptions{Resume: true}}
		}
		results, err := l.RunJobs(ctx, jobs)
		if err != nil {
			return made, fmt.Errorf("rerun the order up to %s: %w", order[last], err)
		}
		for _, r := range results {
			made++
			addOutcomes(outcomes, fmt.Sprintf("confirmation %d", made), orderFile, r)
		}
	}
	return made, nil
}

// addOutcomes adds each test's outcome in r, the run named run of the order
// in orderFile, to outcomes.
func addOutcomes(outcomes map[string][]runOutcome, run, orderFile string, r *launcher.Result) {
	for _, t := range r.Tests {
		outcomes[t.Test] = append(outcomes[t.Test], runOutcome{
			run: run, orderFile: orderFile, outcome: t.Outcome,
			message: t.Message, ftype: t.FailureType, stack: t.Stack,
		})
	}
}

// timedOutEveryRun reports whether every failure in runs is a timeout: a
// confirmation rerun of such a test would cost the whole test timeout.
func timedOutEveryRun(runs []runOutcome) bool {
	for _, r := range runs {
		if r.outcome.Failed() && r.outcome != launcher.Timeout {
			return false
		}
	}
	return true
}

// failsEveryRun reports whether a test failed in runs and passed in none
// (a skipped or not-run outcome is no evidence either way).
func failsEveryRun(runs []runOutcome) bool {
	failed := false
	for _, r := range runs {
		switch {
		case r.outcome == launcher.Pass:
			return false
		case r.outcome.Failed():
			failed = true
		}
	}
	return failed
}

// Run verifies one module: it reruns and analyses each fork the provider
// recorded (verifyFork), then judges, gates and publishes the module's
// report (conclude).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	cfg = withDefaults(cfg)
	records, err := surefire.ReadForkRecords(cfg.BuildDir)
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		fmt.Fprintf(cfg.Out, "[flaky] module %s: no tests ran through the flaky provider; nothing to verify\n", cfg.Name)
		return &Result{Report: &report.Report{Module: cfg.Module}, Pass: true}, nil
	}
	// What the end of the run needs is checked before it starts: a
	// baseline that does not parse or a report that cannot be written
	// would otherwise lose the whole analysis.
	accepted, err := baseline.LoadBaseline(cfg.Root)
	if err != nil {
		return nil, err
	}
	flakyDir := flakydir.InBuild(cfg.BuildDir).Path()
	if err := publish.CheckWritable(publish.Options{Root: cfg.Root, ModuleDir: cfg.ModuleDir, FlakyDir: flakyDir}); err != nil {
		return nil, err
	}
	jars, err := agent.Extract()
	if err != nil {
		return nil, err
	}
	res := &Result{Report: &report.Report{Module: cfg.Module}}
	orderDir := flakydir.InBuild(cfg.BuildDir).Orders()
	outcomes := map[string][]runOutcome{}
	tests := 0
	var cases []surefire.FlakyCase
	for _, rec := range records {
		n, c, err := verifyFork(ctx, cfg, jars, rec, orderDir, outcomes, res)
		if err != nil {
			return nil, err
		}
		tests, cases = tests+n, append(cases, c...)
	}
	res.Report.Stats.Tests = tests
	if err := conclude(ctx, cfg, records[0], accepted, flakyDir, outcomes, cases, start, res); err != nil {
		return nil, err
	}
	return res, nil
}

// withDefaults fills in the Config fields left unset.
func withDefaults(cfg Config) Config {
	if cfg.Reruns <= 0 {
		cfg.Reruns = DefaultReruns
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Root == "" {
		cfg.Root = cfg.ModuleDir
	}
	if cfg.Module == "" {
		cfg.Module = mvn.ModulePath(cfg.Root, cfg.ModuleDir)
	}
	if cfg.Name == "" {
		cfg.Name = cfg.Module
		if id := mvn.ArtifactID(cfg.ModuleDir); cfg.Module == "." && id != "" {
			cfg.Name = id
		}
	}
	return cfg
}

// verifyFork verifies the fork of rec: it adds the Surefire run's outcomes
// of its tests and those of its reruns to outcomes, and the runs, the
// findings and failing tests of the reruns and the fork's analysis to res.
// It returns how many of its tests no earlier fork ran, and the flaky
// tests to report to Surefire.
func verifyFork(ctx context.Context, cfg Config, jars agent.Jars, rec *surefire.ForkRecord, orderDir string, outcomes map[string][]runOutcome, res *Result) (int, []surefire.FlakyCase, error) {
	if !rec.AgentAttached {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the flaky agent was not attached to the Surefire fork (%s): does the module set its own <argLine>? Add @{argLine} to it.", filepath.Base(rec.File)))
	}
	order := rec.TestIDs()
	if len(order) == 0 {
		return 0, nil, nil
	}
	orderFile, err := surefire.WriteOrderFile(orderDir, order)
	if err != nil {
		return 0, nil, err
	}
	tests := 0
	for _, t := range rec.Tests {
		if _, seen := outcomes[t.Test]; !seen {
			tests++
		}
		outcomes[t.Test] = append(outcomes[t.Test], runOutcome{run: "surefire", orderFile: orderFile, outcome: launcher.ParseOutcome(t.Outcome), message: t.Message})
	}
	l, results, confirmed, err := rerun(ctx, cfg, jars, rec, orderDir, orderFile, outcomes)
	if err != nil {
		return 0, nil, err
	}
	res.Report.Runs += 1 + len(results) + confirmed
	res.Report.Stats.Orders += 1 + len(results) + confirmed
	var cases []surefire.FlakyCase
	for _, test := range order {
		f, c, failing := classify(test, outcomes[test], order, orderFile, cfg)
		if f != nil {
			res.Report.Findings = append(res.Report.Findings, *f)
		}
		if c != nil {
			cases = append(cases, *c)
		}
		if failing {
			res.Failing = append(res.Failing, test)
		}
	}
	err = analyseFork(ctx, cfg, l, rec, results, res)
	if l != nil {
		l.Close()
	}
	if err != nil {
		return 0, nil, err
	}
	return tests, cases, nil
}

// conclude finishes the module's report (rec is its first fork's record):
// it drops what a change cannot affect, proposes repairs, judges the
// report against the baseline and the gate, publishes it and writes the
// flaky tests (cases) for Surefire's XML.
func conclude(ctx context.Context, cfg Config, rec *surefire.ForkRecord, accepted *baseline.Baseline, flakyDir string, outcomes map[string][]runOutcome, cases []surefire.FlakyCase, start time.Time, res *Result) error {
	// Surefire's XML keeps every test that flaked as flaky, judged or not.
	flaked := slices.Clone(res.Report.Findings)
	if dropped := unaffected(res.Report); len(dropped) > 0 {
		fmt.Fprintf(cfg.Out, "[flaky] module %s: not judged, the change cannot affect them: %s\n", cfg.Name, strings.Join(dropped, ", "))
	}
	res.Report.Sort()
	if err := proposeRepairs(ctx, cfg, rec, res); err != nil {
		return err
	}
	res.Report.Stats.DurationMs = time.Since(start).Milliseconds()

	res.Verdict = baseline.Check(accepted, res.Report, clearer(cfg, res.Report, func(test string) bool { _, ok := outcomes[test]; return ok }))
	res.Pass = len(res.Failing) == 0 && (!cfg.Gate || res.Verdict.Pass())
	res.Report.Gate = res.Verdict.Record(cfg.Gate)

	if _, err := publish.Module(ctx, res.Report, publish.Options{
		Root: cfg.Root, ModuleDir: cfg.ModuleDir, FlakyDir: flakyDir, Module: cfg.Module,
		Version: buildinfo.Version(), CI: cfg.Out, Java: envOf(rec, cfg.Java).Java,
	}); err != nil {
		return err
	}
	if err := surefire.WriteFlakyReports(filepath.Join(flakyDir, "surefire"), findingCases(cases, flaked)); err != nil {
		return err
	}
	printSummary(cfg, res)
	return nil
}

// unaffected takes out of a change's report the findings about tests the
// change cannot affect (the reruns' NOD findings: the analysis judges only
// affected tests) and returns those tests: the verdict on a change rests
// on what it can affect only.
func unaffected(rep *report.Report) []string {
	ch := rep.Stats.Change
	if ch == nil {
		return nil
	}
	var dropped []string
	rep.Findings = slices.DeleteFunc(rep.Findings, func(f report.Finding) bool {
		if slices.ContainsFunc(ch.Affected, func(a report.AffectedTest) bool { return a.Test == f.Test }) {
			return false
		}
		dropped = append(dropped, f.Test)
		return true
	})
	return dropped
}

// launcherOptions are the options of every launcher verify starts for the
// fork rec (reruns, the order-dependence analysis's fast JVMs, chaos and
// repair's sandbox take them from here): every run cuts a test
// at the test timeout: Config.TestTimeout when set, else the one the
// provider applied in the fork (-Dflaky.testTimeout), else
// DefaultTestTimeout.
func launcherOptions(cfg Config, rec *surefire.ForkRecord) launcher.Options {
	// Class-data sharing makes the JVMs start faster; it changes nothing
	// they run (see launcher.CDSCache).
	opts := launcher.Options{Workers: cfg.Workers, Notef: notef(cfg), TestTimeout: cfg.TestTimeout, CDSDir: launcher.CDSCache()}
	if cfg.Progress != nil {
		opts.Ran = func(*launcher.Result) { cfg.Progress.Ran() }
	}
	switch {
	case cfg.TestTimeout == 0 && rec != nil && rec.TestTimeoutMs != nil:
		opts.TestTimeout = time.Duration(*rec.TestTimeoutMs) * time.Millisecond
	case cfg.TestTimeout == 0:
		opts.TestTimeout = DefaultTestTimeout
	case cfg.TestTimeout < 0:
		opts.TestTimeout = 0
	}
	return opts
}

// notef prints each distinct note of the module's runs once.
func notef(cfg Config) func(string) {
	return launcher.Distinct(func(note string) { fmt.Fprintf(cfg.Out, "[flaky] module %s: note: %s\n", cfg.Name, note) })
}

// clearer returns the gate's judge of accepted tests that were not found
// flaky: the run vouches for one only when it ran, a change's analysis
// judged it, and every analysis that finds its kind ran to completion
// without leaving it unconfirmed.
func clearer(cfg Config, rep *report.Report, ran func(string) bool) func(baseline.Accepted) string {
	return func(a baseline.Accepted) string {
		if !ran(a.Test) {
			return "it did not run"
		}
		if ch := rep.Stats.Change; ch != nil && !slices.ContainsFunc(ch.Affected, func(t report.AffectedTest) bool { return t.Test == a.Test }) {
			return "the change since " + ch.Ref + " cannot affect it"
		}
		switch a.Kind {
		case report.ODVictim, report.ODBrittle, report.NIO:
			cov := rep.Stats.Coverage
			switch {
			case cfg.Budget < 0 || cov == nil:
				return "the order-dependence analysis did not run"
			case slices.Contains(cov.Unconfirmed, a.Test) && cov.BudgetExhausted:
				return "its outcome changed, but the budget ended before it was confirmed"
			case slices.Contains(cov.Unconfirmed, a.Test):
				return "its outcome changed, but the reruns of its orders confirmed no finding"
			case cov.BudgetExhausted:
				return fmt.Sprintf("the order-dependence analysis was cut by its budget (%s)", time.Duration(cov.BudgetMs)*time.Millisecond)
			}
		case report.API:
			ch := rep.Stats.Chaos
			switch {
			case ch == nil:
				return "API perturbation did not run (-Dflaky.chaos)"
			case slices.Contains(ch.Unconfirmed, a.Test):
				return "it failed perturbed, but the budget ended before it was confirmed"
			case ch.BudgetExhausted:
				return fmt.Sprintf("API perturbation was cut by its budget (%s)", time.Duration(ch.BudgetMs)*time.Millisecond)
			}
		}
		return ""
	}
}

// classify turns one test's outcomes over all runs of the same order (or
// its beginning up to the test, see confirmFailing) into a finding (it both
// passed and failed: not order-dependent, so NOD), a Surefire-format case,
// and whether it failed in every run.
func classify(test string, runs []runOutcome, order []string, orderFile string, cfg Config) (*report.Finding, *surefire.FlakyCase, bool) {
	var failed []runOutcome
	for _, r := range runs {
		if r.outcome.Failed() {
			failed = append(failed, r)
		}
	}
	if len(failed) == 0 {
		return nil, nil, false
	}
	class, method := testid.Split(test)
	c := &surefire.FlakyCase{Class: class, Name: method}
	problems := make([]surefire.Problem, len(failed))
	for i, r := range failed {
		problems[i] = surefire.Problem{Error: r.outcome != launcher.Fail, Message: r.message, Type: r.ftype, Stack: r.stack}
	}
	if failsEveryRun(runs) {
		c.Failed, c.Failure, c.Reruns = true, problems[0], problems[1:]
		return nil, c, true
	}
	c.Flaky = problems
	f := &report.Finding{
		Test:      test,
		Kind:      report.NOD,
		Message:   failed[0].message,
		Reproduce: reproduce(cfg, orderFile, order),
	}
	for _, r := range runs {
		f.Evidence = append(f.Evidence, report.Evidence{Run: r.run, OrderFile: r.orderFile, Outcome: string(r.outcome), Message: r.message})
	}
	return f, c, false
}

// reproduce is the plain-Maven command that reruns order, written to
// orderFile, of the module (a module's command names the order's classes
// in -Dtest, so the sibling modules -am builds do not run their tests),
// with the build's profiles and properties.
func reproduce(cfg Config, orderFile string, order []string) string {
	return mvn.WithArgs(mvn.Reproduce(mvn.ModulePath(cfg.Root, cfg.ModuleDir), orderFile, order...), "test", cfg.MavenArgs)
}

// envOf turns a fork record into the environment for flaky's own JVMs: they
// inherit flaky's environment (the build's, as the fork did) plus the
// recorded variables, and get the recorded system properties.
func envOf(rec *surefire.ForkRecord, java string) launcher.Env {
	if java == "" {
		java = rec.Java
	}
	env := make([]string, 0, len(rec.Environment))
	for k, v := range rec.Environment {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return launcher.Env{
		Java:      java,
		Classpath: rec.Classpath,
		JVMArgs:   rec.JVMArgs,
		SysProps:  rec.SystemProperties,
		Env:       env,
		Dir:       rec.WorkingDirectory,
	}
}

func printSummary(cfg Config, res *Result) {
	w := cfg.Out
	for _, cut := range budgetCuts(res.Report.Stats) {
		fmt.Fprintf(w, "[flaky] module %s: %s: results are partial, and no accepted test is called fixed on its account\n", cfg.Name, cut)
	}
	fmt.Fprintf(w, "[flaky] module %s: %d tests, %d runs, %d flaky\n", cfg.Name, res.Report.Stats.Tests, res.Report.Runs, len(res.Report.Findings))
	for _, warn := range res.Warnings {
		fmt.Fprintf(w, "[flaky] WARNING %s\n", warn)
	}
	for _, f := range res.Verdict.New {
		fmt.Fprintf(w, "[flaky] NEW   %-10s %s\n", f.Kind, f.Test)
		if f.Message != "" {
			fmt.Fprintf(w, "[flaky]         %s\n", report.FirstLine(f.Message))
		}
		if f.Note != "" {
			fmt.Fprintf(w, "[flaky]         note: %s\n", f.Note)
		}
		fmt.Fprintf(w, "[flaky]         reproduce: %s\n", f.Reproduce)
		if f.Repair != nil && f.Repair.Validated {
			fmt.Fprintf(w, "[flaky]         proposed repair (%s, validated): %s\n", f.Repair.Kind, f.Repair.Patch)
		}
	}
	for _, f := range res.Verdict.Known {
		fmt.Fprintf(w, "[flaky] known %-10s %s (in %s)\n", f.Kind, f.Test, baseline.BaselinePath)
	}
	for _, a := range res.Verdict.PossiblyFixed {
		fmt.Fprintf(w, "[flaky] possibly fixed: %s (accepted as %s, not flaky in this run)\n", a.Test, a.Kind)
	}
	for _, u := range res.Verdict.Unjudged {
		fmt.Fprintf(w, "[flaky] not judged: %s (accepted as %s): %s\n", u.Test, u.Kind, u.Reason)
	}
	for _, t := range res.Failing {
		fmt.Fprintf(w, "[flaky] FAILS in every run: %s\n", t)
	}
	switch {
	case len(res.Failing) > 0:
		fmt.Fprintf(w, "[flaky] %d test(s) fail in every run: fix them (they are not flaky)\n", len(res.Failing))
	case !res.Pass:
		fmt.Fprintf(w, "[flaky] %d new flaky test(s) not in %s: fix them, or accept them with `flaky baseline accept`\n", len(res.Verdict.New), baseline.BaselinePath)
	case !cfg.Gate && len(res.Verdict.New) > 0:
		fmt.Fprintf(w, "[flaky] gate is off: not failing the build\n")
	}
	fmt.Fprintf(w, "[flaky] report: %s (and index.html, summary.md, flaky.sarif)\n", flakydir.InBuild(cfg.BuildDir).Report())
}

// budgetCuts describes the analyses that a budget cut short, with the tests
// they left unconfirmed.
func budgetCuts(st report.Stats) []string {
	var out []string
	if c := st.Coverage; c != nil && c.BudgetExhausted {
		out = append(out, "the order-dependence analysis was cut by its budget of "+
			(time.Duration(c.BudgetMs)*time.Millisecond).String()+unconfirmedList(c.Unconfirmed))
	}
	if c := st.Chaos; c != nil && c.BudgetExhausted {
		out = append(out, "API perturbation was cut by its budget of "+
			(time.Duration(c.BudgetMs)*time.Millisecond).String()+unconfirmedList(c.Unconfirmed))
	}
	return out
}

// unconfirmedList names unconfirmed tests for a console line.
func unconfirmedList(tests []string) string {
	if len(tests) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d unconfirmed: %s)", len(tests), strings.Join(tests, ", "))
}
