// Minimisation, the last stage: minimiseClusters takes the confirmed
// order-dependent candidates, clustered by the orders that showed them, and
// gives their findings: the minimal polluter groups and their cleaners of a
// victim, the minimal state-setter groups of a brittle test, found by delta
// debugging (ddmin.go) over runs of order prefixes. The groups found for
// one test are tried on all the others at once (batch.go) before the next
// search. The cleaner search (cleaners.go) finds each victim's cleaners
// and gives the victims of one polluter group each other's.

package od

import (
	"context"
	"errors"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// minimisation is the last stage: it completes the findings of confirmed
// victims and brittles with their groups (minimiseClusters, once per round
// of candidates) and keeps the groups it found, which it tries first for
// later tests, and the cleaners found for each polluter group, which the
// sharing of cleaners takes. Its fields are guarded by the recorder's mu.
type minimisation struct {
	*recorder
	deadline                     time.Time // no run starts after it
	polluterGroups, setterGroups [][]string
	cleanerGroups                map[string][][]string // by polluter group (orderKey)
}

// newMinimisation returns the minimisation stage over rec, which starts
// no run after deadline, knowing a Focus's groups from the start: its
// setters, its polluters and their cleaners, those of them all of whose
// tests are in the suite.
func newMinimisation(rec *recorder, deadline time.Time) *minimisation {
	m := &minimisation{recorder: rec, deadline: deadline, cleanerGroups: map[string][][]string{}}
	f := rec.cfg.Focus
	if f == nil {
		return m
	}
	m.setterGroups = m.inSuite(f.Setters)
	for _, k := range f.Polluters {
		if g := m.inSuite([][]string{k.Group}); len(g) > 0 {
			m.polluterGroups = appendNew(m.polluterGroups, g...)
			key := orderKey(k.Group)
			m.cleanerGroups[key] = appendNew(m.cleanerGroups[key], m.inSuite(k.Cleaners)...)
		}
	}
	return m
}

// inSuite returns the groups all of whose tests are in the suite.
func (m *minimisation) inSuite(groups [][]string) [][]string {
	var out [][]string
	for _, g := range groups {
		if len(g) > 0 && !slices.ContainsFunc(g, func(t string) bool { _, ok := m.index[t]; return !ok }) {
			out = appendNew(out, g)
		}
	}
	return out
}

// errFlipped stops the minimisation of a test whose outcome differed
// between runs of the same order: it is NOD, whatever its groups.
var errFlipped = errors.New("the outcome flipped in the same order")

// minimise finds a confirmed victim's polluters and their cleaners, or a
// brittle's state-setters, in the whole suite (the groups found for other
// tests first). A test found to flip in the same order on the way is left
// for the NOD sweep.
func (m *minimisation) minimise(ctx context.Context, c *candidate) error {
	err := m.minimiseGroups(ctx, c)
	if errors.Is(err, errFlipped) {
		m.debugf("%s flipped in the same order: not order-dependent", c.test)
		return nil
	}
	return err
}

// minimiseGroups records the finding of a confirmed victim (brittle),
// incomplete until its polluters and their cleaners (its state-setters)
// are found.
func (m *minimisation) minimiseGroups(ctx context.Context, c *candidate) error {
	t := c.test
	switch c.od {
	case victim:
		f := &Finding{Test: t, Kind: report.ODVictim, PassingOrder: []string{t}, FailingOrder: c.failing, Incomplete: true}
		m.add(f)
		m.debugf("victim %s: finding its polluters", t)
		since := time.Now()
		groups, err := m.groups(ctx, t, c.failing, true)
		m.debugf("victim %s: %d polluter group(s) in %s; finding their cleaners", t, len(groups), time.Since(since).Round(100*time.Millisecond))
		f.Polluters = groups
		if len(groups) > 0 {
			f.FailingOrder = m.s.feasible(concat(shortest(groups), []string{t}))
		}
		f.Message = m.failureMessage(t, f.FailingOrder, c.failing)
		if err != nil {
			return err
		}
		for _, g := range groups {
			cleaners, err := m.cleaners(ctx, t, g, groups)
			f.Cleaners = appendNew(f.Cleaners, cleaners...)
			if err != nil {
				return err
			}
		}
		m.debugf("victim %s: %d cleaner group(s), %s in all", t, len(f.Cleaners), time.Since(since).Round(100*time.Millisecond))
		f.Incomplete = false
		return nil
	case brittle:
		f := &Finding{Test: t, Kind: report.ODBrittle, FailingOrder: []string{t}, PassingOrder: c.passing, Incomplete: true}
		m.add(f)
		m.debugf("brittle %s: finding its state-setters", t)
		groups, err := m.groups(ctx, t, c.passing, false)
		f.Setters = groups
		if len(groups) > 0 {
			f.PassingOrder = m.s.feasible(concat(shortest(groups), []string{t}))
		}
		f.Message = m.failureMessage(t, []string{t})
		if err != nil {
			return err
		}
		f.Incomplete = false
		return nil
	}
	return nil
}

// clusters groups the confirmed victims and brittles whose failing (for
// brittles: passing) orders are prefixes of one another: tests that showed
// their effect in the same run, which one group of polluters (setters)
// most often explains. Each cluster's first member is the one with the
// shortest order, its leader.
func clusters(cands []*candidate) [][]*candidate {
	var out [][]*candidate
	sorted := slices.Clone(cands)
	slices.SortStableFunc(sorted, func(x, y *candidate) int { return len(x.effectOrder()) - len(y.effectOrder()) })
	for _, c := range sorted {
		if c.od != victim && c.od != brittle {
			continue
		}
		joined := false
		for i, cl := range out {
			lead := cl[0]
			if lead.od == c.od && isPrefix(lead.effectOrder()[:len(lead.effectOrder())-1], c.effectOrder()) {
				out[i] = append(out[i], c)
				joined = true
				break
			}
		}
		if !joined {
			out = append(out, []*candidate{c})
		}
	}
	return out
}

// effectOrder is the order that showed the candidate's effect: its failing
// order for a victim, its passing order for a brittle.
func (c *candidate) effectOrder() []string {
	if c.od == brittle {
		return c.passing
	}
	return c.failing
}

func isPrefix(prefix, order []string) bool {
	return len(prefix) <= len(order) && slices.Equal(prefix, order[:len(prefix)])
}

// minimiseClusters minimises the clusters' leaders one at a time, and
// before each the groups found so far are tried on every test still open
// at once (explainByBatch): a group that explains a test there is its
// group, and only a test no known group explains gets a search of its own
// (a leader's delta debugging already runs as many JVMs at once as the
// workers allow). What the known groups leave open is then settled with
// a few runs for all the tests they explained: each after the whole rest
// of the suite (no other polluter or setter if each keeps its outcome) and,
// for the victims of each polluter group, after that group and the rest
// (no other cleaner if each still fails). The tests for which such a run
// shows more get a search once per polluted state (searchByState).
func (m *minimisation) minimiseClusters(ctx context.Context, cls [][]*candidate) error {
	var open []*candidate
	for _, cl := range cls {
		open = append(open, cl[0])
	}
	for _, cl := range cls {
		open = append(open, cl[1:]...)
	}
	n := len(open)
	var light []*candidate
	tried := map[string]bool{}
	for len(open) > 0 {
		explained, rest, err := m.explainByBatch(ctx, open, tried)
		light = append(light, explained...)
		if err != nil {
			return err
		}
		if len(rest) == 0 {
			break
		}
		if err := m.minimise(ctx, rest[0]); err != nil {
			return err
		}
		open = rest[1:]
	}
	var full []*candidate
	for _, kind := range []verdict{victim, brittle} {
		more, err := m.settle(ctx, slices.DeleteFunc(slices.Clone(light), func(c *candidate) bool { return c.od != kind }))
		if err != nil {
			return err
		}
		full = append(full, more...)
	}
	if len(full) > 0 {
		m.logf("%d of %d tests explained by known groups need a search: one per polluted state", len(full), n)
	}
	return m.searchByState(ctx, full, tried)
}

// searchByState minimises the tests the batch checks left open once per
// polluted state: tests whose first group (a victim's polluters, a
// brittle's setters) is the same share the state it writes, and one of
// them, the representative, gets a search of its own (all the
// representatives at once). The groups those searches found are then tried
// on the other tests in batches (explainByBatch: one run of each new group
// before them all, and a short order per test it explains), and only a test
// that still lacks one of its representative's groups gets a search of its
// own.
func (m *minimisation) searchByState(ctx context.Context, open []*candidate, tried map[string]bool) error {
	var reps, others []*candidate
	repOf := map[*candidate]*candidate{}
	byState := map[string]*candidate{}
	for _, c := range open {
		key := m.stateKey(c)
		if r, ok := byState[key]; ok {
			repOf[c] = r
			others = append(others, c)
			continue
		}
		byState[key] = c
		reps = append(reps, c)
	}
	if err := m.minimiseAll(ctx, reps); err != nil || len(others) == 0 {
		return err
	}
	if _, _, err := m.explainByBatch(ctx, others, tried); err != nil {
		return err
	}
	var own []*candidate
	for _, c := range others {
		if !m.hasGroupsOf(c, repOf[c]) {
			own = append(own, c)
		}
	}
	if len(own) > 0 {
		m.logf("%d of %d tests of a searched state need a search of their own", len(own), len(others))
	}
	return m.minimiseAll(ctx, own)
}

// stateKey names the polluted state of a test explained by a known group:
// its kind and its first group.
func (m *minimisation) stateKey(c *candidate) string {
	f := m.finding(c)
	m.mu.Lock()
	defer m.mu.Unlock()
	if c.od == brittle {
		if len(f.Setters) > 0 {
			return "setters " + orderKey(f.Setters[0])
		}
		return "setters of " + c.test
	}
	if len(f.Polluters) > 0 {
		return orderKey(f.Polluters[0])
	}
	return "polluters of " + c.test
}

// hasGroupsOf reports whether c's finding holds every group of rep's (a
// victim's polluters, a brittle's setters) that does not hold c itself.
func (m *minimisation) hasGroupsOf(c, rep *candidate) bool {
	f, r := m.finding(c), m.finding(rep)
	if f == nil || r == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	mine, theirs := f.Polluters, r.Polluters
	if c.od == brittle {
		mine, theirs = f.Setters, r.Setters
	}
	for _, g := range theirs {
		if !slices.Contains(g, c.test) && !slices.ContainsFunc(mine, func(h []string) bool { return slices.Equal(h, g) }) {
			return false
		}
	}
	return true
}

// minimiseAll minimises cands, all at once.
func (m *minimisation) minimiseAll(ctx context.Context, cands []*candidate) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range cands {
		g.Go(func() error { return m.minimise(gctx, c) })
	}
	return g.Wait()
}

