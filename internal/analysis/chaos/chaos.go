package chaos

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// DefaultBudget is the least budget an analysis gets when Config.Budget is
// 0: then the budget is sized from the unperturbed run's duration (see
// analysis.sizeBudget), and never below this.
const DefaultBudget = 5 * time.Minute

// Mode says how strategies are applied.
type Mode string

// The modes.
const (
	// Combined runs the suite once with all strategies at once (one per
	// group), then attributes each failure to the strategy that reproduces it.
	Combined Mode = "combined"
	// Single runs the suite once per strategy.
	Single Mode = "single"
)

// ParseMode accepts "combined" (also for "") and "single".
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", Combined:
		return Combined, nil
	case Single:
		return m, nil
	}
	return "", fmt.Errorf("mode %q: want combined or single", s)
}

// Runner runs jobs, each in a fresh JVM, possibly in parallel, and returns
// their results in the same order; *launcher.Launcher is one.
type Runner interface {
	RunJobs(ctx context.Context, jobs []launcher.Job) ([]*launcher.Result, error)
}

// Config says what to perturb and how much effort to spend.
type Config struct {
	// Tests is the suite in the order to run it.
	Tests []string
	Mode  Mode
	// Strategies to apply; nil means DefaultCombined in combined mode and
	// every strategy in single mode.
	Strategies []Strategy
	// Settings say which classes are instrumented and tune the strategies.
	Settings Settings
	// Baseline holds unperturbed runs of Tests the caller already made; when
	// empty, one is run alongside the perturbed runs.
	Baseline []*launcher.Result
	// Budget bounds the wall-clock time; the first perturbed run(s) and the
	// unperturbed one always run, attribution, further single-strategy runs
	// and confirmations only while the budget lasts. 0 sizes it from the
	// unperturbed run's duration and the number of strategies (at least
	// DefaultBudget).
	Budget time.Duration
	// Seeds is how many seeds ITERATION_ORDER runs under, when it is among
	// Strategies: after the analysis with the first seed (chaos.seed in
	// Settings.Params, or the agent's DefaultSeed), ITERATION_ORDER alone
	// runs under each next one (first+1, first+2, ...) while the budget
	// lasts, as NonDex runs several seeds. 0 means DefaultSeeds; 1 only the
	// first. In combined mode beside other strategies it runs alone under
	// the first seed too, in its own pass (see ownPass).
	Seeds int
	// Workers is how many JVMs the runner runs at once; 0 means one per
	// core.
	Workers int
	// AutoWorkers runs more JVMs than Workers, up to maxSpare times as
	// many, while fewer than Workers of them keep a core busy (the others
	// wait: a lengthened sleep, a delayed connect). It needs a Runner that
	// measures its JVMs (jvmLoad, as launcher.Launcher does).
	AutoWorkers bool
	// underSeed says the analysis is one of iterationPasses': the caller
	// counts its findings in the progress, once the tests found before are
	// left out.
	underSeed bool
	// iterationPass says ITERATION_ORDER, taken out of Strategies, runs in
	// its own pass after the combined analysis (see ownPass).
	iterationPass bool
	// ran, when set, is the run of Tests with Strategies' one strategy
	// that the caller made (iterationPasses runs its passes' at once), and
	// ranWall how long it took: single mode judges it instead of running
	// the suite (only with a Baseline).
	ran     *launcher.Result
	ranWall time.Duration
	// judged are tests the caller has a verdict on: single mode does not
	// judge their failures again (iterationPasses' later passes).
	judged map[string]bool
	// load measures the running JVMs for AutoWorkers; nil means the
	// Runner's own.
	load jvmLoad
	// Spread, when set, delivers once whether the combined run may spread
	// over free workers (see runFed): "" when it may, else why not (the
	// module binds a socket to a port that may be fixed, and two of its
	// JVMs at once could clash over it). Until it has, and when nil, the
	// combined run stays in one JVM.
	Spread <-chan string
	// Log receives progress notes (Logf) and notes about the analysis'
	// choices (Debugf); the zero Logger drops them.
	Log logs.Logger
	// Progress hears the analysis' phases (the launcher reports its runs);
	// nil shows nothing.
	Progress *progress.Tracker
}

