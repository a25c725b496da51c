package chaos

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// early starts, while the combined run goes on, the work its failures will
// need once it has ended: the control runs of each test that failed, and
// for one that hit call sites of more than one strategy, attribution's
// first round and the milder and again runs beside it (see
// controlledAndFirstRound). The combined run's JVM reports each test as it
// ends. Whenever a worker is free (the unperturbed run of the suite is
// shorter), the failures so far that will be candidates are planned, and
// the run gets one job: while the combined run goes on, a first round's,
// milder or again run first, then a control run of every planned test
// still due for one, so that a later failure's attribution need not wait
// for an earlier one's controls; once it has ended, every failure is known
// and the longer of the two goes first (a control run's tests by the
// unperturbed run's durations, an attribution run's by the combined run's),
// so that no long run starts last. What ran is read after the combined run
// as if it had run then, so the findings are the same; the workers' idle
// time is used. When nothing else is due, a free worker takes a run of the
// suite of one of ITERATION_ORDER's passes (see iterationPasses), which
// then need not run after the combined analysis.
type early struct {
	a    *analysis
	set  []Strategy
	jobs int // the combined run's own jobs, before early's
	wake chan struct{}
	err  error // from planning; nothing more is planned

	mu     sync.Mutex
	failed []failure                   // reported and not yet planned
	took   map[testid.ID]time.Duration // how long each test reported so far took (a template: its invocations)

	queue    []earlyJob     // planned first-round, milder and again runs
	tests    []string       // the planned candidates' tests
	controls map[string]int // the control runs handed out, by test
	passes   []string       // the seeds of ITERATION_ORDER's passes not handed out yet
	handed   []earlyJob     // the jobs handed out, the run's from index jobs on
}

// failure is a test that failed in the combined run, as its JVM reported it.
type failure struct {
	result launcher.TestResult
	sites  []agent.Perturbation
}

// earlyJob is a job early hands out, and what it is for.
type earlyJob struct {
	job      launcher.Job
	strategy Strategy // of a perturbed run
	kind     earlyKind
	seed     string // of a pass (see Config.seeds)
}

// earlyKind says what an early job is for.
type earlyKind int

const (
	earlyControl earlyKind = iota // a control run
	earlyFirst                    // attribution's first round
	earlyMilder                   // a milder run (planMilder)
	earlyAgain                    // an again run (planAgain)
	earlyPass                     // a run of the suite of one of ITERATION_ORDER's passes
)

// newEarly returns the early work of a combined run with set whose own jobs
// are the first jobs of the run.
func (a *analysis) newEarly(set []Strategy, jobs int) *early {
	return &early{a: a, set: set, jobs: jobs, wake: make(chan struct{}, 1), controls: map[string]int{}, took: map[testid.ID]time.Duration{}, passes: a.cfg.seeds()}
}

