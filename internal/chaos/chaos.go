package chaos

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// DefaultBudget bounds an analysis when Config.Budget is 0.
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
	// unperturbed one always run, attribution and further single-strategy
	// runs only while the budget lasts. 0 means DefaultBudget.
	Budget time.Duration
	// Workers is how many JVMs the runner runs at once (runs are started in
	// batches of this size so the budget can stop between them); 0 means
	// one per core.
	Workers int
	// Logf receives progress notes; nil discards them.
	Logf func(format string, args ...any)
}

// Finding is a test that fails perturbed and passes unperturbed.
type Finding struct {
	Test string
	// Strategies is the strategy the failure is attributed to; several
	// when only their combination reproduced it, or when the budget ended
	// before attribution (then Attributed is false).
	Strategies []Strategy
	// Attributed says a run with Strategies[0] alone made the test fail.
	Attributed bool
	// Order is the order, ending with the test, to reproduce the failure.
	Order []string
	// Message is the perturbed failure's message plus flaky's notes.
	Message string
	// CallSites are the perturbed call sites of the strategies' groups the
	// test hit (its own, or else those hit in its class's fixtures).
	CallSites []report.CallSite
	Evidence  []Evidence
}

// Evidence is one run that decided a finding.
type Evidence struct {
	Run        string     // "unperturbed", "combined" or a strategy id
	Strategies []Strategy // nil for the unperturbed run
	Order      []string   // the order run, ending with the test
	Outcome    launcher.Outcome
	Message    string
}

// Result is an analysis' findings and what it ran.
type Result struct {
	Mode       Mode
	Strategies []Strategy // the strategies that ran
	Findings   []Finding
	Runs       int // JVMs started
	// FailUnperturbed are tests that failed perturbed but also unperturbed:
	// not reported here (they are broken or flaky anyway).
	FailUnperturbed []string
	// Unconfirmed are tests that failed perturbed while their unperturbed
	// outcome is unknown (the unperturbed run did not get to them).
	Unconfirmed []string
	// Dismissed are perturbed failures that are not the tests' flakiness
	// (see dismiss); they were treated as passes.
	Dismissed       []Dismissal
	Budget          time.Duration
	BudgetExhausted bool
	Duration        time.Duration
}

// Run analyses the suite with r.
func Run(ctx context.Context, r Runner, cfg Config) (*Result, error) {
	start := time.Now()
	if len(cfg.Tests) == 0 {
		return nil, errors.New("no tests to run")
	}
	if cfg.Budget <= 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
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
	a := &analysis{cfg: cfg, runner: r, deadline: start.Add(cfg.Budget),
		res: &Result{Mode: cfg.Mode, Budget: cfg.Budget}}
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
	a.res.Duration = time.Since(start)
	return a.res, nil
}

// analysis is one Run in progress.
type analysis struct {
	cfg      Config
	runner   Runner
	deadline time.Time
	res      *Result
	baseline []*launcher.Result
}

// job builds the job running order with strategies (none: unperturbed).
func (a *analysis) job(order []string, strategies []Strategy) (launcher.Job, error) {
	opts, err := a.cfg.Settings.AgentOptions(strategies)
	if err != nil {
		return launcher.Job{}, err
	}
	return launcher.Job{Order: order, RunOptions: launcher.RunOptions{AgentOptions: opts}}, nil
}

// run runs jobs in batches of Workers; batches after the first mustRun jobs
// only start while the budget lasts and are cancelled when it ends. Jobs
// that did not run get nil results.
func (a *analysis) run(ctx context.Context, jobs []launcher.Job, mustRun int) ([]*launcher.Result, error) {
	results := make([]*launcher.Result, len(jobs))
	for i := 0; i < len(jobs); {
		n := min(a.cfg.Workers, len(jobs)-i)
		bounded := i >= mustRun
		if !bounded {
			n = min(n, mustRun-i)
		}
		batchCtx, cancel := ctx, context.CancelFunc(func() {})
		if bounded {
			if !time.Now().Before(a.deadline) {
				a.res.BudgetExhausted = true
				break
			}
			batchCtx, cancel = context.WithDeadline(ctx, a.deadline)
		}
		batch, err := a.runner.RunJobs(batchCtx, jobs[i:i+n])
		cancel()
		if err != nil {
			if bounded && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				a.res.BudgetExhausted = true
				break
			}
			return nil, err
		}
		a.res.Runs += n
		copy(results[i:], batch)
		i += n
	}
	return results, nil
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

