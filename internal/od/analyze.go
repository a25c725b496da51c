// Package od finds order-dependent flaky tests: it runs a suite in
// generated orders (reversed, random, pairwise, each test alone and twice),
// confirms every test whose outcome changed by rerunning the orders it
// failed and passed in, classifies it (victim, brittle, non-idempotent, or
// NOD when it flips in the same order), and minimises its polluters,
// state-setters and cleaners by delta debugging, within a wall-clock budget.
package od

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/progress"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/testid"
)

// Defaults for zero Config fields. The default budget is scaled to the
// suite (see autoBudget), within MinAutoBudget and MaxAutoBudget;
// DefaultBudget is used when the suite's run time is unknown.
const (
	DefaultBudget        = 5 * time.Minute
	MinAutoBudget        = 5 * time.Minute
	MaxAutoBudget        = time.Hour
	DefaultConfirmations = 3
	DefaultOriginalRuns  = 2
	// DefaultWarmOrders is how many exploration orders one warm JVM runs
	// (Config.Warm) when the caller turns warm runs on: few enough that the
	// class loaders of finished orders never crowd the metaspace.
	DefaultWarmOrders = 8
)

// detectShare is the part of the budget the detection orders may use; the
// rest is kept for confirming and minimising what they found.
const detectShare = 0.6

// errBudget ends the analysis when the budget is spent.
var errBudget = errors.New("budget exhausted")

// Runner runs orders, each in a fresh JVM, possibly in parallel, and
// returns their results in the same order; *launcher.Launcher is one.
type Runner interface {
	RunAll(ctx context.Context, orders [][]string) ([]*launcher.Result, error)
}

// WarmRunner is a Runner that can also run several orders in one warm JVM,
// each in a fresh class loader with the JDK state reset between them;
// *launcher.Launcher is one (RunWarm). Results it marks Warm only point at
// candidates: the analysis confirms every one of them in fresh JVMs.
type WarmRunner interface {
	Runner
	RunWarm(ctx context.Context, orders [][]string) ([]*launcher.Result, error)
}

// Config says what to analyse and how much effort to spend.
type Config struct {
	// Tests is the suite in its original order.
	Tests []string
	// Original holds runs of Tests the caller already made.
	Original []*launcher.Result
	// OriginalRuns is how many runs of Tests to have in all, Original
	// included; 0 means DefaultOriginalRuns.
	OriginalRuns int
	// Skip names tests not to report (the caller reported them already).
	Skip map[string]bool
	// Fixtures names the classes with class-level fixtures (@BeforeClass,
	// @BeforeAll, class rules, a shared test instance): the analysis runs
	// only orders in which each of them runs in one class-fixture scope, as
	// under Surefire, so that no finding rests on fixtures run twice.
	Fixtures map[string]bool
	// Unrepeatable names the classes with class-level fixtures whose
	// framework cannot run a method twice in one class-fixture scope
	// (Jupiter): no order repeats their methods, so their tests are not
	// judged for non-idempotent outcomes.
	Unrepeatable map[string]bool
	// Seed drives every random choice; it is recorded in the coverage.
	Seed int64
	// Rounds is the number of exploration orders; 0 means as many as
	// pairwise class coverage needs plus a few random ones, negative none.
	Rounds int
	// Budget bounds the analysis' wall-clock time; 0 means one scaled to
	// the suite from its measured run time (see autoBudget).
	Budget time.Duration
	// Confirmations is how many runs of an order must agree before a
	// finding is reported; 0 means DefaultConfirmations.
	Confirmations int
	// Workers is how many JVMs the runner runs at once; 0 means one per core.
	Workers int
	// AutoWorkers sizes the workers after the original runs by the CPU and
	// memory a JVM of the suite used (see sizeWorkers) instead of Workers.
	AutoWorkers bool
	// Logf receives progress notes; nil discards them.
	Logf func(format string, args ...any)
	// Progress hears the analysis' phases and findings (the launcher
	// reports its runs); nil shows nothing.
	Progress *progress.Tracker
	// Shard, when set, runs only its share of the detection orders (after
	// the original runs, which every shard makes) and stops there: the
	// Result's Runs hold what a merge needs.
	Shard Shard
	// Warm, when positive and the runner is a WarmRunner, runs the
	// exploration orders (not the original, isolation and twice-in-a-row
	// runs, nor any confirming or minimising run) up to Warm at a time in
	// one warm JVM. Their outcomes only make candidates, which are
	// confirmed in fresh JVMs as always, so no finding rests on a warm run.
	Warm int
	// Recorded are the runs of all shards of an analysis (MergeRuns): the
	// analysis replays them instead of running the original and detection
	// orders, then confirms and minimises their candidates.
	Recorded []Run
}