// onTestEnd is the combined run's launcher.RunOptions.OnTestEnd.
func (e *early) onTestEnd(t launcher.TestResult, sites []agent.Perturbation) {
	e.mu.Lock()
	e.took[testid.Parse(t.Test).Base()] += time.Duration(t.TimeMs) * time.Millisecond
	failed := t.Outcome.Failed()
	if failed {
		e.failed = append(e.failed, failure{result: t, sites: sites})
	}
	e.mu.Unlock()
	if !failed {
		return
	}
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// feed is the run's feed of early jobs. JVMs for control runs start ahead
// once a test has failed in the combined run (a suite that fails nowhere
// needs none) and while its JVM runs (a test may still fail; once it has
// ended, a JVM started ahead would wait for nothing).
func (e *early) feed() feed {
	return feed{wake: e.wake, more: e.more, ahead: func(results []*launcher.Result) bool { return len(e.tests) > 0 && results[0] == nil }}
}

// more plans the failures reported so far and returns the next job, none
// until the unperturbed run of the suite has ended (it says which failures
// are new and sizes the budget) and none once the budget has ended.
func (e *early) more(results []*launcher.Result) []launcher.Job {
	a := e.a
	if e.err != nil || a.res.Interrupted || !a.deadline.IsZero() && !time.Now().Before(a.limit()) {
		return nil
	}
	if len(a.baseline) == 0 {
		if slices.Contains(results[1:e.jobs], nil) {
			return nil
		}
		a.setBaseline(results[1:e.jobs])
	}
	if e.err = e.plan(); e.err != nil {
		return nil
	}
	var next earlyJob
	switch due := e.due(); {
	case len(e.queue) > 0 && (len(due) == 0 || results[0] == nil || e.cost(e.queue[0].job.Order, e.took) >= e.cost(due, durations(a.baseline))):
		next, e.queue = e.queue[0], e.queue[1:]
	case len(due) > 0:
		next.job, _ = a.job(a.testsOrder(due), nil)
		for _, t := range due {
			e.controls[t]++
		}
	case len(e.passes) > 0:
		next.seed, e.passes = e.passes[0], e.passes[1:]
		next.kind = earlyPass
		if next.job, e.err = a.passJob(next.seed); e.err != nil {
			return nil
		}
	default:
		return nil
	}
	e.handed = append(e.handed, next)
	return []launcher.Job{next.job}
}

// plan queues the first round and milder runs of the failures reported
// since the last call that will be candidates, the longest first by the
// combined run's durations (no late long run keeps a worker busy after the
// rest), and adds them to the tests due for control runs.
func (e *early) plan() error {
	e.mu.Lock()
	failed := e.failed
	e.failed = nil
	e.mu.Unlock()
	var cands []*candidate
	for _, f := range failed {
		if c, ok := e.candidate(f); ok {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	e.a.cfg.Log.Logf("%d test(s) failed so far in the combined run, which goes on: their control runs (%d each) and attribution start on free workers", len(cands), ControlRuns)
	e.tests = append(e.tests, testsOf(cands)...)
	if len(e.set) == 1 {
		return nil
	}
	round, err := e.a.planFirstRound(cands, nil)
	if err != nil {
		return err
	}
	for _, p := range []struct {
		s    singles
		kind earlyKind
	}{{round.first, earlyFirst}, {round.again, earlyAgain}, {round.milder, earlyMilder}} {
		for i, j := range p.s.jobs {
			e.queue = append(e.queue, earlyJob{job: j, strategy: p.s.strategies[i], kind: p.kind})
		}
	}
	slices.SortStableFunc(e.queue, func(x, y earlyJob) int {
		return cmp.Compare(e.cost(y.job.Order, e.took), e.cost(x.job.Order, e.took))
	})
	return nil
}

// cost returns how long the tests of order took by took (e.took, the
// combined run's durations, or the unperturbed run's).
func (e *early) cost(order []string, took map[testid.ID]time.Duration) (d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range order {
		d += took[testid.Parse(t).Base()]
	}
	return d
}

// due returns the planned tests that are due for another control run.
func (e *early) due() []string {
	return slices.DeleteFunc(slices.Clone(e.tests), func(t string) bool { return e.controls[t] >= ControlRuns })
}

// candidate returns the candidate that f will be once the combined run has
// ended (see candidates and dismiss), judged from what is known now; false
// when it will not be one.
func (e *early) candidate(f failure) (*candidate, bool) {
	a, t := e.a, f.result
	entry := entryOf(a.cfg.Tests, t.Test)
	if entry < 0 || !ownFailure(t) || a.excusal(e.set, t) != "" || !a.passedBaseline(t.Test) || slices.Contains(e.tests, t.Test) {
		return nil, false
	}
	return a.newCandidate(t, entry, f.sites), true
}

// record adds what early ran, from the run's results: the first-round runs
// to ran (their failures dismissed as attribution's are), the milder and
// again runs to the analysis', the passes' runs to its passRan (one the
// budget cut runs again after, see iterationPasses) and the control runs to
// its control runs.
func (e *early) record(results []*launcher.Result, ran map[string][]singleRun) {
	for i, j := range e.handed {
		r := results[e.jobs+i]
		p := singles{strategies: []Strategy{j.strategy}, jobs: []launcher.Job{j.job}}
		switch j.kind {
		case earlyFirst:
			e.a.recordSingles(p, []*launcher.Result{r}, ran)
		case earlyMilder:
			p.record([]*launcher.Result{r}, e.a.milder)
		case earlyAgain:
			p.record([]*launcher.Result{r}, e.a.again)
		case earlyPass:
			if r != nil {
				e.a.passRan[j.seed] = r
			}
		default:
			e.a.controlRuns = append(e.a.controlRuns, r)
		}
	}
}