// setBaseline uses the caller's unperturbed runs, else the ones just run.
func (a *analysis) setBaseline(ran []*launcher.Result) {
	a.baseline = a.cfg.Baseline
	if len(a.baseline) == 0 {
		for _, r := range ran {
			if r != nil {
				a.baseline = append(a.baseline, r)
			}
		}
	}
}

// passesUnperturbed reports whether test passed in the unperturbed runs; a
// test that failed there, or that they did not get to, is recorded and
// reported false.
func (a *analysis) passesUnperturbed(test string) bool {
	passed := false
	for _, r := range a.baseline {
		t, ok := resultOf(r, test)
		switch {
		case !ok:
		case t.Outcome.Failed():
			a.res.FailUnperturbed = append(a.res.FailUnperturbed, test)
			return false
		case t.Outcome == launcher.Pass:
			passed = true
		}
	}
	if !passed {
		a.res.Unconfirmed = append(a.res.Unconfirmed, test)
	}
	return passed
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
	results, err := a.run(ctx, jobs, max(unperturbed, min(a.cfg.Workers, len(jobs))))
	if err != nil {
		return err
	}
	a.setBaseline(results[:unperturbed])
	byStrategy := map[string]*launcher.Result{}
	for i, s := range a.cfg.Strategies {
		if err := a.dismiss(ctx, []Strategy{s}, results[unperturbed+i]); err != nil {
			return err
		}
		if r := results[unperturbed+i]; r != nil {
			byStrategy[s.ID] = r
			a.res.Strategies = append(a.res.Strategies, s)
			a.noteEarlyEnd(s.ID, r)
		}
	}
	// Tests that failed with some strategy, in the order they ran.
	var failing []string
	for _, s := range a.res.Strategies {
		for _, t := range byStrategy[s.ID].Tests {
			if t.Outcome.Failed() && !slices.Contains(failing, t.Test) && entryOf(a.cfg.Tests, t.Test) >= 0 {
				failing = append(failing, t.Test)
			}
		}
	}
	for _, test := range failing {
		if !a.passesUnperturbed(test) {
			continue
		}
		order := a.cfg.Tests[:entryOf(a.cfg.Tests, test)+1]
		f := Finding{Test: test, Order: order, Attributed: true}
		var failedWith []Strategy
		for _, s := range a.res.Strategies {
			r := byStrategy[s.ID]
			t, _ := resultOf(r, test)
			f.Evidence = append(f.Evidence, Evidence{Run: s.ID, Strategies: []Strategy{s}, Order: order, Outcome: t.Outcome, Message: t.Message})
			if !t.Outcome.Failed() {
				continue
			}
			failedWith = append(failedWith, s)
			sites := callSites(r, test, func(strategy, _ string) bool { return strategy == s.ID })
			// The first strategy that failed it, preferring one within the
			// specification, then one whose call sites it hit.
			if f.Strategies == nil || f.Strategies[0].OutsideSpec && !s.OutsideSpec ||
				f.Strategies[0].OutsideSpec == s.OutsideSpec && len(f.CallSites) == 0 && len(sites) > 0 {
				f.Strategies, f.CallSites, f.Message = []Strategy{s}, sites, t.Message
			}
		}
		if others := slices.DeleteFunc(failedWith, func(s Strategy) bool { return s.ID == f.Strategies[0].ID }); len(others) > 0 {
			f.Message += "\n(" + Join(others) + " make it fail too)"
		}
		f.Message += outsideSpecNote(f.Strategies)
		f.Evidence = append(f.Evidence, a.baselineEvidence(test, order)...)
		a.res.Findings = append(a.res.Findings, f)
	}
	return nil
}

// noteEarlyEnd logs a perturbed run whose JVM ended before all tests ran:
// the tests it did not get to are not analysed.
func (a *analysis) noteEarlyEnd(label string, r *launcher.Result) {
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
			out = append(out, Evidence{Run: "unperturbed", Order: order, Outcome: t.Outcome, Message: t.Message})
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
		if e == test || strings.HasPrefix(test, e+"[") {
			return i
		}
	}
	return -1
}