// Finding is one flaky test the analysis confirmed.
type Finding struct {
	Test string
	Kind report.Kind
	// Polluters, Setters and Cleaners are groups of tests, each minimal and
	// in the order they ran.
	Polluters [][]string
	Setters   [][]string
	Cleaners  [][]string
	// FailingOrder and PassingOrder are the shortest orders (the test
	// last) in which the test failed and passed.
	FailingOrder []string
	PassingOrder []string
	Message      string
	Evidence     []Observation
	// Runs and Fails count all the test's runs with an outcome and the
	// failed ones (NOD findings).
	Runs, Fails int
	// Incomplete says the budget ended before its minimisation did.
	Incomplete bool
	// DetectedAfter and DetectedIn say when the test was first seen both
	// passing and failing: after how many orders run, how long into the analysis.
	DetectedAfter int
	DetectedIn    time.Duration
}

// milestone is when something happened in the analysis.
type milestone struct {
	orders  int
	elapsed time.Duration
}

// Observation is what the runs of one order showed for a finding's test.
type Observation struct {
	Label   string   // the step or generated order that ran it first
	Order   []string // the order up to the finding's test
	Pass    int
	Fail    int
	Failure launcher.Outcome // the first failure's outcome (fail, error, timeout, crash)
	Message string
}

// Coverage says how much of the suite's order space the analysis explored.
type Coverage struct {
	Seed            int64
	Tests           int            // tests in the suite
	Orders          int            // orders run (JVMs started) by the analysis
	Generators      map[string]int // orders run per generator
	Rounds          int            // exploration orders run
	RoundsPlanned   int            // exploration orders planned
	Pairs           int            // ordered pairs of distinct tests
	PairsCovered    int            // of those, the ones run right after each other
	TestsAlone      int            // tests run alone
	Budget          time.Duration
	BudgetWhy       string // how the budget was chosen when the caller left it to the analysis
	BudgetExhausted bool
	Unconfirmed     []string // tests whose outcome changed but could not be confirmed in the budget
	Duration        time.Duration
	// Minimising is how long confirming and minimising the candidates took.
	Minimising time.Duration
	// Serial are the tests that clashed with another JVM over a resource
	// (a fixed port, a file lock): every order holding them ran alone.
	Serial []string
	// Workers is how many JVMs ran at once, and WorkersWhy how that was
	// chosen when the analysis sized them (Config.AutoWorkers).
	Workers    int
	WorkersWhy string
	// WarmOrders counts the exploration orders that ran in warm JVMs (of
	// Orders), and WarmJVMs those JVMs (Config.Warm).
	WarmOrders, WarmJVMs int
	// JVMTime and JVMCPU sum the wall and CPU time of the JVMs the
	// analysis ran; Efficiency is JVMTime over Workers times Duration: how
	// busy the workers were.
	JVMTime, JVMCPU time.Duration
	Efficiency      float64
}

// Result is an analysis' findings and coverage.
type Result struct {
	Findings []Finding
	Coverage Coverage
	// Runs are the runs of a shard (Config.Shard), for its partial report.
	Runs []Run
}

// analysis is the state of one Analyze call.
type analysis struct {
	cfg     Config
	runner  Runner
	s       *suite
	st      *store
	warm    *store              // the outcomes of warm runs: candidates only, never a finding's evidence
	slots   *semaphore.Weighted // one per JVM the runner may run at once
	busy    atomic.Int64        // slots taken
	start   time.Time
	index   map[string]int
	targets []string

	mu       sync.Mutex // guards the fields below
	cov      Coverage
	pairs    map[[2]int]bool
	findings map[string]map[report.Kind]*Finding
	flipped  map[string]milestone // when a test was first seen both passing and failing
	// firstSeen is, per test, when the first run that saw it pass ([0]) and
	// the first that saw it fail ([1]) ended (zero: none did).
	firstSeen map[string][2]time.Time
	// groups found so far, tried first for later tests.
	polluterGroups, setterGroups [][]string
	cleanerGroups                map[string][][]string // by polluter group (orderKey)

	originals []*launcher.Result // the runs of the original order
	runs      []Run              // a shard's runs
	stop      func()             // kills the runs still going (the hard stop)
	timer     *time.Timer        // arms stop at the budget plus grace
}

