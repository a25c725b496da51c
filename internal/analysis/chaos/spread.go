package chaos

import (
	"cmp"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

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
			if why != "" && a.cfg.Log.Debugging() {
				a.cfg.Log.Debugf("the combined run stays in one JVM: %s", why)
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
