// The cleaner search of minimisation: cleaners finds a victim's minimal
// cleaner groups for one of its polluter groups, and the step after the
// last round of minimisation, cleanerSharing, takes the cleaner groups
// found and gives the victims of one polluter group each other's, tried in
// one batch.

package od

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// cleaners finds the minimal groups of tests that, run between polluter
// group g and victim t, make t pass: the cleaners found for g and other
// victims first, then the tests seen between g and t in passing orders,
// then all tests (polluters of t excepted), each list run at once and, when
// it passes, minimised by delta debugging for as long as what is left of it
// (without the cleaners found so far) still passes.
func (m *minimisation) cleaners(ctx context.Context, t string, g []string, polluters [][]string) ([][]string, error) {
	exclude := notCleaners(t, polluters)
	chunks := m.cleanerChunks(t, g, exclude)
	test := m.effect(t, g, false)
	passed, err := test(ctx, chunks)
	if err != nil {
		return nil, err
	}
	var groups [][]string
	found := map[string]bool{}
	for i, chunk := range chunks {
		rest, ok := without(chunk, found), passed[i]
		if len(rest) > 0 && len(rest) < len(chunk) {
			res, err := test(ctx, [][]string{rest})
			if err != nil {
				return groups, err
			}
			ok = res[0]
		}
		for ok && len(rest) > 0 {
			c, err := ddmin(ctx, rest, test, m.freeSlots)
			if err != nil {
				return groups, err
			}
			order := m.s.feasible(concat(g, c, []string{t}))
			if err := m.ensure(ctx, m.deadline, genConfirm, [][]string{order}, m.cfg.Confirmations); err != nil {
				return groups, err
			}
			switch tl := m.st.get(order).tally; {
			case tl.mixed():
				return groups, errFlipped
			case tl.passes():
				groups = append(groups, c)
				m.mu.Lock()
				m.cleanerGroups[orderKey(g)] = appendNew(m.cleanerGroups[orderKey(g)], c)
				m.mu.Unlock()
			}
			for _, x := range c {
				found[x] = true
			}
			if rest = without(rest, found); len(rest) > 0 {
				res, err := test(ctx, [][]string{rest})
				if err != nil {
					return groups, err
				}
				ok = res[0]
			}
		}
	}
	return groups, nil
}

// cleanerChunks returns the lists of tests cleaners tries between polluter
// group g and victim t, none in exclude: the cleaners known for g, the
// writers of t's state a change's dataflow record names, the tests seen
// between g and t in passing orders, then all tests.
func (m *minimisation) cleanerChunks(t string, g []string, exclude map[string]bool) [][]string {
	var chunks [][]string
	m.mu.Lock()
	for _, c := range m.cleanerGroups[orderKey(g)] {
		if !overlaps(c, exclude) {
			chunks = append(chunks, c)
		}
	}
	m.mu.Unlock()
	// Beyond the known cleaners: the tests seen between g and t in passing
	// orders, then all tests.
	var between []string
	inBetween := map[string]bool{}
	for _, o := range m.hints(t) {
		last := lastIndexOfGroup(o.order, g)
		if !o.passes() || last < 0 {
			continue
		}
		for _, x := range o.order[last+1 : len(o.order)-1] {
			if !exclude[x] && !inBetween[x] {
				inBetween[x] = true
				between = append(between, x)
			}
		}
	}
	// In the suite's order, so that a group of cleaners runs as it does there.
	slices.SortFunc(between, func(x, y string) int { return m.index[x] - m.index[y] })
	// A cleaner writes the state: the writers a change's dataflow record
	// names come first.
	if ws := m.writers(t, without(m.s.tests, exclude)); len(ws) > 0 {
		m.debugf("victim %s: %d writer(s) of its state tried first as cleaners of %v", t, len(ws), g)
		chunks = append(chunks, ws)
	}
	if len(between) > 0 {
		chunks = append(chunks, between)
	}
	// All of them, for groups of cleaners that were not all seen in between.
	if all := without(m.s.tests, exclude); len(all) > len(between) {
		chunks = append(chunks, all)
	}
	return chunks
}

// notCleaners is the set of tests that cannot be cleaners of victim t: t
// itself and its polluters.
func notCleaners(t string, polluters [][]string) map[string]bool {
	out := map[string]bool{t: true}
	for _, p := range polluters {
		for _, x := range p {
			out[x] = true
		}
	}
	return out
}

// cleanerSharing is the step after the last round of minimisation: it
// takes the cleaner groups minimisation found, by polluter group (orderKey),
// and completes the victims' findings with the ones they lack, starting no
// run after deadline.
type cleanerSharing struct {
	*recorder
	cleaners map[string][][]string
	deadline time.Time
}