// Analyze runs the analysis on cfg.Tests through r.
func Analyze(ctx context.Context, r Runner, cfg Config) (*Result, error) {
	if cfg.OriginalRuns <= 0 {
		cfg.OriginalRuns = DefaultOriginalRuns
	}
	if cfg.Confirmations <= 0 {
		cfg.Confirmations = DefaultConfirmations
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	a := &analysis{
		cfg: cfg, runner: r, s: newSuite(dedupe(cfg.Tests), cfg.Fixtures), st: newStore(), warm: newStore(),
		slots: semaphore.NewWeighted(int64(cfg.Workers)), start: time.Now(), index: map[string]int{},
		pairs: map[[2]int]bool{}, findings: map[string]map[report.Kind]*Finding{},
		flipped: map[string]milestone{}, firstSeen: map[string][2]time.Time{}, cleanerGroups: map[string][][]string{},
	}
	for i, t := range a.s.tests {
		a.index[t] = i
	}
	n := len(a.s.tests)
	a.cov = Coverage{Seed: cfg.Seed, Tests: n, Generators: map[string]int{}, Budget: cfg.Budget, Pairs: n * (n - 1)}
	if n == 0 {
		return a.result(), nil
	}
	hard, cancel := context.WithCancel(ctx)
	defer cancel()
	a.stop = cancel
	defer func() {
		if a.timer != nil {
			a.timer.Stop()
		}
	}()
	if cfg.Budget > 0 {
		a.setBudget(cfg.Budget, "")
	}
	err := a.analyse(hard)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, err
	case errors.Is(err, errBudget) || hard.Err() != nil:
		a.cov.BudgetExhausted = true
		a.logf("budget of %s spent: reporting what is confirmed", a.cfg.Budget)
	default:
		return nil, err
	}
	return a.result(), nil
}

// setBudget fixes the analysis' budget and arms the hard stop: runs still
// going at the budget get a grace period, then are killed.
func (a *analysis) setBudget(b time.Duration, why string) {
	a.cfg.Budget = b
	a.mu.Lock()
	a.cov.Budget = b
	a.cov.BudgetWhy = why
	a.mu.Unlock()
	a.timer = time.AfterFunc(time.Until(a.start.Add(b+max(10*time.Second, b/10))), a.stop)
}

// autoBudget scales the default budget to the suite from the original runs:
// the detection orders cost about rounds full runs, four for the
// twice-in-a-row runs and one JVM per test alone, shared by the workers;
// the budget is three times that (the rest is for confirming and
// minimising), within MinAutoBudget and MaxAutoBudget. It also says how it
// got there.
func (a *analysis) autoBudget(rounds int) (time.Duration, string) {
	var suite, tests time.Duration
	for _, r := range a.originals {
		if r.Duration <= suite {
			continue
		}
		suite, tests = r.Duration, 0
		for _, t := range r.Tests {
			tests += time.Duration(t.TimeMs) * time.Millisecond
		}
	}
	if suite == 0 {
		return DefaultBudget, "the default; the suite's run time is unknown"
	}
	n := len(a.s.tests)
	overhead := max(suite-tests, 300*time.Millisecond)
	alone := overhead + tests/time.Duration(n)
	detection := (time.Duration(rounds+4)*suite + time.Duration(len(a.targets))*alone) / time.Duration(a.cfg.Workers)
	b := min(max(3*detection, MinAutoBudget), MaxAutoBudget).Round(time.Minute)
	return b, fmt.Sprintf("scaled to the suite: %d tests, %s per run of the suite, ~%s per test alone, ~%s of detection runs on %d workers",
		n, suite.Round(100*time.Millisecond), alone.Round(100*time.Millisecond), detection.Round(time.Second), a.cfg.Workers)
}

func (a *analysis) logf(format string, args ...any) {
	a.cfg.Logf(format, args...)
}

