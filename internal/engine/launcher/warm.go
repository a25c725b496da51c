package launcher

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// warmPrefix starts the runner's notes about a warm JVM, and warmDone its
// last one (the runner's dev.flaky.runner.warm.Warm.PREFIX and DONE).
const (
	warmPrefix = "warm: "
	warmDone   = warmPrefix + "done: "
)

// RunWarm runs orders in one warm JVM, one after another, each in a fresh
// class loader over the module's class path (the project's classes, its
// dependencies, JUnit and the runner), with the JDK state that outlives a
// class loader (system properties, default locale and time zone, files of
// the working and temporary directories, System.out/err/in, shutdown hooks,
// ...) put back between orders; threads an order leaves running are noted.
// It is for exploring orders only: a warm run is not a fresh JVM, so no
// finding may rest on one (Result.Warm marks them). Once a test clashed
// over a resource, two or more orders share a warm JVM that runs with no
// other JVM at once (Result.Serial). An order the warm JVM did not finish
// (it stopped because an order left state it cannot put back, a test timed
// out, the JVM crashed or a test called System.exit), an order with a test
// that clashed over a resource, and a lone order after a clash run in
// fresh JVMs (RunWith) instead. The results are in the order of orders.
func (l *Launcher) RunWarm(ctx context.Context, orders [][]string) ([]*Result, error) {
	results := make([]*Result, len(orders))
	var shared, serial []int
	for i, o := range orders {
		switch {
		case len(o) == 0:
		case l.lanes.serial():
			serial = append(serial, i)
		default:
			shared = append(shared, i)
		}
	}
	if err := l.warmGroup(ctx, orders, shared, false, results); err != nil {
		return nil, err
	}
	if len(serial) > 1 {
		if err := l.warmGroup(ctx, orders, serial, true, results); err != nil {
			return nil, err
		}
	}
	for i, o := range orders {
		if results[i] != nil {
			continue
		}
		r, err := l.RunWith(ctx, o, RunOptions{})
		if err != nil {
			return nil, err
		}
		results[i] = r
	}
	return results, nil
}

// warmGroup runs the orders at the indexes idx in one warm JVM, beside
// other JVMs or, alone, with none at once, and stores the results it
// finished without a resource clash in results.
func (l *Launcher) warmGroup(ctx context.Context, orders [][]string, idx []int, alone bool, results []*Result) error {
	if len(idx) == 0 {
		return nil
	}
	picked := make([][]string, len(idx))
	for j, i := range idx {
		picked[j] = orders[i]
	}
	lock, unlock := l.lanes.running.RLock, l.lanes.running.RUnlock
	if alone {
		lock, unlock = l.lanes.running.Lock, l.lanes.running.Unlock
	}
	lock()
	done, err := l.runWarm(ctx, picked)
	unlock()
	if err != nil {
		return err
	}
	for j, r := range done {
		if r == nil || slices.ContainsFunc(r.Tests, Clashes) {
			continue
		}
		r.Serial = alone
		results[idx[j]] = r
		if l.opts.Ran != nil {
			l.opts.Ran(r)
		}
	}
	return nil
}

// runWarm runs orders in one warm JVM and returns a result for each order
// it finished, nil for the others.
func (l *Launcher) runWarm(ctx context.Context, orders [][]string) ([]*Result, error) {
	args := []string{"warm"}
	for _, o := range orders {
		orderFile, err := l.writeOrder(o)
		if err != nil {
			return nil, err
		}
		defer os.Remove(orderFile)
		args = append(args, "--order", orderFile)
	}
	asms := make([]*assembler, len(orders))
	for i, o := range orders {
		asms[i] = newAssembler(o)
	}
	ends := make([]time.Time, len(orders))
	notes := make([][]string, len(orders))
	var shown []string // the notes that say something is wrong, for Options.Notef
	cur, done := 0, false
	w := &watch{
		handle: func(m agent.Message, now time.Time) {
			if lg, ok := m.(*agent.Log); ok && strings.HasPrefix(lg.Message, warmPrefix) {
				note := strings.TrimRight(lg.Message, "\n")
				if cur > 0 {
					notes[cur-1] = append(notes[cur-1], note)
				}
				if lg.Level != "info" {
					shown = append(shown, note)
				}
				done = done || strings.HasPrefix(note, warmDone)
				return
			}
			if cur >= len(asms) {
				return
			}
			asms[cur].handle(m, now)
			if asms[cur].ended {
				ends[cur] = now
				cur++
			}
		},
		deadline: func() time.Time {
			if cur >= len(asms) {
				return time.Time{}
			}
			return asms[cur].deadline(l.opts.TestTimeout)
		},
		ended: func() bool { return done },
	}
	p, err := l.launch(ctx, args, w)
	if err != nil {
		return nil, err
	}
	if cur > 0 {
		notes[cur-1] = append(notes[cur-1], p.notes...)
	}
	if l.opts.Notef != nil {
		for _, note := range append(shown, p.notes...) {
			l.opts.Notef(note)
		}
	}
	out := make([]*Result, len(orders))
	begin := p.start
	total := max(ends[max(cur, 1)-1].Sub(p.start), 1)
	for i := range cur {
		a := asms[i]
		tests, _ := a.finish(ending{}, ends[i])
		n := append(notes[i], a.notes...)
		if l.opts.Notef != nil {
			for _, note := range a.notes {
				l.opts.Notef(note)
			}
		}
		d := ends[i].Sub(begin)
		out[i] = &Result{
			Order:         orders[i],
			Tests:         tests,
			ClassErrors:   a.classErrors,
			ClassScopes:   a.classScopes,
			Perturbations: a.perturbations,
			States:        a.states,
			Invariants:    a.invariants,
			Dataflow:      a.dataflow,
			Notes:         n,
			Output:        p.output,
			Duration:      d,
			Ended:         ends[i],
			Warm:          true,
			covered:       a.covered,
			resumeAt:      len(orders[i]),
			CPU:           time.Duration(float64(p.cpu) * float64(d) / float64(total)),
			RunDelay:      time.Duration(float64(p.runDelay) * float64(d) / float64(total)),
			DelayKnown:    p.delayKnown,
			MaxRSS:        p.maxRSS,
		}
		begin = ends[i]
	}
	return out, nil
}
