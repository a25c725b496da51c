// Package od finds order-dependent flaky tests: it runs a suite in
// generated orders (reversed, random, pairwise, each test alone and twice),
// confirms every test whose outcome changed by rerunning the orders it
// failed and passed in, classifies it (victim, brittle, non-idempotent, or
// NOD when it flips in the same order), and minimises its polluters,
// state-setters and cleaners by delta debugging, within a wall-clock budget.
//
// Run chains five stages, each a type in its own file that takes what the
// one before gave and returns its own result, and each holding the
// recorder, the core they share:
//
//   - ordering (orders.go, with tuscan.go, pairs.go, cover.go and
//     schedule.go) takes the suite's tests, the targets (analysable) and
//     the seed and gives the detection orders: the exploration orders
//     (reversed, random, Tuscan-square pairwise; with a Focus, the orders
//     that cover its pairs) and the isolation and twice-in-a-row runs,
//     planned (for shards) and scheduled cheapest first, with the number of
//     exploration orders the automatic budget is scaled by (fixBudget).
//   - detection (detect.go) takes those orders and runs them, each in a
//     fresh JVM or several in one warm JVM, and gives the candidates: the
//     tests that passed in one order and failed in another, or changed when
//     run twice. Detection leaves confirmation the time it needs. In a
//     merge, merge (merge.go) takes the shards' runs in its place and
//     reruns a sample of their orders here.
//   - confirmation (confirm.go, with classify.go) takes the candidates,
//     reruns each alone, twice in a row and in its failing and passing
//     orders until Config.Confirmations runs agree, records its verdict
//     (victim, brittle, non-idempotent) as a finding, and gives the
//     confirmed victims and brittles. Confirmation may run into the hard
//     stop's grace: the budget cuts minimisation, never confirmation.
//   - minimisation (minimise.go, with ddmin.go, batch.go and cleaners.go)
//     takes the confirmed victims and brittles, clustered by the orders
//     that showed them, and completes their findings with minimal polluter,
//     state-setter and cleaner groups, each group found once and tried on
//     all the other candidates in one order; it keeps the groups it found
//     from one round of candidates to the next. cleanerSharing
//     (cleaners.go) then takes the cleaner groups it found and gives the
//     victims of one polluter group each other's.
//   - reporting (result.go) takes what the stages recorded and gives the
//     Result, with the sweep that makes every test that flipped in one order
//     NOD, and (merge.go) what a merge's runs checked of each shard's part.
//
// The recorder is the core: the runner and its slots, run.go's run and
// record (every stage's runs go through them, and record stores their
// outcomes in the prefix store, store.go, and counts the coverage), the
// findings, the budget clock (budget.go, with the estimates that grow a
// budget the analysis chose) and the logger. analyze.go holds Run and the
// driver that chains the stages, passing each what the last gave: analyse
// runs the original order, ordering and detection, and settleCandidates
// hands detection's candidates to confirmation and the confirmed ones to
// minimisation (settleRound), again for the tests that flipped in
// minimisation's runs, then shares the cleaners. shard.go splits
// detection across machines.
package od

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
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
	// Log receives progress notes (Logf) and the notes about single tests,
	// each victim's search (Debugf); the zero Logger drops them.
	Log logs.Logger
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
	// Focus, when set, judges only its targets and replaces the
	// exploration orders by orders that cover its pairs (a change's
	// analysis); nil analyses the whole suite.
	Focus *Focus
	// Writers names, per test, the tests a data-dependency record of the
	// whole suite says wrote state it read: minimisation tries each alone
	// as its polluter (one run) before any delta debugging, as it tries a
	// Focus's writers.
	Writers map[string][]string
	// Recorded are the runs of all shards of an analysis (MergeRuns): the
	// analysis replays them instead of running the detection orders, as
	// candidates' evidence only (as warm runs are), runs the original
	// order and Verify of each shard's detection orders here, then
	// confirms and minimises the candidates in fresh JVMs.
	Recorded []RecordedRun
	// Verify is how many of each shard's recorded detection orders a
	// merge reruns, chosen at random; negative: all of them.
	Verify int
	// VerifySeed seeds that choice; 0 takes one from crypto/rand, so that
	// whoever wrote the shards' parts cannot know which orders are rerun.
	VerifySeed uint64
}

// recorder is the core every stage of one Run call holds: the runner and
// its slots, the prefix stores the runs are recorded in (run.go), the
// coverage counters, the findings, the budget clock and the logger.
type recorder struct {
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
	// planned are the detection orders (set before they run): a settled
	// known victim's failures count as evidence only in them.
	planned [][]string

	mu  sync.Mutex // guards the fields below
	cov Coverage
	// cover tells which of a Focus's pairs a run covers (nil: adjacency).
	cover    *pairCover
	pairs    map[[2]int]bool
	findings map[string]map[report.Kind]*Finding
	flipped  map[string]milestone // when a test was first seen both passing and failing
	// firstSeen is, per test, when the first run that saw it pass ([0]) and
	// the first that saw it fail ([1]) ended (zero: none did).
	firstSeen map[string][2]time.Time
	// tried are the tests some run's order held, completed those some run
	// saw pass, fail or skip (not crash, time out or give no result).
	tried, completed map[string]bool

	originals []*launcher.Result // the runs of the original order (ours, not a shard's)
	rerun     map[string]bool    // the orders (orderKey) that ran here
	runs      []RecordedRun      // a shard's runs
	stop      func()             // kills the runs still going (the hard stop)
	timer     *time.Timer        // arms stop at the budget plus grace
	auto      bool               // the analysis chose the budget (Config.Budget was 0)
}