// analyse runs the phases: original order, detection (after fixing the
// budget when the caller left it open), confirmation, then the
// minimisations cluster by cluster (minimiseClusters) and the sharing of
// cleaners between victims of one polluter group.
func (a *analysis) analyse(ctx context.Context) error {
	for _, r := range a.cfg.Original {
		a.record(plannedOrder{gen: GenOriginal, label: GenOriginal, plan: -1}, r, false)
	}
	if len(a.cfg.Recorded) > 0 {
		return a.replay(ctx)
	}
	var reruns []plannedOrder
	for i := len(a.cfg.Original); i < a.cfg.OriginalRuns; i++ {
		reruns = append(reruns, plannedOrder{gen: GenOriginal, label: fmt.Sprintf("original run %d", i+1), tests: a.s.tests, plan: -1})
	}
	first := a.start.Add(a.cfg.Budget)
	if a.cfg.Budget == 0 {
		first = a.start.Add(MaxAutoBudget)
	}
	a.cfg.Progress.Phase("running the original order", len(reruns), first)
	if err := a.run(ctx, first, reruns); err != nil {
		return err
	}
	if a.cfg.AutoWorkers {
		a.sizeWorkers()
	}
	a.targets = a.analysable()
	orders, rounds := a.detectionOrders()
	if a.cfg.Shard.N > 0 {
		orders = slices.DeleteFunc(orders, func(o plannedOrder) bool { return !a.cfg.Shard.takes(o.plan) })
		a.logf("shard %s: %d of the detection orders", a.cfg.Shard, len(orders))
	}
	orders = a.schedule(orders)
	if a.cfg.Budget == 0 {
		b, why := a.autoBudget(rounds)
		a.setBudget(b, why)
		a.logf("budget %s (%s)", b, why)
	}
	end := a.start.Add(a.cfg.Budget)
	detectEnd := a.start.Add(time.Duration(float64(a.cfg.Budget) * detectShare))
	a.cfg.Progress.Phase("detecting", len(orders), detectEnd)
	if err := a.runDetection(ctx, detectEnd, orders); errors.Is(err, errBudget) {
		a.mu.Lock()
		a.cov.BudgetExhausted = true
		a.mu.Unlock()
		a.logf("detection stopped at its share of the budget")
	} else if err != nil {
		return err
	}
	if a.cfg.Shard.N > 0 {
		return nil
	}
	return a.settleCandidates(ctx, end)
}

// replay records the shards' runs as if they had run here, then confirms
// and minimises their candidates with the whole budget.
func (a *analysis) replay(ctx context.Context) error {
	for _, r := range a.cfg.Recorded {
		a.record(plannedOrder{gen: r.Gen, label: r.Label, plan: r.Plan}, r.result(), true)
	}
	a.targets = a.analysable()
	_, rounds := a.detectionOrders()
	if a.cfg.Budget == 0 {
		b, why := a.autoBudget(rounds)
		a.setBudget(b, why)
		a.logf("budget %s (%s)", b, why)
	}
	a.logf("replayed %d runs of %d shard(s)", len(a.cfg.Recorded), max(1, a.cfg.Shard.N))
	return a.settleCandidates(ctx, a.start.Add(a.cfg.Budget))
}

// settleCandidates confirms the candidates, classifies them and minimises
// them by cluster, then shares cleaners, all before end.
func (a *analysis) settleCandidates(ctx context.Context, end time.Time) error {
	cands := a.candidates()
	a.cfg.Progress.Found(len(cands))
	if len(cands) == 0 {
		return nil
	}
	a.cfg.Progress.Phase("confirming", 0, end)
	a.logf("%d candidate(s) after %d orders (%s): confirming", len(cands), a.cov.Orders, time.Since(a.start).Round(100*time.Millisecond))
	since := time.Now()
	defer func() {
		a.mu.Lock()
		a.cov.Minimising = time.Since(since)
		a.mu.Unlock()
	}()
	if err := a.confirm(ctx, end, cands); err != nil {
		return err
	}
	a.logf("confirmed after %d orders (%s): minimising", a.cov.Orders, time.Since(a.start).Round(100*time.Millisecond))
	a.cfg.Progress.Phase("minimising", 0, end)
	if err := a.minimiseClusters(ctx, end, clusters(cands)); err != nil {
		return err
	}
	return a.shareCleaners(ctx, end)
}

// analysable returns the tests minus the ones to skip and the ones that
// were only skipped or aborted (an assumption failed) in the original runs.
func (a *analysis) analysable() []string {
	var out []string
	for _, t := range a.s.tests {
		if a.cfg.Skip[t] {
			continue
		}
		if o := a.st.get(a.s.tests[:a.index[t]+1]); o.runs() > 0 || o.skipped == 0 {
			out = append(out, t)
		}
	}
	return out
}