// finding returns the finding recorded for a candidate, if any.
func (m *minimisation) finding(c *candidate) *Finding {
	kind := report.ODVictim
	if c.od == brittle {
		kind = report.ODBrittle
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.findings[c.test][kind]
}

// settle runs the batch checks of minimiseClusters for tests of one kind
// explained by known groups and returns the ones the checks leave open.
func (m *minimisation) settle(ctx context.Context, followers []*candidate) ([]*candidate, error) {
	if len(followers) == 0 {
		return nil, nil
	}
	fail := followers[0].od == victim
	members := map[string]bool{}
	tests := make([]string, len(followers))
	for i, c := range followers {
		tests[i] = c.test
		members[c.test] = true
		f := m.finding(c)
		for _, grp := range slices.Concat(f.Polluters, f.Setters, f.Cleaners) {
			for _, x := range grp {
				members[x] = true
			}
		}
	}
	open := map[string]bool{}
	// Polluters (setters): every follower after the rest of the suite.
	order := m.s.feasible(concat(without(m.s.tests, members), tests))
	if err := m.ensure(ctx, m.deadline, genMinimise, [][]string{order}, 1); err != nil {
		return nil, err
	}
	for _, c := range followers {
		tl := m.st.get(order[:slices.Index(order, c.test)+1]).tally
		if (fail && !tl.passes()) || (!fail && !tl.fails()) {
			open[c.test] = true
		}
	}
	// Cleaners: the victims of each polluter group, after it and the rest
	// (a victim with several groups, after each).
	if fail {
		if err := m.settleCleaners(ctx, followers, members, open); err != nil {
			return nil, err
		}
	}
	var out []*candidate
	for _, c := range followers {
		if open[c.test] {
			out = append(out, c)
		}
	}
	return out, nil
}

// cleanerShare is the victims of one polluter group in settle's cleaner
// check, and the order they run in.
type cleanerShare struct {
	polluters []string
	victims   []*candidate
	order     []string
}

// settleCleaners runs settle's cleaner check: the victims of each polluter
// group that the polluter check left settled (not open) run after it and
// the rest of the suite but members (a victim with several groups, after
// each), and those that do not fail there are left open.
func (m *minimisation) settleCleaners(ctx context.Context, followers []*candidate, members, open map[string]bool) error {
	var shares []*cleanerShare
	byGroup := map[string]*cleanerShare{}
	for _, c := range followers {
		if open[c.test] {
			continue
		}
		for _, g := range m.finding(c).Polluters {
			sh := byGroup[orderKey(g)]
			if sh == nil {
				sh = &cleanerShare{polluters: g}
				byGroup[orderKey(g)] = sh
				shares = append(shares, sh)
			}
			sh.victims = append(sh.victims, c)
		}
	}
	orders := make([][]string, len(shares))
	for i, sh := range shares {
		var names []string
		for _, c := range sh.victims {
			names = append(names, c.test)
		}
		// The victims of the polluters' classes first, so that a class
		// with class-level fixtures keeps the polluters before them all.
		classes := classesOf(sh.polluters)
		slices.SortStableFunc(names, func(x, y string) int {
			return firstIf(classes[testid.ClassOf(x)], classes[testid.ClassOf(y)])
		})
		sh.order = m.s.feasible(concat(sh.polluters, without(m.s.tests, members), names))
		orders[i] = sh.order
	}
	if err := m.ensure(ctx, m.deadline, genMinimise, orders, 1); err != nil {
		return err
	}
	for _, sh := range shares {
		for _, c := range sh.victims {
			if tl := m.st.get(sh.order[:slices.Index(sh.order, c.test)+1]).tally; !tl.fails() {
				open[c.test] = true
			}
		}
	}
	return nil
}

// effect returns the oracle "t fails (or passes) when run after before,
// then the candidate", running what the store does not know yet.
func (m *minimisation) effect(t string, before []string, fail bool) oracle {
	return func(ctx context.Context, cands [][]string) ([]bool, error) {
		orders := make([][]string, len(cands))
		for i, c := range cands {
			orders[i] = m.s.feasible(concat(before, c, []string{t}))
		}
		if err := m.ensure(ctx, m.deadline, genMinimise, orders, 1); err != nil {
			return nil, err
		}
		out := make([]bool, len(orders))
		for i, o := range orders {
			tl := m.st.get(o).tally
			out[i] = (fail && tl.fails()) || (!fail && tl.passes())
		}
		return out, nil
	}
}

// groups finds every independent minimal group of tests after which t
// fails (polluters, fail true) or passes (state-setters), by delta
// debugging: first over the prefix of from, then over whatever still shows
// the effect once the groups found so far are taken out of it: the other
// prefixes t was seen failing (passing) after that no group explains, and
// the rest of the suite (these checks run in parallel). Each group is
// confirmed by k runs. Groups found for other tests and contained in from's
// prefix are tried first.
func (m *minimisation) groups(ctx context.Context, t string, from []string, fail bool) ([][]string, error) {
	sr := &groupSearch{m: m, ctx: ctx, t: t, fail: fail,
		test: m.effect(t, nil, fail), used: map[string]bool{t: true}}
	prefix := from[:len(from)-1]
	if err := sr.tryEach(sr.known(prefix)); err != nil {
		return sr.groups, err
	}
	// A change's dataflow record names the tests that write what t
	// reads: each is tried alone first.
	var singles [][]string
	for _, w := range m.writers(t, without(prefix, sr.used)) {
		singles = append(singles, []string{w})
	}
	if err := sr.tryEach(singles); err != nil {
		return sr.groups, err
	}
	if !overlaps(prefix, sr.used) {
		if err := sr.inPrefix(prefix); err != nil {
			return sr.groups, err
		}
	}
	err := sr.rest()
	return sr.groups, err
}

// groupSearch is one search of groups in progress: for test t, of
// polluters (fail) or state-setters, with test its oracle.
type groupSearch struct {
	m      *minimisation
	ctx    context.Context
	t      string
	fail   bool
	test   oracle
	groups [][]string      // the groups found so far
	used   map[string]bool // t and the tests of the groups found so far
}

// minimise finds a group in items, which show the effect, and keeps it
// when k runs confirm it; an outcome that flips in those runs stops the
// search (errFlipped).
func (sr *groupSearch) minimise(items []string) error {
	m := sr.m
	g, err := ddmin(sr.ctx, items, sr.test, m.freeSlots)
	if err != nil {
		return err
	}
	for _, x := range g {
		sr.used[x] = true
	}
	order := m.s.feasible(concat(g, []string{sr.t}))
	if err := m.ensure(sr.ctx, m.deadline, genConfirm, [][]string{order}, m.cfg.Confirmations); err != nil {
		return err
	}
	tl := m.st.get(order).tally
	if tl.mixed() {
		return errFlipped
	}
	if (sr.fail && tl.fails()) || (!sr.fail && tl.passes()) {
		sr.groups = append(sr.groups, g)
		m.mu.Lock()
		if sr.fail {
			m.polluterGroups = appendNew(m.polluterGroups, g)
		} else {
			m.setterGroups = appendNew(m.setterGroups, g)
		}
		m.mu.Unlock()
	}
	return nil
}

// known returns the groups found for other tests (polluters or
// state-setters, as the search's) that are contained in prefix.
func (sr *groupSearch) known(prefix []string) [][]string {
	m := sr.m
	var tryKnown [][]string
	m.mu.Lock()
	defer m.mu.Unlock()
	known := m.polluterGroups
	if !sr.fail {
		known = m.setterGroups
	}
	for _, g := range known {
		if !slices.Contains(g, sr.t) && isSubsequence(g, prefix) {
			tryKnown = append(tryKnown, g)
		}
	}
	return tryKnown
}

// tryEach runs each of gs before t at once and minimises the ones that
// show the effect.
func (sr *groupSearch) tryEach(gs [][]string) error {
	if len(gs) == 0 {
		return nil
	}
	hits, err := sr.test(sr.ctx, gs)
	if err != nil {
		return err
	}
	for i, hit := range hits {
		if hit && !overlaps(gs[i], sr.used) {
			if err := sr.minimise(gs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// inPrefix minimises prefix, which shows the effect: a single group is in
// every prefix t showed the effect after, so the tests common to those are
// tried first.
func (sr *groupSearch) inPrefix(prefix []string) error {
	items := prefix
	if common := sr.m.common(sr.t, prefix, sr.fail); len(common) > 0 && len(common) < len(prefix) {
		ok, err := sr.test(sr.ctx, [][]string{common})
		if err != nil {
			return err
		}
		if ok[0] {
			items = common
		}
	}
	return sr.minimise(items)
}

// rest minimises, for as long as one still shows the effect, what is left
// of the other sources once the groups found are taken out of them: the
// other prefixes t was seen failing (passing) after that no group found so
// far explains, and the rest of the suite; the leftovers are checked in
// parallel.
func (sr *groupSearch) rest() error {
	m := sr.m
	var sources [][]string
	for _, o := range m.hints(sr.t) {
		if p := o.order[:len(o.order)-1]; (sr.fail && o.fails() || !sr.fail && o.passes()) && !explained(p, sr.groups) {
			sources = append(sources, p)
		}
	}
	sources = append(sources, without(m.s.tests, map[string]bool{sr.t: true}))
	for {
		var rests [][]string
		seen := map[string]bool{}
		for _, src := range sources {
			if rest := without(src, sr.used); len(rest) > 0 && !seen[orderKey(rest)] {
				seen[orderKey(rest)] = true
				rests = append(rests, rest)
			}
		}
		if len(rests) == 0 {
			return nil
		}
		found, err := first(sr.ctx, sr.test, rests, m.freeSlots)
		if err != nil || found < 0 {
			return err
		}
		if err := sr.minimise(rests[found]); err != nil {
			return err
		}
	}
}

// writers returns the tests of among (in its order) that a Focus, else
// Config.Writers, records writing state t reads.
func (m *minimisation) writers(t string, among []string) []string {
	wrote := func(x string) bool { return slices.Contains(m.cfg.Writers[t], x) }
	if f := m.cfg.Focus; f != nil {
		wrote = func(x string) bool { return len(f.ReadsWrittenBy(t, x)) > 0 }
	}
	var out []string
	for _, x := range among {
		if wrote(x) {
			out = append(out, x)
		}
	}
	return out
}

// hints are the orders t ran in with an outcome, fresh and warm: they only
// choose which groups the minimisation tries first, and every group is
// then run in fresh JVMs, so no finding rests on a warm run.
func (m *minimisation) hints(t string) []obs {
	return append(m.st.observed(t, false), m.warm.observed(t, false)...)
}

// common returns the tests of prefix (in its order) that ran before t in
// every order after which t failed (fail) or passed.
func (m *minimisation) common(t string, prefix []string, fail bool) []string {
	count := map[string]int{}
	n := 0
	for _, o := range m.hints(t) {
		if (fail && !o.fails()) || (!fail && !o.passes()) {
			continue
		}
		n++
		for _, x := range o.order[:len(o.order)-1] {
			count[x]++
		}
	}
	var out []string
	for _, x := range prefix {
		if count[x] == n {
			out = append(out, x)
		}
	}
	return out
}