// Run runs the analysis on cfg.Tests through r.
func Run(ctx context.Context, r Runner, cfg Config) (*Result, error) {
	rec := newRecorder(r, cfg)
	n := len(rec.s.tests)
	if n == 0 {
		return (&reporting{rec}).result(), nil
	}
	hard, cancel := context.WithCancel(ctx)
	defer cancel()
	rec.stop = cancel
	defer func() {
		if rec.timer != nil {
			rec.timer.Stop()
		}
	}()
	if cfg.Budget > 0 {
		rec.setBudget(cfg.Budget, "")
	}
	err := rec.analyse(hard)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, err
	case errors.Is(err, errBudget) || hard.Err() != nil:
		rec.cov.BudgetExhausted = true
		rec.logf("budget of %s spent: reporting what is confirmed", rec.cfg.Budget)
	default:
		return nil, err
	}
	return (&reporting{rec}).result(), nil
}

// newRecorder returns the core of an analysis of cfg.Tests through r,
// with cfg's zero fields set to their defaults, started now.
func newRecorder(r Runner, cfg Config) *recorder {
	if cfg.OriginalRuns <= 0 {
		cfg.OriginalRuns = DefaultOriginalRuns
	}
	if cfg.Confirmations <= 0 {
		cfg.Confirmations = DefaultConfirmations
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	rec := &recorder{
		cfg: cfg, runner: r, s: newSuite(dedupe(cfg.Tests), cfg.Fixtures), st: newStore(), warm: newStore(),
		slots: semaphore.NewWeighted(int64(cfg.Workers)), start: time.Now(), index: map[string]int{},
		pairs: map[[2]int]bool{}, findings: map[string]map[report.Kind]*Finding{},
		flipped: map[string]milestone{}, firstSeen: map[string][2]time.Time{},
		tried: map[string]bool{}, completed: map[string]bool{}, rerun: map[string]bool{},
	}
	for i, t := range rec.s.tests {
		rec.index[t] = i
	}
	n := len(rec.s.tests)
	rec.cov = Coverage{Seed: cfg.Seed, Tests: n, Generators: map[string]int{}, Budget: cfg.Budget, Pairs: n * (n - 1)}
	if f := cfg.Focus; f != nil {
		rec.cov.Pairs = len(rec.required())
		rec.cover = newPairCover(f)
	}
	return rec
}

// setBudget fixes the analysis' budget and arms the hard stop (again,
// when the budget is extended): runs still going at the budget get a grace
// period, then are killed.
func (rec *recorder) setBudget(b time.Duration, why string) {
	rec.cfg.Budget = b
	rec.mu.Lock()
	rec.cov.Budget = b
	rec.cov.BudgetWhy = why
	rec.mu.Unlock()
	if rec.timer != nil {
		rec.timer.Stop()
	}
	rec.timer = time.AfterFunc(time.Until(rec.hardStop()), rec.stop)
}

// hardStop is when the runs still going are killed: the budget's end plus
// its grace, a tenth of the budget and at least 10 s.
func (rec *recorder) hardStop() time.Time {
	return rec.start.Add(rec.cfg.Budget + max(10*time.Second, rec.cfg.Budget/10))
}

func (rec *recorder) logf(format string, args ...any) {
	rec.cfg.Log.Logf(format, args...)
}

func (rec *recorder) debugf(format string, args ...any) {
	rec.cfg.Log.Debugf(format, args...)
}

// analyse runs the stages: the original order, ordering, detection (after
// fixing the budget when the caller left it open), then, with detection's
// candidates, confirmation, minimisation and the sharing of cleaners
// (settleCandidates); a merge replays its shards' runs instead of
// detection (merge.replay).
func (rec *recorder) analyse(ctx context.Context) error {
	for _, r := range rec.cfg.Original {
		rec.record(plannedOrder{gen: GenOriginal, label: GenOriginal, plan: -1}, r, false)
	}
	if len(rec.cfg.Recorded) > 0 {
		return (&merge{rec}).replay(ctx)
	}
	if err := rec.runOriginal(ctx); err != nil {
		return err
	}
	if rec.cfg.AutoWorkers {
		rec.sizeWorkers()
	}
	og := &ordering{rec}
	rec.targets = og.analysable()
	orders, rounds := og.scheduled()
	rec.planned = [][]string{rec.s.tests}
	for _, o := range orders {
		rec.planned = append(rec.planned, o.tests)
	}
	og.fixBudget(rounds)
	end := rec.start.Add(rec.cfg.Budget)
	detectEnd := rec.start.Add(time.Duration(float64(rec.cfg.Budget) * detectShare))
	rec.cfg.Progress.Phase("detecting", len(orders), detectEnd)
	det := &detection{recorder: rec, orders: orders}
	if err := det.detect(ctx, detectEnd, end); errors.Is(err, errBudget) {
		rec.mu.Lock()
		rec.cov.BudgetExhausted = true
		rec.mu.Unlock()
		rec.logf("detection stopped at its share of the budget")
	} else if err != nil {
		return err
	}
	if rec.cfg.Shard.N > 0 {
		return nil
	}
	return rec.settleCandidates(ctx, det)
}

// runOriginal runs the original order until it has Config.OriginalRuns
// runs (Config.Original included), before the budget's end (the longest
// automatic one when the analysis chooses it later).
func (rec *recorder) runOriginal(ctx context.Context) error {
	var reruns []plannedOrder
	for i := len(rec.cfg.Original); i < rec.cfg.OriginalRuns; i++ {
		reruns = append(reruns, plannedOrder{gen: GenOriginal, label: fmt.Sprintf("original run %d", i+1), tests: rec.s.tests, plan: -1})
	}
	first := rec.start.Add(rec.cfg.Budget)
	if rec.cfg.Budget == 0 {
		first = rec.start.Add(MaxAutoBudget)
	}
	rec.cfg.Progress.Phase("running the original order", len(reruns), first)
	return rec.run(ctx, first, reruns)
}

// settleCandidates confirms the candidates, classifies them and minimises
// them by cluster, then shares cleaners. A budget the analysis chose first
// grows, within MaxAutoBudget, to what the candidates need (extendBudget).
// Confirmation starts its runs until the budget's end or, when they do not
// fit, until the hard stop less one run of the suite, so that they end
// before it; minimisation and the sharing of cleaners stop at the budget's
// end.
func (rec *recorder) settleCandidates(ctx context.Context, det *detection) error {
	cands := det.candidates()
	rec.cfg.Progress.Found(len(cands))
	if len(cands) == 0 {
		return nil
	}
	if rec.auto {
		rec.extendBudget(cands)
	}
	end := rec.start.Add(rec.cfg.Budget)
	since := time.Now()
	defer func() {
		rec.mu.Lock()
		rec.cov.Minimising = time.Since(since)
		rec.mu.Unlock()
	}()
	// Minimisation runs orders detection did not: a test that flips in
	// them for the first time is confirmed and minimised in another round.
	seen := map[string]bool{}
	m := newMinimisation(rec, end)
	for len(cands) > 0 {
		for _, c := range cands {
			seen[c.test] = true
		}
		if err := rec.settleRound(ctx, m, cands); err != nil {
			return err
		}
		cands = slices.DeleteFunc(det.candidates(), func(c *candidate) bool { return seen[c.test] })
		if len(cands) > 0 {
			names := make([]string, len(cands))
			for i, c := range cands {
				names[i] = c.test
			}
			rec.logf("%d more candidate(s) flipped while minimising: %s", len(cands), strings.Join(names, ", "))
		}
	}
	if err := (&cleanerSharing{recorder: rec, cleaners: m.cleanerGroups, deadline: end}).shareCleaners(ctx); err != nil {
		return err
	}
	rec.mu.Lock()
	rec.cov.Minimised = time.Since(rec.start)
	rec.mu.Unlock()
	return nil
}

// settleRound confirms one round of candidates (the candidates detection
// gave, or those that flipped since) and hands the confirmed ones to
// minimisation, which minimises them before its deadline, the budget's end
// (see settleCandidates).
func (rec *recorder) settleRound(ctx context.Context, m *minimisation, cands []*candidate) error {
	end := m.deadline
	confirmEnd := rec.hardStop().Add(-rec.planCost([]plannedOrder{{tests: rec.s.tests}}) * time.Duration(rec.cfg.Workers))
	if confirmEnd.Before(end) {
		confirmEnd = end
	}
	cf := &confirmation{recorder: rec, cands: cands}
	if need := rec.planCost(cf.runs()); time.Now().Add(need).After(end) {
		rec.logf("confirming %d candidate(s) needs ~%s, past the budget's end: confirmation may run into its grace", len(cands), need.Round(time.Second))
	}
	rec.cfg.Progress.Phase("confirming", 0, confirmEnd)
	rec.logf("%d candidate(s) after %d orders (%s): confirming", len(cands), rec.cov.Orders, time.Since(rec.start).Round(100*time.Millisecond))
	confirmed, err := cf.confirm(ctx, confirmEnd)
	rec.mu.Lock()
	rec.cov.Confirmed = time.Since(rec.start)
	rec.mu.Unlock()
	if err != nil {
		return err
	}
	rec.logf("confirmed after %d orders (%s): minimising", rec.cov.Orders, time.Since(rec.start).Round(100*time.Millisecond))
	rec.cfg.Progress.Phase("minimising", 0, end)
	return m.minimiseClusters(ctx, clusters(confirmed))
}