// detectionOrders interleaves the exploration orders with the isolation
// runs, so both progress when the budget is short.
func (a *analysis) detectionOrders() ([]plannedOrder, int) {
	rounds := a.cfg.Rounds
	if rounds == 0 {
		rounds = autoRounds(a.s)
	}
	var explore []plannedOrder
	ex := newExplorer(a.s, a.cfg.Seed)
	for len(explore) < rounds {
		o, ok := ex.next()
		if !ok {
			break
		}
		explore = append(explore, o)
	}
	a.cov.RoundsPlanned = len(explore)
	// A test that runs first in an order runs alone: isolate only the others.
	first := map[string]bool{a.s.tests[0]: true}
	for _, o := range explore {
		first[o.tests[0]] = true
	}
	var more []plannedOrder
	repeatable := slices.DeleteFunc(slices.Clone(a.targets), func(t string) bool { return a.cfg.Unrepeatable[testid.ClassOf(t)] })
	if len(repeatable) > 0 {
		more = append(more, twice(GenTwice, repeatable), twice(GenTwice+" reversed", reversed(repeatable)))
	}
	for _, t := range a.targets {
		if !first[t] {
			more = append(more, isolation(t))
		}
	}
	a.logf("%d tests: %d exploration orders (seed %d), %d isolation and twice-in-a-row runs", len(a.s.tests), len(explore), a.cfg.Seed, len(more))
	plan := interleave(explore, more)
	for i := range plan {
		plan[i].plan = i
	}
	return plan, len(explore)
}

// interleave merges two lists, each keeping its order, evenly.
func interleave(x, y []plannedOrder) []plannedOrder {
	out := make([]plannedOrder, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		if j >= len(y) || (i < len(x) && i*len(y) <= j*len(x)) {
			out = append(out, x[i])
			i++
		} else {
			out = append(out, y[j])
			j++
		}
	}
	return out
}

// run runs orders, each in its own JVM as soon as one of the runner's
// slots is free (shared by everything running at the same time), and stops
// starting new ones once the deadline has passed (errBudget) or a run failed.
func (a *analysis) run(ctx context.Context, deadline time.Time, orders []plannedOrder) error {
	batches := make([][]plannedOrder, len(orders))
	for i, o := range orders {
		batches[i] = []plannedOrder{o}
	}
	return a.runBatches(ctx, deadline, batches)
}

// freeSlots is how many more JVMs could start now: how many candidates
// are worth testing at once when one hit ends the search.
func (a *analysis) freeSlots() int {
	return a.cfg.Workers - int(a.busy.Load())
}

// Steps after detection, as generator names in the coverage.
const (
	genConfirm  = "confirm"
	genMinimise = "minimise"
)

// record stores a run's outcomes and counts its coverage. Outcomes after a
// class with class-level fixtures ran them a second time are no evidence
// (Surefire never does that) and are dropped.
func (a *analysis) record(o plannedOrder, r *launcher.Result, ours bool) {
	if a.cfg.Shard.N > 0 {
		a.mu.Lock()
		a.runs = append(a.runs, Run{Gen: o.gen, Label: o.label, Plan: o.plan, Order: r.Order, Tests: r.Tests,
			ClassScopes: r.ClassScopes, Clashed: r.Clashed, DurationMs: r.Duration.Milliseconds(), Warm: r.Warm})
		a.mu.Unlock()
	}
	if cut := a.infeasibleFrom(r); cut >= 0 {
		a.logf("dropping the outcomes from position %d of a %s run: %s ran its class fixtures more than once", cut+1, o.label, testid.ClassOf(r.Order[cut]))
		trimmed := *r
		trimmed.Order = r.Order[:cut]
		r = &trimmed
	}
	st := a.st
	if r.Warm {
		st = a.warm
	}
	outcomes := st.add(o.label, r)
	a.mu.Lock()
	defer a.mu.Unlock()
	if r.Warm && ours {
		a.cov.WarmOrders++
	}
	if o.gen == GenOriginal {
		a.originals = append(a.originals, r)
	}
	for _, t := range r.Clashed {
		if !slices.Contains(a.cov.Serial, t) {
			a.cov.Serial = append(a.cov.Serial, t)
			a.cfg.Logf("%s clashed with another JVM over a resource: it runs alone from now on", t)
		}
	}
	if ours {
		a.cov.Orders++
		a.cov.Generators[o.gen]++
		switch o.gen {
		case GenOriginal, GenIsolation, GenTwice, genConfirm, genMinimise:
		default:
			a.cov.Rounds++
		}
	}
	ended := r.Ended
	if ended.IsZero() {
		ended = time.Now()
	}
	for i, p := range outcomes {
		t := r.Order[i]
		switch severity(p.outcome) {
		case 3:
			a.see(t, 1, ended)
		case 2:
			a.see(t, 0, ended)
		}
		seen := a.firstSeen[t]
		if _, ok := a.flipped[t]; !ok && !seen[0].IsZero() && !seen[1].IsZero() {
			a.flipped[t] = milestone{orders: a.cov.Orders, elapsed: max(seen[0].Sub(a.start), seen[1].Sub(a.start))}
		}
	}
	for i := 1; i < len(r.Order); i++ {
		x, okx := a.index[r.Order[i-1]]
		y, oky := a.index[r.Order[i]]
		if okx && oky && x != y {
			a.pairs[[2]int{x, y}] = true
		}
	}
}