// shareCleaners tries, for every victim, the cleaners found for other
// victims of the same polluter group that its own search did not find (the
// searches ran at the same time, or another test in the searched list
// masked the cleaner), and adds those that k runs confirm: a cleaner left
// to more than two victims of one polluter group is tried on them all in
// one batch (cleanerBatch), the rest one run each.
func (sh *cleanerSharing) shareCleaners(ctx context.Context) error {
	tries, err := sh.batchCleaners(ctx, sh.cleanerTries())
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, tr := range tries {
		g.Go(func() error {
			order := sh.s.feasible(concat(tr.p, tr.c, []string{tr.f.Test}))
			if err := sh.ensure(gctx, sh.deadline, genMinimise, [][]string{order}, 1); err != nil {
				return err
			}
			if !sh.st.get(order).passes() {
				return nil
			}
			if err := sh.ensure(gctx, sh.deadline, genConfirm, [][]string{order}, sh.cfg.Confirmations); err != nil {
				return err
			}
			if sh.st.get(order).passes() {
				sh.mu.Lock()
				tr.f.Cleaners = appendNew(tr.f.Cleaners, tr.c)
				sh.mu.Unlock()
			}
			return nil
		})
	}
	return g.Wait()
}

// cleanerTry is a cleaner group c found for polluter group p that victim
// f's finding lacks.
type cleanerTry struct {
	f    *Finding
	p, c []string
}

// cleanerTries returns, victim by victim (by name), the known cleaners of
// each of its polluter groups that its finding lacks.
func (sh *cleanerSharing) cleanerTries() []cleanerTry {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var victims []*Finding
	for _, byKind := range sh.findings {
		if f := byKind[report.ODVictim]; f != nil && !f.Incomplete {
			victims = append(victims, f)
		}
	}
	slices.SortFunc(victims, func(x, y *Finding) int { return strings.Compare(x.Test, y.Test) })
	var tries []cleanerTry
	for _, f := range victims {
		exclude := notCleaners(f.Test, f.Polluters)
		for _, p := range f.Polluters {
			for _, c := range sh.cleaners[orderKey(p)] {
				if !overlaps(c, exclude) && !slices.ContainsFunc(f.Cleaners, func(h []string) bool { return slices.Equal(h, c) }) {
					tries = append(tries, cleanerTry{f, p, c})
				}
			}
		}
	}
	return tries
}

// batchCleaners runs the tries of one polluter and cleaner group on more
// than two victims as one batch each (cleanerBatch) and returns the tries
// left: those of the other pairs, and those a batch did not settle.
func (sh *cleanerSharing) batchCleaners(ctx context.Context, tries []cleanerTry) ([]cleanerTry, error) {
	byPair := map[string][]cleanerTry{}
	var keys []string
	for _, tr := range tries {
		key := orderKey(tr.p) + " | " + orderKey(tr.c)
		if byPair[key] == nil {
			keys = append(keys, key)
		}
		byPair[key] = append(byPair[key], tr)
	}
	var left []cleanerTry
	for _, key := range keys {
		trs := byPair[key]
		if len(trs) > 2 {
			var err error
			if trs, err = sh.cleanerBatch(ctx, trs); err != nil {
				return nil, err
			}
		}
		left = append(left, trs...)
	}
	return left, nil
}

// cleanerBatch runs the tries' polluter group, their cleaner group and then
// all their victims in one order, the batch, and the same order without the
// cleaner, the control, k times each. A victim that passes in every run of
// the batch and fails in every run of the control owes that to the cleaner,
// which joins its finding; it returns the tries it leaves open.
func (sh *cleanerSharing) cleanerBatch(ctx context.Context, trs []cleanerTry) ([]cleanerTry, error) {
	k, p, c := sh.cfg.Confirmations, trs[0].p, trs[0].c
	names := make([]string, len(trs))
	for i, tr := range trs {
		names[i] = tr.f.Test
	}
	classes := classesOf(p)
	slices.SortStableFunc(names, func(x, y string) int {
		return cmp.Or(firstIf(classes[testid.ClassOf(x)], classes[testid.ClassOf(y)]), cmp.Compare(sh.index[x], sh.index[y]))
	})
	batch, control := sh.s.feasible(concat(p, c, names)), sh.s.feasible(concat(p, names))
	if err := sh.ensure(ctx, sh.deadline, genConfirm, [][]string{batch, control}, k); err != nil {
		return nil, err
	}
	var open []cleanerTry
	for _, tr := range trs {
		at, ct := slices.Index(batch, tr.f.Test), slices.Index(control, tr.f.Test)
		if at >= 0 && ct >= 0 && isSubsequence(concat(p, c), batch[:at]) && isSubsequence(p, control[:ct]) {
			with, without := sh.st.get(batch[:at+1]).tally, sh.st.get(control[:ct+1]).tally
			if with.runs() >= k && with.passes() && without.runs() >= k && without.fails() {
				sh.mu.Lock()
				tr.f.Cleaners = appendNew(tr.f.Cleaners, c)
				sh.mu.Unlock()
				continue
			}
		}
		open = append(open, tr)
	}
	return open, nil
}