// Finding is a test that fails perturbed and passes unperturbed.
type Finding struct {
	Test string
	// Strategies is the strategy the failure is attributed to; several
	// when only their combination reproduced it (then Attributed is
	// false).
	Strategies []Strategy
	// FailsWith are all strategies that made the test fail on their own
	// (single mode: every strategy whose run failed it; combined mode:
	// every strategy that reproduced it alone), in canonical order.
	FailsWith []Strategy
	// Robust says whether the failure stays with a tenth of the
	// strategy's parameter (TIME and SLEEP findings only; nil when not
	// checked or when the budget ended first).
	Robust *bool
	// Attributed says a run with Strategies[0] alone made the test fail.
	Attributed bool
	// Order is the order, ending with the test, to reproduce the failure:
	// the test alone when that reproduces it, else the part of the suite
	// its JVM ran.
	Order []string
	// Message is the perturbed failure's message plus flaky's notes.
	Message string
	// Seed is the chaos.seed the failure was found and confirmed under
	// when it is not the analysis' first (see Config.Seeds); "" for the
	// first.
	Seed string
	// CallSites are the perturbed call sites of the strategies' groups the
	// test hit (its own, or else those hit in its class's fixtures).
	CallSites []report.CallSite
	Evidence  []Evidence
	// foundBy is the index in Evidence of the run that found the failure
	// (the combined run, or a strategy's run of the suite).
	foundBy int
	// tried counts the strategies run alone on the test before Strategies
	// was named from their runs (1 when none or one was).
	tried int
}

// Suspect is a failure under perturbation the analysis could not finish
// judging, and why.
type Suspect struct {
	Finding
	Why string
}

// String says the test, the strategies it failed under and why it is only
// suspected.
func (s Suspect) String() string {
	return s.Test + " under " + Join(s.Strategies) + ": " + s.Why
}

// Evidence is one run that decided a finding.
type Evidence struct {
	Run        string     // "unperturbed", "combined", a strategy id, or strategies joined with +
	Strategies []Strategy // nil for the unperturbed run
	Order      []string   // the order run, ending with the test
	Outcome    launcher.Outcome
	Message    string
	// Detail says how the run differed from a plain run of Strategies
	// ("alone", "milder: time.increment=30"); empty for none.
	Detail string
	// Resumed are the points where the run went on in a fresh JVM after
	// one ended early (see launcher.Resumption).
	Resumed []launcher.Resumption
	// own says the test failed there on its own (ownFailure), not by the
	// machinery.
	own bool
	// perturbed are the strategies that perturbed calls during the test
	// or its class's fixtures in the run (perturbedBy).
	perturbed []string
}

// Result is an analysis' findings and what it ran.
type Result struct {
	Mode       Mode
	Strategies []Strategy // the strategies that ran
	Findings   []Finding
	Runs       int // JVMs started
	// FailUnperturbed are tests that failed unperturbed (in the unperturbed
	// run or a control run): never attributed to a strategy.
	FailUnperturbed []string
	// NOD are the tests of FailUnperturbed that are flaky without any
	// perturbation, with their failure rates; Failing are the others.
	NOD     []NOD
	Failing []Failing
	// Suspected are failures the analysis could not finish judging (the
	// budget ended before a strategy alone was tried, or before a hang was
	// rerun with fewer extreme values): not findings; their messages say
	// what was left undone.
	Suspected []Suspect
	// Unconfirmed are tests that failed perturbed while their unperturbed
	// outcome is unknown (the unperturbed run did not get to them).
	Unconfirmed []string
	// Dismissed are perturbed failures that are not the tests' flakiness
	// (see dismiss); they were treated as passes.
	Dismissed       []Dismissal
	Budget          time.Duration
	BudgetExhausted bool
	// Interrupted says the caller cancelled the analysis (Ctrl-C) during
	// the phase Cut names; the result holds what was judged before.
	Interrupted bool
	Cut         string
	// BudgetWhy says how a budget sized from the unperturbed run came about.
	BudgetWhy string
	Duration  time.Duration
	// Tests is how many tests the unperturbed run ran: test template
	// invocations (a @ParameterizedTest's [1], [2], ...) count one each.
	Tests int
	// Coverage says, per perturbed run (each strategy, and the combined
	// run), how many tests it ran and failed and how many findings came
	// of it.
	Coverage []Coverage
	// Skipped are strategies the budget left out entirely.
	Skipped []Strategy
	// Machinery are failures left out because the perturbation machinery
	// or the test framework threw them, not the test ("test under S: why").
	Machinery []string
}