// see notes that a run that ended at ended saw t pass (outcome 0) or fail
// (outcome 1), keeping the earliest; a warm JVM hands its orders' results
// over together, so a flip's time is when the runs that showed it ended,
// not when the analysis received them.
func (a *analysis) see(t string, outcome int, ended time.Time) {
	seen := a.firstSeen[t]
	if seen[outcome].IsZero() || ended.Before(seen[outcome]) {
		seen[outcome] = ended
		a.firstSeen[t] = seen
	}
}

// infeasibleFrom returns the position in r's order from which a class with
// class-level fixtures ran them again, or -1: a second contiguous stretch of
// the class, or a repeated method when the run reports more scopes for the
// class than the order has stretches (the framework split it).
func (a *analysis) infeasibleFrom(r *launcher.Result) int {
	stretches := map[string]int{}
	seen := map[string]map[string]bool{}
	for i, t := range r.Order {
		c := testid.ClassOf(t)
		if !a.s.fixtures[c] {
			continue
		}
		if i == 0 || testid.ClassOf(r.Order[i-1]) != c {
			if stretches[c]++; stretches[c] > 1 {
				return i
			}
			seen[c] = map[string]bool{}
		}
		if seen[c][t] && r.ClassScopes[c] > stretches[c] {
			return i
		}
		seen[c][t] = true
	}
	return -1
}

// ensure runs each order until it has k outcomes for its last test.
func (a *analysis) ensure(ctx context.Context, deadline time.Time, gen string, orders [][]string, k int) error {
	return a.run(ctx, deadline, a.plan(nil, gen, orders, k))
}

// plan adds to todo the runs each order needs to have k outcomes for its
// last test; runs of a longer order, done or planned, count for the orders
// that are its prefixes.
func (a *analysis) plan(todo []plannedOrder, gen string, orders [][]string, k int) []plannedOrder {
	sorted := slices.Clone(orders)
	slices.SortStableFunc(sorted, func(x, y []string) int { return len(y) - len(x) })
	seen := map[string]bool{}
	for _, o := range sorted {
		if key := orderKey(o); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		have := a.st.get(o).runs()
		for _, p := range todo {
			if len(p.tests) >= len(o) && slices.Equal(p.tests[:len(o)], o) {
				have++
			}
		}
		for range k - have {
			todo = append(todo, plannedOrder{gen: gen, label: gen, tests: o})
		}
	}
	return todo
}

// candidate is a test whose outcome changed somewhere.
type candidate struct {
	test             string
	failing, passing []string // shortest orders it failed and passed in (order dependence), itself last
	// freshFailing and freshPassing are the shortest orders it failed and
	// passed in in fresh JVMs (nil: none): confirm falls back to them when
	// failing or passing came from a warm run that fresh reruns do not
	// reproduce.
	freshFailing, freshPassing []string
	nio                        bool // its second run in a JVM differed from its first
	od                         verdict
}

// candidates finds the tests that both passed and failed in different
// orders, or in a first and a second run in one JVM.
func (a *analysis) candidates() []*candidate {
	var out []*candidate
	for _, t := range a.targets {
		c := &candidate{test: t}
		// Warm runs count here, and only here: the failing and passing
		// orders they give are rerun in fresh JVMs by confirm. The
		// shortest orders are taken, as without warm runs (a short order
		// keeps minimisation cheap; sortObs breaks ties); the shortest
		// fresh ones are kept for when fresh reruns do not reproduce a
		// warm outcome.
		fresh := a.st.observed(t, false)
		sortObs(fresh)
		c.freshFailing, c.freshPassing = shortestOutcomes(fresh)
		c.failing, c.passing = c.freshFailing, c.freshPassing
		if warm := a.warm.observed(t, false); len(warm) > 0 {
			all := slices.Concat(fresh, warm)
			sortObs(all)
			c.failing, c.passing = shortestOutcomes(all)
		}
		if c.failing == nil || c.passing == nil {
			c.failing, c.passing = nil, nil
		}
		c.nio = a.changesWhenRepeated(t)
		if c.failing != nil || c.nio {
			out = append(out, c)
		}
	}
	return out
}

