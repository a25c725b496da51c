package chaos

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/progress"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/testid"
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
	// Workers is how many JVMs the runner runs at once; 0 means one per
	// core.
	Workers int
	// AutoWorkers runs more JVMs than Workers, up to maxSpare times as
	// many, while fewer than Workers of them keep a core busy (the others
	// wait: a lengthened sleep, a delayed connect). It needs a Runner that
	// measures its JVMs (jvmLoad, as launcher.Launcher does).
	AutoWorkers bool
	// load measures the running JVMs for AutoWorkers; nil means the
	// Runner's own.
	load jvmLoad
	// Spread, when set, delivers once whether the combined run may spread
	// over free workers (see runFed): "" when it may, else why not (the
	// module binds a socket to a port that may be fixed, and two of its
	// JVMs at once could clash over it). Until it has, and when nil, the
	// combined run stays in one JVM.
	Spread <-chan string
	// Logf receives progress notes; nil discards them.
	Logf func(format string, args ...any)
	// Debugf receives notes about the analysis' choices; nil discards them.
	Debugf func(format string, args ...any)
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
	// ("alone", "milder: time.increment=500"); empty for none.
	Detail string
	// Resumed are the points where the run went on in a fresh JVM after
	// one ended early (see launcher.Resumption).
	Resumed []launcher.Resumption
	// own says the test failed there on its own (ownFailure), not by the
	// machinery.
	own bool
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
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
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
	a := &analysis{cfg: cfg, runner: r, start: start, res: &Result{Mode: cfg.Mode, Budget: cfg.Budget}, milder: map[string][]singleRun{}, again: map[string][]singleRun{}}
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
	a.countFindings()
	cfg.Progress.FoundMore(len(a.res.Findings) + len(a.res.NOD))
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
		a.cfg.Logf("the perturbed runs took %s of the %s budget: attribution gets its share, %s, from now",
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

// job builds the job running order with strategies (none: unperturbed).
func (a *analysis) job(order []string, strategies []Strategy) (launcher.Job, error) {
	return a.jobWith(a.cfg.Settings, order, strategies)
}

// jobWith is job with other settings (a milder parameter).
func (a *analysis) jobWith(settings Settings, order []string, strategies []Strategy) (launcher.Job, error) {
	opts, err := settings.AgentOptions(strategies)
	if err != nil {
		return launcher.Job{}, err
	}
	return launcher.Job{Order: order, RunOptions: launcher.RunOptions{AgentOptions: opts, Resume: true, TestTimeouts: a.testTimeouts(order, strategies)}}, nil
}

// run runs jobs, at most Workers at once, each starting as soon as a worker
// is free (a long run never holds back the next ones), the longest expected
// first (see startOrder). Jobs after the first mustRun start only while the
// budget lasts and are cancelled when it ends; when the budget is not sized
// yet they wait for the unperturbed ones among the first mustRun to size
// it. Jobs that did not run get nil results.
func (a *analysis) run(ctx context.Context, jobs []launcher.Job, mustRun int) ([]*launcher.Result, error) {
	return a.runFed(ctx, jobs, mustRun, feed{})
}

// feed adds jobs to a run in progress (see runFed).
type feed struct {
	// wake is signalled when more may have jobs to add.
	wake <-chan struct{}
	// more returns the jobs to add, given the results so far (nil for the
	// jobs still running or waiting); none for now.
	more func(results []*launcher.Result) []launcher.Job
	// ahead reports, given the results so far, whether JVMs for control
	// runs should start ahead of them (prestartControl); nil for never.
	ahead func(results []*launcher.Result) bool
}

// runFed is run with jobs that f adds while the run goes on: whenever a
// worker is free and every job has started, f.more is asked for more. The
// jobs it adds come after the first mustRun and start in the order given;
// their results follow those of jobs. The budget bounds them, but one it
// cuts leaves the run going: f adds work the analysis would do later, and
// does what it still needs then. A job with a Handoff (any: each of its
// JVMs gets a fresh one) is split: when a worker is free and nothing else
// waits, the JVM with the most of such a job left hands what it has not
// begun over to a new JVM (see handOver), so that a long perturbed run of
// the suite, whose JVM mostly waits (a sleep made longer, a connect made
// slow), spreads over the free workers; its result joins its JVMs' (see
// pieces).
func (a *analysis) runFed(ctx context.Context, jobs []launcher.Job, mustRun int, f feed) ([]*launcher.Result, error) {
	type done struct {
		jvm  *jvm
		r    *launcher.Result
		err  error
		took time.Duration
	}
	results := make([]*launcher.Result, len(jobs))
	finished := make(chan done)
	runCtx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	mustRun = min(mustRun, len(jobs))
	starts := a.startOrder(jobs, mustRun)
	next, running := 0, 0
	// The budget is sized from the unperturbed runs among the must-run jobs.
	sizing := len(unperturbedJobs(jobs[:mustRun]))
	stopped := false
	fedFrom := len(jobs)
	var failed error
	var lastStart time.Time
	split := map[int]*pieces{}
	start := func(j *jvm) {
		if running >= a.cfg.Workers && a.cfg.Debugf != nil && a.cfg.load != nil {
			a.cfg.Debugf("a JVM beyond the %d workers: %d of the %d running wait", a.cfg.Workers, a.cfg.load.WaitingJVMs(), running)
		}
		running++
		lastStart = time.Now()
		jobCtx, cancel := runCtx, context.CancelFunc(func() {})
		if j.bounded {
			jobCtx, cancel = context.WithDeadline(runCtx, a.limit())
		}
		go func() {
			defer cancel()
			began := time.Now()
			rs, err := a.runner.RunJobs(jobCtx, []launcher.Job{j.job})
			d := done{jvm: j, err: err, took: time.Since(began)}
			if err == nil {
				d.r = rs[0]
			}
			finished <- d
		}()
	}
	for {
		for !stopped && (running < a.cfg.Workers || a.spare(running, lastStart)) {
			if ctx.Err() != nil {
				a.interrupt()
				stopped = true
				break
			}
			if next == len(jobs) && f.more != nil {
				for _, j := range f.more(results) {
					starts = append(starts, len(jobs))
					jobs, results = append(jobs, j), append(results, nil)
				}
			}
			if next == len(jobs) {
				// Nothing else waits: a split job's JVM may hand part of its order over.
				if j := a.handOver(split); j != nil {
					start(j)
					continue
				}
				break
			}
			i := starts[next]
			if i >= mustRun {
				if a.deadline.IsZero() {
					if sizing > 0 {
						break // the unperturbed must-run jobs size the budget
					}
					a.sizeBudget(unperturbedOf(jobs[:mustRun], results[:mustRun]))
				}
				if !time.Now().Before(a.limit()) {
					a.res.BudgetExhausted = true
					stopped = true
					break
				}
			}
			next++
			j := &jvm{i: i, job: jobs[i], bounded: i >= mustRun}
			if j.job.Handoff != nil {
				j.job.Handoff = launcher.NewHandoff()
				split[i] = &pieces{began: time.Now(), running: []*jvm{j}}
			}
			start(j)
		}
		if running == 0 {
			break
		}
		ahead := !stopped && f.ahead != nil && f.ahead(results)
		if ahead && next == len(jobs) && a.coresFree(running, lastStart) && a.prestartControl() {
			lastStart = time.Now()
		}
		var d done
		select {
		case d = <-finished:
		case <-f.wake:
			continue
		case <-a.recheck(stopped, running, next < len(jobs) || f.more != nil, ahead, a.spreadOpen() && splitting(split)):
			continue
		}
		running--
		i := d.jvm.i
		if i < mustRun && !perturbs(jobs[i]) {
			sizing--
		}
		took := d.took
		if p := split[i]; p != nil {
			whole, last := p.add(d.jvm, d.r)
			if d.err == nil {
				if !last || whole == nil {
					continue // other JVMs still run parts of the job, or one failed
				}
				d.r, took = whole, time.Since(p.began)
			}
		}
		switch {
		case d.err == nil:
			results[i] = d.r
			if a.wall == nil {
				a.wall = map[*launcher.Result]time.Duration{}
			}
			a.wall[d.r] = took
			a.res.Runs++
		case ctx.Err() != nil:
			a.interrupt()
			stopped = true
		case failed != nil:
			// cancelled by the first failure
		case i >= fedFrom && errors.Is(d.err, context.DeadlineExceeded):
			// Fed work cut: the analysis runs what it still needs after.
		case i >= mustRun && errors.Is(d.err, context.DeadlineExceeded):
			a.res.BudgetExhausted = true
			stopped = true
		default:
			failed = fmt.Errorf("run %d of %d: %w", i+1, len(jobs), d.err)
			stopped = true
			cancelAll()
		}
	}
	if failed != nil {
		return nil, failed
	}
	return results, nil
}

// jvm is one JVM of runFed: job i, or, for a split job, the part of its
// order from entry from on that another JVM handed over.
type jvm struct {
	i       int
	from    int
	job     launcher.Job
	bounded bool // the budget's end cuts it
}

// pieces are the JVMs of a split job: those running, and the results of
// those done, which add up to the job's result once none runs.
type pieces struct {
	began   time.Time
	running []*jvm
	done    []piece
	failed  bool // a JVM of the job failed: it has no result
}

// piece is the result of one JVM of a split job, which ran its order from
// entry from on.
type piece struct {
	from int
	r    *launcher.Result
}

// add records j's result r (nil when it failed), and reports whether j was
// the last one running; the job's result is then its JVMs' results joined
// in the order's order, nil when one failed.
func (p *pieces) add(j *jvm, r *launcher.Result) (whole *launcher.Result, last bool) {
	p.running = slices.DeleteFunc(p.running, func(x *jvm) bool { return x == j })
	p.failed = p.failed || r == nil
	p.done = append(p.done, piece{from: j.from, r: r})
	if len(p.running) > 0 || p.failed {
		return nil, len(p.running) == 0
	}
	slices.SortFunc(p.done, func(x, y piece) int { return cmp.Compare(x.from, y.from) })
	whole = p.done[0].r
	for _, q := range p.done[1:] {
		whole.Join(q.r)
	}
	return whole, true
}

// handOver asks the running JVM of a split job with the most of its order
// left to hand the rest over (launcher.Handoff.Split), and returns the JVM
// to run that rest in; nil when none did, or while the job may not spread
// (maySpread).
func (a *analysis) handOver(split map[int]*pieces) *jvm {
	if len(split) == 0 || !a.maySpread() {
		return nil
	}
	var best *jvm
	var p *pieces
	for _, q := range split {
		for _, j := range q.running {
			if best == nil || j.job.Handoff.Left() > best.job.Handoff.Left() {
				best, p = j, q
			}
		}
	}
	if best == nil || best.job.Handoff.Left() < minHandOver {
		return nil
	}
	from, to, ok := best.job.Handoff.Split()
	if !ok {
		return nil
	}
	rest := best.job
	rest.Order = best.job.Order[from:to]
	rest.Handoff = launcher.NewHandoff()
	j := &jvm{i: best.i, from: best.from + from, job: rest, bounded: best.bounded}
	p.running = append(p.running, j)
	return j
}

// maySpread reports whether a split job may spread over more JVMs now:
// once Config.Spread has said it may. It notes why not once.
func (a *analysis) maySpread() bool {
	if a.spread == nil && a.cfg.Spread != nil {
		select {
		case why := <-a.cfg.Spread:
			a.spread = &why
			if why != "" && a.cfg.Debugf != nil {
				a.cfg.Debugf("the combined run stays in one JVM: %s", why)
			}
		default:
		}
	}
	return a.spread != nil && *a.spread == ""
}

// spreadOpen reports whether a split job may still spread: Config.Spread
// has not said it may not.
func (a *analysis) spreadOpen() bool {
	return a.cfg.Spread != nil && (a.spread == nil || *a.spread == "")
}

// splitting reports whether a JVM of a split job runs.
func splitting(split map[int]*pieces) bool {
	for _, p := range split {
		if len(p.running) > 0 {
			return true
		}
	}
	return false
}

// minHandOver is the fewest entries a JVM must have left to hand them
// over: a JVM's start costs about as much as a few short tests, but a
// split happens only while a core is free, and a test made to wait (a
// lengthened sleep) makes up for it (chaos-nod: 6.9 s instead of 8.4 s).
const minHandOver = 2

// coresFree reports whether the cores have room for one more JVM now, a
// spare or one started ahead of its run (prestartControl), running being
// the JVMs of the analysis' jobs: with AutoWorkers, the last JVM started
// spareSettle ago or more and fewer than Workers of them keep a core busy
// or want one, the others provably waiting (see
// launcher.Launcher.WaitingJVMs). A job whose JVM is still starting counts
// as busy, and so does every JVM on a machine that cannot say, so other
// processes' load never makes room.
func (a *analysis) coresFree(running int, lastStart time.Time) bool {
	return a.cfg.AutoWorkers && time.Since(lastStart) >= spareSettle && running-a.cfg.load.WaitingJVMs() < a.cfg.Workers
}

// prestartControl starts a JVM for a control run ahead of it, while the
// combined run's JVM runs, a test failed in it and the cores have room:
// the control runs of the tests that fail take such a JVM, which has
// started and loaded the test engines meanwhile, and so spend about 40%
// less CPU after the combined run, where the last failure's work waits for
// them. It reports whether it started one (none when a failing test's
// control runs' worth wait already, or the Runner cannot).
func (a *analysis) prestartControl() bool {
	p, ok := a.runner.(prestarter)
	if !ok {
		return false
	}
	opts, err := a.cfg.Settings.AgentOptions(nil)
	return err == nil && p.Prestart(opts, ControlRuns)
}

// maxSpare bounds the JVMs AutoWorkers runs at once, per worker.
const maxSpare = 3

// spareSettle is how long after a JVM's start spare waits before it
// measures the running JVMs: the JVM of a job just started may not run yet.
const spareSettle = 300 * time.Millisecond

// spareInterval is how often spareCheck asks spare again.
const spareInterval = 100 * time.Millisecond

// spare reports whether one more JVM than Workers may start now, running
// being the JVMs running and lastStart when the last started: while fewer
// than maxSpare times Workers run and the cores have room (coresFree).
func (a *analysis) spare(running int, lastStart time.Time) bool {
	return a.spareRoom(running) && a.coresFree(running, lastStart)
}

// recheck returns a channel that fires when the run's start loop is worth
// running again without a JVM's end: while the run is not stopped, either a
// worker is free while a split job's JVM runs (it can hand part of its
// order over once it has started a test, see handOver), or, with
// AutoWorkers, every worker is busy, fewer than maxSpare times Workers run
// and jobs may be waiting or a split job's JVM runs, or JVMs may start
// ahead (spare or coresFree may then allow one more); else nil (never
// fires).
func (a *analysis) recheck(stopped bool, running int, waiting, ahead, splitting bool) <-chan time.Time {
	switch {
	case stopped:
		return nil
	case running < a.cfg.Workers && splitting,
		a.cfg.AutoWorkers && (ahead || (waiting || splitting) && running >= a.cfg.Workers && a.spareRoom(running)):
		return time.After(spareInterval)
	}
	return nil
}

// spareRoom reports whether, with AutoWorkers, fewer than maxSpare times
// Workers JVMs run.
func (a *analysis) spareRoom(running int) bool {
	return a.cfg.AutoWorkers && running < maxSpare*a.cfg.Workers
}

// startOrder returns the indexes of jobs in the order to start them: the
// longest expected first (by the durations of their tests in the runs so far,
// perturbed ones for a perturbed job), so that no long run starts last and
// leaves the other workers idle; ties keep the jobs' order. Jobs from mustRun
// on come after the others while the budget is not sized, since they cannot
// start before it is.
func (a *analysis) startOrder(jobs []launcher.Job, mustRun int) []int {
	unperturbed := durations(a.baseline)
	perturbed := durations(slices.Concat(a.baseline, a.perturbedRuns))
	cost := make([]time.Duration, len(jobs))
	starts := make([]int, len(jobs))
	for i, j := range jobs {
		took := unperturbed
		if perturbs(j) {
			took = perturbed
		}
		for _, e := range j.Order {
			cost[i] += took[testid.Parse(e).Base()]
		}
		starts[i] = i
	}
	waits := func(i int) bool { return i >= mustRun && a.deadline.IsZero() }
	slices.SortStableFunc(starts, func(i, j int) int {
		if wi, wj := waits(i), waits(j); wi != wj {
			if wi {
				return 1
			}
			return -1
		}
		return cmp.Compare(cost[j], cost[i])
	})
	return starts
}

// durations returns, per test (per test template for its invocations), the
// longest time it took in one of runs.
func durations(runs []*launcher.Result) map[testid.ID]time.Duration {
	took := map[testid.ID]time.Duration{}
	for _, r := range runs {
		sums := map[testid.ID]time.Duration{}
		for _, t := range r.Tests {
			sums[testid.Parse(t.Test).Base()] += time.Duration(t.TimeMs) * time.Millisecond
		}
		for test, d := range sums {
			took[test] = max(took[test], d)
		}
	}
	return took
}

// interrupt records that the caller cancelled the analysis, and in which
// phase.
func (a *analysis) interrupt() {
	if !a.res.Interrupted {
		a.res.Interrupted, a.res.Cut = true, a.phase
		a.cfg.Logf("interrupted during %s: the report holds what was judged before", a.phase)
	}
}

// cutBy says what ended the analysis' runs early: the caller or the budget.
func (a *analysis) cutBy() string {
	if a.res.Interrupted {
		return "the analysis was interrupted"
	}
	return "the budget ended"
}

// unperturbedOf returns the results of the jobs that perturbed nothing.
func unperturbedOf(jobs []launcher.Job, results []*launcher.Result) []*launcher.Result {
	var out []*launcher.Result
	for _, i := range unperturbedJobs(jobs) {
		if results[i] != nil {
			out = append(out, results[i])
		}
	}
	return out
}

// perturbs reports whether job applies a strategy.
func perturbs(job launcher.Job) bool { return job.AgentOptions.Chaos.Perturbs() }

// unperturbedJobs returns the indexes of the jobs that perturb nothing.
func unperturbedJobs(jobs []launcher.Job) []int {
	var out []int
	for i, j := range jobs {
		if !perturbs(j) {
			out = append(out, i)
		}
	}
	return out
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
	runs := len(a.cfg.Strategies) + 1 // single: one per strategy and the unperturbed one; combined: attribution at most
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

// jobs returns a job running order per strategy set, then an unperturbed
// one when the caller gave no baseline.
func (a *analysis) jobs(order []string, sets [][]Strategy) ([]launcher.Job, error) {
	var jobs []launcher.Job
	for _, set := range sets {
		j, err := a.job(order, set)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	if len(a.cfg.Baseline) == 0 {
		j, _ := a.job(order, nil)
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// setBaseline uses the caller's unperturbed runs, else the ones just run,
// and counts the tests they ran.
func (a *analysis) setBaseline(ran []*launcher.Result) {
	a.baseline = a.cfg.Baseline
	if len(a.baseline) == 0 {
		for _, r := range ran {
			if r != nil {
				a.baseline = append(a.baseline, r)
			}
		}
	}
	for _, r := range a.baseline {
		a.res.Tests = max(a.res.Tests, ranCount(r))
	}
}

// ranCount counts the tests of r that got a result.
func ranCount(r *launcher.Result) int {
	n := 0
	for _, t := range r.Tests {
		if t.Outcome != launcher.NotRun {
			n++
		}
	}
	return n
}

// passesUnperturbed reports whether test, which failed in some of the
// perturbed runs, passed in the unperturbed runs and failed in none; one
// they did not get to is recorded as unconfirmed (one that failed there is
// judged with the other unperturbed failures, see judgeUnperturbed).
func (a *analysis) passesUnperturbed(test string) bool {
	if b := tallyOf(test, a.baseline); b.passes == 0 && b.failures == 0 {
		a.res.Unconfirmed = append(a.res.Unconfirmed, test)
	}
	return a.passedBaseline(test)
}

// passedBaseline is passesUnperturbed without recording anything.
func (a *analysis) passedBaseline(test string) bool {
	b := tallyOf(test, a.baseline)
	return b.passes > 0 && b.failures == 0
}

// single runs the suite once per strategy.
func (a *analysis) single(ctx context.Context) error {
	sets := make([][]Strategy, len(a.cfg.Strategies))
	for i, s := range a.cfg.Strategies {
		sets[i] = []Strategy{s}
	}
	jobs, err := a.jobs(a.cfg.Tests, sets)
	if err != nil {
		return err
	}
	// The unperturbed run (last) goes first, so the budget cannot drop it.
	jobs = append(jobs[len(sets):], jobs[:len(sets)]...)
	unperturbed := len(jobs) - len(sets)
	a.cfg.Logf("running %d tests once per strategy (%s), and unperturbed", len(a.cfg.Tests), Join(a.cfg.Strategies))
	a.perturbing = true
	results, err := a.run(ctx, jobs, max(unperturbed, min(a.cfg.Workers, len(jobs))))
	a.perturbing = false
	if err != nil {
		return err
	}
	a.setBaseline(results[:unperturbed])
	a.reserveAttribution()
	a.phase = "attribution"
	byStrategy := map[string]*launcher.Result{}
	for i, s := range a.cfg.Strategies {
		r := results[unperturbed+i]
		if r == nil {
			a.res.Skipped = append(a.res.Skipped, s)
			continue
		}
		a.dismiss([]Strategy{s}, r)
		byStrategy[s.ID] = r
		a.res.Strategies = append(a.res.Strategies, s)
		a.noteEarlyEnd(s.ID, r)
	}
	// Tests that failed with some strategy, in the order they ran.
	var failing []string
	for _, s := range a.res.Strategies {
		r := byStrategy[s.ID]
		cov := a.coverageOf(s.ID, []Strategy{s}, r)
		for _, t := range r.Tests {
			if !t.Outcome.Failed() || entryOf(a.cfg.Tests, t.Test) < 0 {
				continue
			}
			if why := a.leftOut(t); why != "" {
				a.res.Machinery = append(a.res.Machinery, fmt.Sprintf("%s under %s: %s", t.Test, s.ID, why))
				continue
			}
			cov.count(t)
			if !slices.Contains(failing, t.Test) {
				failing = append(failing, t.Test)
			}
		}
		a.res.Coverage = append(a.res.Coverage, cov)
	}
	var runs []*launcher.Result
	for _, s := range a.res.Strategies {
		runs = append(runs, byStrategy[s.ID])
	}
	a.perturbedRuns = runs
	failing = slices.DeleteFunc(failing, func(test string) bool { return !a.passesUnperturbed(test) })
	if failing, err = a.controls(ctx, failing); err != nil {
		return err
	}
	for _, test := range failing {
		entry := entryOf(a.cfg.Tests, test)
		f := Finding{Test: test, Attributed: true, tried: 1}
		for _, s := range a.res.Strategies {
			r := byStrategy[s.ID]
			t, _ := resultOf(r, test)
			order := jvmOrder(a.cfg.Tests, r, entry)
			msg := t.Message
			failed := ownFailure(t)
			if t.Outcome.Failed() && !failed {
				msg += "\n(left out: " + machinery(t) + ")"
			}
			f.Evidence = append(f.Evidence, Evidence{Run: s.ID, Strategies: []Strategy{s}, Order: order, Outcome: t.Outcome, Message: msg, Resumed: r.Resumed, own: failed})
			if !failed {
				continue
			}
			f.FailsWith = append(f.FailsWith, s)
			sites := callSites(r, test, func(strategy, _ string) bool { return strategy == s.ID })
			// The first strategy that failed it, preferring one within the
			// specification, then one whose call sites it hit.
			if f.Strategies == nil || f.Strategies[0].OutsideSpec && !s.OutsideSpec ||
				f.Strategies[0].OutsideSpec == s.OutsideSpec && len(f.CallSites) == 0 && len(sites) > 0 {
				f.Strategies, f.CallSites, f.Message, f.Order, f.foundBy = []Strategy{s}, sites, msg, order, len(f.Evidence)-1
			}
		}
		if others := slices.DeleteFunc(slices.Clone(f.FailsWith), func(s Strategy) bool { return s.ID == f.Strategies[0].ID }); len(others) > 0 {
			f.Message += "\n(" + Join(others) + " make it fail too)"
		}
		f.Message += outsideSpecNote(f.Strategies)
		f.Evidence = append(f.Evidence, a.baselineEvidence(test, a.cfg.Tests[:entry+1])...)
		a.res.Findings = append(a.res.Findings, f)
	}
	return nil
}

// coverageOf counts what run r of strategies ran; Failed and Findings are
// the caller's to count.
func (a *analysis) coverageOf(label string, strategies []Strategy, r *launcher.Result) Coverage {
	c := Coverage{Run: label, Strategies: strategies, JVMs: 1 + len(r.Resumed), Duration: a.wall[r]}
	for _, t := range r.Tests {
		if t.Outcome == launcher.NotRun {
			c.NotRun++
			c.NotRunTests = append(c.NotRunTests, t.Test)
		} else {
			c.Ran++
		}
	}
	return c
}

// count counts a failure of the run that is the test's own.
func (c *Coverage) count(t launcher.TestResult) {
	if ownFailure(t) {
		c.Failed++
		c.FailedTests = append(c.FailedTests, t.Test)
	}
}

// perturbedSet returns the strategies of perturbedRuns[i]: the whole set
// in combined mode, its one strategy in single mode (the runs are in the
// order of Result.Strategies).
func (a *analysis) perturbedSet(i int) []Strategy {
	if a.cfg.Mode == Combined {
		return a.res.Strategies
	}
	return a.res.Strategies[i : i+1]
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

// noteEarlyEnd logs a perturbed run whose JVMs ended early: where the order
// went on in a fresh JVM, and the tests no JVM got to, which are not
// analysed.
func (a *analysis) noteEarlyEnd(label string, r *launcher.Result) {
	for _, res := range r.Resumed {
		if res.Why != launcher.HandedOver {
			a.cfg.Logf("with %s, %s", label, res)
		}
	}
	n := 0
	for _, t := range r.Tests {
		if t.Outcome == launcher.NotRun {
			n++
		}
	}
	if n > 0 {
		a.cfg.Logf("with %s, the JVM ended early (exit status %d): %d test(s) did not run and are not analysed", label, r.Exit.Status, n)
	}
}

// baselineEvidence is the unperturbed runs' evidence for test.
func (a *analysis) baselineEvidence(test string, order []string) []Evidence {
	var out []Evidence
	for _, r := range a.baseline {
		if t, ok := resultOf(r, test); ok {
			out = append(out, Evidence{Run: "unperturbed", Order: order, Outcome: t.Outcome, Message: t.Message, Resumed: r.Resumed})
		}
	}
	return out
}

// outsideSpecNote warns about strategies that break the API's specification.
func outsideSpecNote(strategies []Strategy) string {
	var note string
	for _, s := range strategies {
		if s.OutsideSpec {
			note += "\n(" + s.ID + " goes beyond what the API's specification allows: the test may be right to rely on it)"
		}
	}
	return note
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
