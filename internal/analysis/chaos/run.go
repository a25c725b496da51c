package chaos

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

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
	runCtx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	mustRun = min(mustRun, len(jobs))
	r := &fedRun{
		a: a, ctx: ctx, runCtx: runCtx, cancelAll: cancelAll, f: f,
		jobs: jobs, results: make([]*launcher.Result, len(jobs)), finished: make(chan ended),
		mustRun: mustRun, fedFrom: len(jobs), starts: a.startOrder(jobs, mustRun),
		// The budget is sized from the unperturbed runs among the must-run jobs.
		sizing: len(unperturbedJobs(jobs[:mustRun])),
		split:  map[int]*pieces{},
	}
	for {
		r.startMore()
		if r.running == 0 {
			break
		}
		if d, ok := r.wait(); ok {
			r.end(d)
		}
	}
	if r.failed != nil {
		return nil, r.failed
	}
	return r.results, nil
}

// fedRun is one runFed in progress.
type fedRun struct {
	a           *analysis
	ctx, runCtx context.Context // the caller's, and the one cancelAll cancels
	cancelAll   context.CancelFunc
	f           feed
	jobs        []launcher.Job // the jobs given, then those f added
	results     []*launcher.Result
	finished    chan ended
	mustRun     int
	fedFrom     int             // the first job f added
	starts      []int           // the jobs' indexes in the order to start them
	next        int             // how many of starts have started
	running     int             // JVMs running
	sizing      int             // the unperturbed must-run jobs still running
	stopped     bool            // no more jobs start
	failed      error           // the first failure, which cancelled the others
	lastStart   time.Time       // when the last JVM started
	split       map[int]*pieces // the split jobs, by index
}

// ended is the end of one JVM of runFed: its result, or why it has none.
type ended struct {
	jvm  *jvm
	r    *launcher.Result
	err  error
	took time.Duration
}

// start runs j in a JVM of its own; its end arrives on finished. The
// budget's end cuts a bounded one.
func (r *fedRun) start(j *jvm) {
	a := r.a
	if r.running >= a.cfg.Workers && a.cfg.Log.Debugging() && a.cfg.load != nil {
		a.cfg.Log.Debugf("a JVM beyond the %d workers: %d of the %d running wait", a.cfg.Workers, a.cfg.load.WaitingJVMs(), r.running)
	}
	r.running++
	r.lastStart = time.Now()
	jobCtx, cancel := r.runCtx, context.CancelFunc(func() {})
	if j.bounded {
		jobCtx, cancel = context.WithDeadline(r.runCtx, a.limit())
	}
	finished := r.finished
	go func() {
		defer cancel()
		began := time.Now()
		rs, err := a.runner.RunJobs(jobCtx, []launcher.Job{j.job})
		d := ended{jvm: j, err: err, took: time.Since(began)}
		if err == nil {
			d.r = rs[0]
		}
		finished <- d
	}()
}

// startMore starts JVMs while a worker is free (or one more may start, see
// spare) and the run is not stopped: the next job in start order, those f
// adds once every job has started, or, when nothing else waits, the part
// of a split job's order that one of its JVMs hands over (see handOver).
// The caller's cancelling stops the run.
func (r *fedRun) startMore() {
	a := r.a
	for !r.stopped && (r.running < a.cfg.Workers || a.spare(r.running, r.lastStart)) {
		if r.ctx.Err() != nil {
			a.interrupt()
			r.stopped = true
			return
		}
		if r.next == len(r.jobs) && r.f.more != nil {
			for _, j := range r.f.more(r.results) {
				r.starts = append(r.starts, len(r.jobs))
				r.jobs, r.results = append(r.jobs, j), append(r.results, nil)
			}
		}
		if r.next == len(r.jobs) {
			// Nothing else waits: a split job's JVM may hand part of its order over.
			if j := a.handOver(r.split); j != nil {
				r.start(j)
				continue
			}
			return
		}
		i := r.starts[r.next]
		if i >= r.mustRun && !r.mayStart() {
			return
		}
		r.next++
		j := &jvm{i: i, job: r.jobs[i], bounded: i >= r.mustRun}
		if j.job.Handoff != nil {
			j.job.Handoff = launcher.NewHandoff()
			r.split[i] = &pieces{began: time.Now(), running: []*jvm{j}}
		}
		r.start(j)
	}
}

// mayStart reports whether a job after the first mustRun may start now:
// once the unperturbed must-run jobs have sized the budget (when it was not
// sized yet), and while it lasts; its end stops the run.
func (r *fedRun) mayStart() bool {
	a := r.a
	if a.deadline.IsZero() {
		if r.sizing > 0 {
			return false // the unperturbed must-run jobs size the budget
		}
		a.sizeBudget(unperturbedOf(r.jobs[:r.mustRun], r.results[:r.mustRun]))
	}
	if !time.Now().Before(a.limit()) {
		a.res.BudgetExhausted = true
		r.stopped = true
		return false
	}
	return true
}

// wait waits for the end of a JVM, and reports false when it woke for
// another reason that may let more start: f's wake, or recheck's. Before
// waiting, it starts a JVM for control runs ahead of them when f asks for
// one, every job has started and the cores have room (see prestartControl).
func (r *fedRun) wait() (ended, bool) {
	a := r.a
	ahead := !r.stopped && r.f.ahead != nil && r.f.ahead(r.results)
	if ahead && r.next == len(r.jobs) && a.coresFree(r.running, r.lastStart) && a.prestartControl() {
		r.lastStart = time.Now()
	}
	select {
	case d := <-r.finished:
		return d, true
	case <-r.f.wake:
	case <-a.recheck(r.stopped, r.running, r.next < len(r.jobs) || r.f.more != nil, ahead, a.spreadOpen() && splitting(r.split)):
	}
	return ended{}, false
}

// end records the end of a JVM: the result of its job (for a split job,
// once its last JVM ended, the JVMs' results joined), or its failure. The
// caller's cancelling and the budget's end stop the run; a cut fed job
// leaves it going (the analysis runs what it still needs after); any other
// failure stops it and cancels the other JVMs.
func (r *fedRun) end(d ended) {
	a := r.a
	r.running--
	i := d.jvm.i
	if i < r.mustRun && !perturbs(r.jobs[i]) {
		r.sizing--
	}
	took := d.took
	if p := r.split[i]; p != nil {
		whole, last := p.add(d.jvm, d.r)
		if d.err == nil {
			if !last || whole == nil {
				return // other JVMs still run parts of the job, or one failed
			}
			d.r, took = whole, time.Since(p.began)
		}
	}
	switch {
	case d.err == nil:
		r.results[i] = d.r
		if a.wall == nil {
			a.wall = map[*launcher.Result]time.Duration{}
		}
		a.wall[d.r] = took
		a.res.Runs++
	case r.ctx.Err() != nil:
		a.interrupt()
		r.stopped = true
	case r.failed != nil:
		// cancelled by the first failure
	case i >= r.fedFrom && errors.Is(d.err, context.DeadlineExceeded):
		// Fed work cut: the analysis runs what it still needs after.
	case i >= r.mustRun && errors.Is(d.err, context.DeadlineExceeded):
		a.res.BudgetExhausted = true
		r.stopped = true
	default:
		r.failed = fmt.Errorf("run %d of %d: %w", i+1, len(r.jobs), d.err)
		r.stopped = true
		r.cancelAll()
	}
}

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