// shortestOutcomes returns the first order of observed (sorted shortest
// first) with a failure, and the first with a pass.
func shortestOutcomes(observed []obs) (failing, passing []string) {
	for _, o := range observed {
		if o.fail > 0 && failing == nil {
			failing = o.order
		}
		if o.pass > 0 && passing == nil {
			passing = o.order
		}
	}
	return failing, passing
}

// changesWhenRepeated reports whether a run of t right after itself had a
// different outcome than that first run.
func (a *analysis) changesWhenRepeated(t string) bool {
	for _, o := range a.st.observed(t, true) {
		n := len(o.order)
		if n < 2 || o.order[n-2] != t {
			continue
		}
		if first := a.st.get(o.order[:n-1]).tally; first.runs() > 0 && (o.mixed() || first.mixed() || first.passes() != o.passes()) {
			return true
		}
	}
	return false
}

// unreproduced is how many fresh reruns of an order a failure seen only in
// a warm JVM gets before confirm calls it unreproduced: a NOD test that
// fails one run in three still fails in one of them 99.7% of the time.
const unreproduced = 16

// confirm reruns each candidate alone and twice in a row until each has k
// outcomes, and its failing and passing orders until each has two (the
// shortest failing or passing order found by minimisation gets k later),
// then classifies it.
func (a *analysis) confirm(ctx context.Context, deadline time.Time, cands []*candidate) error {
	k, pre := a.cfg.Confirmations, min(a.cfg.Confirmations, 2)
	var alone, prefixes [][]string
	for _, c := range cands {
		if c.nio {
			alone = append(alone, []string{c.test, c.test})
		} else {
			alone = append(alone, []string{c.test})
		}
		if c.failing != nil {
			prefixes = append(prefixes, c.failing, c.passing)
		}
	}
	err := a.run(ctx, deadline, a.plan(a.plan(nil, genConfirm, alone, k), genConfirm, prefixes, pre))
	// A failure seen only in a warm JVM that its order's fresh reruns
	// did not reproduce is what a NOD test's rare failure looks like: in
	// fresh JVMs that first failure would have made the order's outcome
	// mixed. Rerun the order fresh until it fails again or has
	// unreproduced runs; a failure then makes the test NOD on fresh
	// evidence alone, and none leaves it stable.
	// Where a fresh run showed the outcome too, its order is taken
	// instead (and rerun), as without warm runs.
	var again, fallback [][]string
	for _, c := range cands {
		if c.failing == nil {
			continue
		}
		if a.st.get(c.failing).fail == 0 && a.warm.get(c.failing).fail > 0 {
			if c.freshFailing != nil {
				c.failing = c.freshFailing
				fallback = append(fallback, c.failing)
			} else {
				again = append(again, c.failing)
			}
		}
		if a.st.get(c.passing).pass == 0 && a.warm.get(c.passing).pass > 0 && c.freshPassing != nil {
			c.passing = c.freshPassing
			fallback = append(fallback, c.passing)
		}
	}
	if len(fallback) > 0 && err == nil {
		err = a.run(ctx, deadline, a.plan(nil, genConfirm, fallback, pre))
	}
	if len(again) > 0 && err == nil {
		err = a.run(ctx, deadline, a.plan(nil, genConfirm, again, pre+unreproduced))
	}
	for _, c := range cands {
		alone := a.st.get([]string{c.test}).tally
		if c.failing != nil {
			c.od = classifyOD(alone, a.st.get(c.failing).tally, a.st.get(c.passing).tally, k, pre)
		}
		if c.nio && classifyNIO(alone, a.st.get([]string{c.test, c.test}).tally, k) == nonIdempotent {
			once, twice := []string{c.test}, []string{c.test, c.test}
			f := &Finding{Test: c.test, Kind: report.NIO, FailingOrder: twice, PassingOrder: once}
			if alone.fails() {
				f.FailingOrder, f.PassingOrder = once, twice
			}
			f.Message = a.failureMessage(c.test, f.FailingOrder)
			a.add(f)
		}
	}
	return err
}

// failureMessage returns the failure message of the first of the orders
// that failed, else of any run of t that failed.
func (a *analysis) failureMessage(t string, orders ...[]string) string {
	for _, o := range orders {
		if ob := a.st.get(o); ob.fail > 0 {
			return ob.message
		}
	}
	for _, ob := range a.st.all(t) {
		if ob.fail > 0 {
			return ob.message
		}
	}
	return ""
}