// Coverage is what one perturbed run of the suite did.
type Coverage struct {
	Run        string     // a strategy id, or "combined"
	Strategies []Strategy // the strategies it applied
	Ran        int        // tests that got a result (invocations count one each)
	NotRun     int        // order entries that got none
	Failed     int        // tests that failed (the machinery's failures left out)
	Findings   int        // findings the strategy makes fail (combined: that the combined run found)
	JVMs       int        // JVMs the run took (more than one when one ended early)
	Duration   time.Duration
	// FailedTests and NotRunTests are the tests counted in Failed and NotRun.
	FailedTests, NotRunTests []string
	// Attribution says the run is attribution's (combined mode), which
	// runs only as far as the failures it attributes; the others are runs
	// of the whole suite.
	Attribution bool
}

// Run analyses the suite with r.
func Run(ctx context.Context, r Runner, cfg Config) (*Result, error) {
	start := time.Now()
	if len(cfg.Tests) == 0 {
		return nil, errors.New("no tests to run")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.load == nil {
		cfg.load, _ = r.(jvmLoad)
	}
	if cfg.load == nil {
		cfg.AutoWorkers = false
	}
	switch {
	case cfg.Strategies != nil:
	case cfg.Mode == Single:
		cfg.Strategies = Strategies
	default:
		cfg.Strategies = DefaultCombined
	}
	if len(cfg.Strategies) == 0 {
		return nil, errors.New("no strategies to apply")
	}
	cfg.Strategies, cfg.iterationPass = ownPass(cfg.Mode, cfg.Strategies)
	a := &analysis{cfg: cfg, runner: r, start: start, res: &Result{Mode: cfg.Mode, Budget: cfg.Budget}, milder: map[string][]singleRun{}, again: map[string][]singleRun{}, passRan: map[string]*launcher.Result{}}
	switch {
	case cfg.Budget > 0:
		a.deadline = start.Add(cfg.Budget)
	case len(cfg.Baseline) > 0:
		a.sizeBudget(cfg.Baseline)
	}
	// The suite's runs: one per strategy (single) or of them all
	// (combined), and the unperturbed one unless the caller made it.
	suiteRuns := 1
	if cfg.Mode == Single {
		suiteRuns = len(cfg.Strategies)
	}
	if len(cfg.Baseline) == 0 {
		suiteRuns++
	}
	if cfg.ran != nil {
		suiteRuns-- // the caller ran it
	}
	cfg.Progress.Phase("perturbing", suiteRuns, a.deadline)
	a.phase = "the perturbed runs of the suite"
	var err error
	switch cfg.Mode {
	case Combined:
		if err := checkCombinable(cfg.Strategies); err != nil {
			return nil, err
		}
		err = a.combined(ctx)
	case Single:
		err = a.single(ctx)
	default:
		return nil, fmt.Errorf("unknown mode %q", cfg.Mode)
	}
	if err != nil {
		return nil, err
	}
	a.setAsideSuspected()
	a.phase = "confirmation"
	if err := a.confirm(ctx); err != nil {
		return nil, err
	}
	a.setAsideSuspected()
	a.requireEvidence()
	a.phase = "the bisection of call sites"
	if err := a.bisectSites(ctx); err != nil {
		return nil, err
	}
	a.countFindings()
	a.phase = "the runs of " + iterationOrder + " alone"
	if err := a.iterationPasses(ctx); err != nil {
		return nil, err
	}
	if !cfg.underSeed {
		cfg.Progress.FoundMore(len(a.res.Findings) + len(a.res.NOD))
	}
	a.res.Duration = time.Since(start)
	return a.res, nil
}

// analysis is one Run in progress.
type analysis struct {
	cfg      Config
	runner   Runner
	start    time.Time
	deadline time.Time // zero until an automatic budget is sized
	res      *Result
	baseline []*launcher.Result
	// perturbedRuns are the suite's perturbed runs (the combined run, or a
	// run per strategy), whose test durations predict attribution's.
	perturbedRuns []*launcher.Result
	// suspected are the tests whose findings are to be set aside, and why.
	suspected map[string]string
	// phase names what the analysis is running, for an interruption.
	phase string
	// perturbing says the single-strategy runs of the suite are running:
	// they may use the budget but for attribution's share.
	perturbing bool
	// milder are the runs of a strategy with a tenth of its parameter
	// that ran beside attribution's first round (see planMilder), by
	// strategy id, for confirmation's robustness check to read.
	milder map[string][]singleRun
	// again are the second runs of attribution's first round (see
	// planAgain), by strategy id, for confirmation to read.
	again map[string][]singleRun
	// passRan are the runs of the suite of ITERATION_ORDER's passes made
	// while the combined run went on (see early), by seed.
	passRan map[string]*launcher.Result
	// controlRuns are the unperturbed reruns of failing tests so far (see
	// controlJobs).
	controlRuns []*launcher.Result
	// wall is how long each run took, from its JVM's start to its last's end.
	wall map[*launcher.Result]time.Duration
	// spread is what Config.Spread delivered; nil until it has.
	spread *string
}

// jvmLoad measures a Runner's running JVMs
// (launcher.Launcher.WaitingJVMs): how many of those running orders
// provably wait, blocked in sleeps, timed waits or I/O; the others keep a
// core busy or want one, whatever other processes do.
type jvmLoad interface {
	WaitingJVMs() int
}

// prestarter starts a JVM ahead of its run (launcher.Launcher.Prestart),
// unless upTo with the same agent options wait already: the next run with
// them takes it. It reports whether it started one.
type prestarter interface {
	Prestart(opts agent.Options, upTo int) bool
}

// PrestartUnperturbed starts the JVM of the analysis' unperturbed run of
// the suite ahead of it when r can (launcher.Launcher.Prestart), for a
// caller that has more to do before Run, such as listing the tests: the run
// takes that JVM, which has started and loaded the test engines meanwhile,
// on a core that would otherwise idle. Only for a run without
// Config.Baseline (it makes none) and with AutoWorkers (the JVM is one more
// than the workers). It reports whether it started one.
func PrestartUnperturbed(r Runner, s Settings) bool {
	p, ok := r.(prestarter)
	if !ok {
		return false
	}
	opts, err := s.AgentOptions(nil)
	return err == nil && p.Prestart(opts, 1)
}

// attributionShare is the part of the budget (1/attributionShare) kept for
// attribution: the hang reruns, attribution and confirmation runs after the
// suite's perturbed runs.
const attributionShare = 3

// limit is when bounded runs must end: the deadline, or while the suite's
// perturbed runs are running, the start of attribution's share.
func (a *analysis) limit() time.Time {
	if a.perturbing && a.res.Budget > 0 {
		return a.start.Add(a.res.Budget - a.res.Budget/attributionShare)
	}
	return a.deadline
}

// reserveAttribution gives attribution its share of the budget when the
// suite's perturbed runs took more: the deadline moves to its share from
// now. The progress shows attribution's phase from then on.
func (a *analysis) reserveAttribution() {
	if a.deadline.IsZero() {
		a.sizeBudget(a.baseline)
	}
	defer func() { a.cfg.Progress.Phase("attributing", 0, a.limit()) }()
	share := a.res.Budget / attributionShare
	if until := time.Until(a.deadline); until < share {
		a.deadline = time.Now().Add(share)
		a.cfg.Log.Logf("the perturbed runs took %s of the %s budget: attribution gets its share, %s, from now",
			time.Since(a.start).Round(time.Second), a.res.Budget, share)
	}
}

// setAsideSuspected moves the findings the analysis could not finish
// judging to Result.Suspected, with why in their messages.
func (a *analysis) setAsideSuspected() {
	a.res.Findings = slices.DeleteFunc(a.res.Findings, func(f Finding) bool {
		why, ok := a.suspected[f.Test]
		if ok {
			f.Message += "\n(suspected, not a finding: " + why + ")"
			a.res.Suspected = append(a.res.Suspected, Suspect{Finding: f, Why: why})
		}
		return ok
	})
}

// suspect marks test's finding as suspected, for the first reason given.
func (a *analysis) suspect(test, why string) {
	if a.suspected == nil {
		a.suspected = map[string]string{}
	}
	if _, ok := a.suspected[test]; !ok {
		a.suspected[test] = why
	}
}

// interrupt records that the caller cancelled the analysis, and in which
// phase.
func (a *analysis) interrupt() {
	if !a.res.Interrupted {
		a.res.Interrupted, a.res.Cut = true, a.phase
		a.cfg.Log.Logf("interrupted during %s: the report holds what was judged before", a.phase)
	}
}

// cutBy says what ended the analysis' runs early: the caller or the budget.
func (a *analysis) cutBy() string {
	if a.res.Interrupted {
		return "the analysis was interrupted"
	}
	return "the budget ended"
}

// sizeBudget sets an automatic budget from the unperturbed runs rs (the
// analysis' baseline when it has one): room for every planned run of the
// suite twice over, in rounds of Workers JVMs, plus one more for the
// confirmations, and never less than DefaultBudget.
func (a *analysis) sizeBudget(rs []*launcher.Result) {
	if len(a.baseline) > 0 {
		rs = a.baseline
	}
	var per time.Duration
	for _, r := range rs {
		per = max(per, r.Duration)
	}
	// single: one per strategy and the unperturbed one; combined: attribution at most; and one per further seed
	runs := len(a.cfg.Strategies) + 1 + len(a.cfg.seeds())
	rounds := (runs + a.cfg.Workers - 1) / a.cfg.Workers
	budget := per * time.Duration(2*rounds+1)
	a.res.BudgetWhy = fmt.Sprintf("the unperturbed run's %s x (2 x %d round(s) of %d JVM(s) for %d strategies + 1)",
		per.Round(100*time.Millisecond), rounds, a.cfg.Workers, len(a.cfg.Strategies))
	if budget < DefaultBudget {
		budget = DefaultBudget
		a.res.BudgetWhy = fmt.Sprintf("at least %s (the unperturbed run took %s)", DefaultBudget, per.Round(100*time.Millisecond))
	}
	a.res.Budget = budget
	a.deadline = a.start.Add(budget)
}

// ranUpTo returns the part of r's order that the JVM which ran test ran up
// to it (see jvmOrder).
func ranUpTo(r *launcher.Result, test string) []string {
	return jvmOrder(r.Order, r, entryOf(r.Order, test))
}

// jvmOrder returns the part of order that the JVM of run r which ran
// entry ran up to it: from where that JVM started (the order's start, or
// where r resumed in a fresh JVM) to the entry.
func jvmOrder(order []string, r *launcher.Result, entry int) []string {
	from := 0
	for _, res := range r.Resumed {
		if res.At <= entry {
			from = res.At
		}
	}
	return order[from : entry+1]
}

// resultOf returns test's first result in r.
func resultOf(r *launcher.Result, test string) (launcher.TestResult, bool) {
	for _, t := range r.Tests {
		if t.Test == test {
			return t, true
		}
	}
	return launcher.TestResult{}, false
}

// entryOf returns the index of the order entry a result for test answers:
// the same id, or the test template "X" of an invocation "X[i]"; -1 if none.
func entryOf(order []string, test string) int {
	for i, e := range order {
		if testid.IsInvocation(test, e) {
			return i
		}
	}
	return -1
}