func (a *analysis) add(f *Finding) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.findings[f.Test] == nil {
		a.findings[f.Test] = map[report.Kind]*Finding{}
	}
	a.findings[f.Test][f.Kind] = f
}

// warmBatches groups the exploration orders n at a time for workers warm
// JVMs at once: each stretch of n×workers exploration orders is dealt out
// in turn to workers groups, so that every warm JVM starts with the
// generators' first (most telling) orders; each group takes the place of
// its first order. Every other order (the original, isolation and
// twice-in-a-row runs, and orders of one test) is a group of its own.
func warmBatches(orders []plannedOrder, n, workers int) [][]plannedOrder {
	workers = max(workers, 1)
	var batches [][]plannedOrder
	at := map[int]int{} // group -> its index in batches
	e := 0              // exploration orders so far
	for _, o := range orders {
		if !warmable(o) {
			batches = append(batches, []plannedOrder{o})
			continue
		}
		g := e/(n*workers)*workers + e%workers
		e++
		if i, ok := at[g]; ok {
			batches[i] = append(batches[i], o)
			continue
		}
		at[g] = len(batches)
		batches = append(batches, []plannedOrder{o})
	}
	return batches
}

// runDetection runs the detection orders: each in its own fresh JVM, or,
// with Config.Warm and a WarmRunner, the exploration orders up to
// Config.Warm at a time in one warm JVM (warmBatches) and the others fresh.
func (a *analysis) runDetection(ctx context.Context, deadline time.Time, orders []plannedOrder) error {
	if _, ok := a.runner.(WarmRunner); a.cfg.Warm <= 0 || !ok {
		return a.run(ctx, deadline, orders)
	}
	return a.runBatches(ctx, deadline, warmBatches(orders, warmBatchSize(orders, a.cfg.Warm, a.cfg.Workers), a.cfg.Workers))
}

// warmBatchSize is how many exploration orders one warm JVM runs: at most
// most, and few enough that the exploration orders keep every worker busy
// (a warm JVM runs its orders one after another), but two at least.
func warmBatchSize(orders []plannedOrder, most, workers int) int {
	n := 0
	for _, o := range orders {
		if warmable(o) {
			n++
		}
	}
	return max(2, min(most, (n+workers-1)/max(workers, 1)))
}

// warmable tells whether an order may run in a warm JVM: an exploration
// order of two tests or more.
func warmable(o plannedOrder) bool {
	return o.gen != GenOriginal && o.gen != GenIsolation && o.gen != GenTwice && len(o.tests) >= 2
}

// runBatches runs each batch as soon as one of the runner's slots is free
// (shared by everything running at the same time): a batch of one order in
// a fresh JVM, a larger one in a warm JVM (the runner is then a
// WarmRunner). It stops starting new ones once the deadline has passed
// (errBudget) or a run failed.
func (a *analysis) runBatches(ctx context.Context, deadline time.Time, batches [][]plannedOrder) error {
	g, gctx := errgroup.WithContext(ctx)
	late := false
	var err error
	for _, b := range batches {
		if err = a.slots.Acquire(gctx, 1); err != nil {
			break
		}
		if time.Now().After(deadline) {
			a.slots.Release(1)
			late = true
			break
		}
		a.busy.Add(1)
		g.Go(func() error {
			defer a.slots.Release(1)
			defer a.busy.Add(-1)
			orders := make([][]string, len(b))
			for i, o := range b {
				orders[i] = o.tests
			}
			var res []*launcher.Result
			var err error
			if len(b) == 1 {
				res, err = a.runner.RunAll(gctx, orders)
			} else {
				res, err = a.runner.(WarmRunner).RunWarm(gctx, orders)
			}
			if err != nil {
				return fmt.Errorf("run orders: %w", err)
			}
			a.mu.Lock()
			for _, r := range res {
				a.cov.JVMTime += r.Duration
				a.cov.JVMCPU += r.CPU
			}
			if slices.ContainsFunc(res, func(r *launcher.Result) bool { return r.Warm }) {
				a.cov.WarmJVMs++
			}
			a.mu.Unlock()
			for i, r := range res {
				a.record(b[i], r, true)
			}
			return nil
		})
	}
	if werr := g.Wait(); werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("run orders: %w", err)
	}
	if late {
		return errBudget
	}
	return nil
}
