// Trying known groups on many tests at once, for minimisation: a polluter
// (state-setter) group found for one test is run once before all the other
// open tests of its kind, in one order, instead of once before each, and
// its cleaners likewise; and once before the tests not known to flip, which
// shows the victims (brittles) of the group that detection missed.

package od

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/flakyhq/flaky/internal/base/testid"
)

// explainByBatch tries each polluter and state-setter group found so far
// and not yet in tried (which it updates) on the open candidates of its
// kind at once (tryGroup), those another group explained too (a victim
// often has several polluters: each group it owes its failure to joins its
// finding), and on the other tests (discover), and returns the candidates a
// group explained and the others, in their order.
func (m *minimisation) explainByBatch(ctx context.Context, open []*candidate, tried map[string]bool) (explained, rest []*candidate, err error) {
	done := map[*candidate]bool{}
	for _, kind := range []verdict{victim, brittle} {
		m.mu.Lock()
		known := slices.Clone(m.polluterGroups)
		if kind == brittle {
			known = slices.Clone(m.setterGroups)
		}
		m.mu.Unlock()
		for _, g := range known {
			key := orderKey(g)
			if kind == brittle {
				key = "setters " + key
			}
			if tried[key] {
				continue
			}
			tried[key] = true
			if err := m.discover(ctx, g, open); err != nil {
				return nil, nil, err
			}
			in := toSet(g)
			var cands []*candidate
			for _, c := range open {
				if c.od == kind && !in[c.test] {
					cands = append(cands, c)
				}
			}
			if len(cands) == 0 {
				continue
			}
			got, err := m.tryGroup(ctx, g, cands)
			for _, c := range got {
				done[c] = true
			}
			if err != nil {
				return nil, nil, err
			}
		}
	}
	for _, c := range open {
		if done[c] {
			explained = append(explained, c)
		} else {
			rest = append(rest, c)
		}
	}
	if len(explained) > 0 {
		m.logf("%d test(s) explained by known groups, %d left", len(explained), len(rest))
	}
	return explained, rest, nil
}

// discover runs g once before every test without a finding that is not
// open, its cleaners last, so that a victim (brittle) of g that detection
// never saw flip does here; the analysis confirms it in its next round.
func (m *minimisation) discover(ctx context.Context, g []string, open []*candidate) error {
	skip := toSet(g)
	for _, c := range open {
		skip[c.test] = true
	}
	m.mu.Lock()
	for t := range m.findings {
		skip[t] = true
	}
	last := map[string]bool{}
	for _, cl := range m.cleanerGroups[orderKey(g)] {
		for _, x := range cl {
			last[x] = true
		}
	}
	m.mu.Unlock()
	others := without(m.targets, skip)
	if len(others) == 0 {
		return nil
	}
	classes := classesOf(g)
	slices.SortStableFunc(others, func(x, y string) int {
		return cmp.Or(firstIf(classes[testid.ClassOf(x)], classes[testid.ClassOf(y)]), firstIf(!last[x], !last[y]), cmp.Compare(m.index[x], m.index[y]))
	})
	return m.ensure(ctx, m.deadline, genMinimise, [][]string{m.s.feasible(concat(g, others))}, 1)
}

// classesOf returns the classes of tests.
func classesOf(tests []string) map[string]bool {
	out := map[string]bool{}
	for _, x := range tests {
		out[testid.ClassOf(x)] = true
	}
	return out
}

// firstIf compares for sorting: -1 when only x holds, 1 when only y does.
func firstIf(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return -1
	}
	return 1
}

// tryGroup runs g before all of cands (victims, or brittles, all of one
// kind) in one order, the batch, and the same order without g, the
// control, each k times. A victim that fails in every run of the batch and
// passes in every run of the control (a brittle: passes, fails) owes that
// to g: g joins its finding's groups, and the first group to explain it
// gives its failing (passing) order, the batch up to it (or g and the test
// alone, when that shows it). Victims then try the cleaners found for g the
// same way, one order per cleaner group between g and them. It returns the
// candidates g explained, their findings complete.
func (m *minimisation) tryGroup(ctx context.Context, g []string, cands []*candidate) ([]*candidate, error) {
	k, fail := m.cfg.Confirmations, cands[0].od == victim
	batch, control := m.batchOrders(g, cands)
	if err := m.ensure(ctx, m.deadline, genConfirm, [][]string{batch, control}, k); err != nil {
		return nil, err
	}
	out, shown := m.explainedBy(g, cands, batch, control)
	if len(out) == 0 {
		return nil, nil
	}
	short, err := m.shortOrders(ctx, g, shown, fail)
	if err != nil {
		return nil, err
	}
	findings := make([]*Finding, len(out))
	for i, c := range out {
		f := m.finding(c)
		if f == nil {
			f = m.confirmed(c)
			m.add(f)
		}
		findings[i] = f
		order := short[c.test]
		if order == nil {
			order = batch[:slices.Index(batch, c.test)+1]
		}
		msg := m.failureMessage(c.test, order, c.failing)
		if !fail {
			msg = m.failureMessage(c.test, []string{c.test})
		}
		m.mu.Lock()
		// The first group that explains a test gives its order; later
		// ones join its groups.
		if fail {
			if len(f.Polluters) == 0 {
				f.FailingOrder, f.Message = order, msg
			}
			f.Polluters = appendNew(f.Polluters, g)
		} else {
			if len(f.Setters) == 0 {
				f.PassingOrder, f.Message = order, msg
			}
			f.Setters = appendNew(f.Setters, g)
		}
		m.mu.Unlock()
	}
	if fail {
		if err := m.knownCleaners(ctx, g, out, shown, findings); err != nil {
			return out, err
		}
	}
	m.mu.Lock()
	for _, f := range findings {
		f.Incomplete = false
	}
	m.mu.Unlock()
	return out, nil
}

// explainedBy returns the candidates whose outcome the batch run of g
// (batch, and control without g, both run k times) shows g explains, and
// their tests, in the control's order.
func (m *minimisation) explainedBy(g []string, cands []*candidate, batch, control []string) (out []*candidate, shown []string) {
	k, fail := m.cfg.Confirmations, cands[0].od == victim
	for _, t := range control {
		i := slices.IndexFunc(cands, func(c *candidate) bool { return c.test == t })
		if i < 0 {
			continue
		}
		at := slices.Index(batch, t)
		with, without := m.st.get(batch[:at+1]).tally, m.st.get(control[:slices.Index(control, t)+1]).tally
		if with.runs() < k || without.runs() < k || !isSubsequence(g, batch[:at]) {
			continue
		}
		if (fail && with.fails() && without.passes()) || (!fail && with.passes() && without.fails()) {
			out = append(out, cands[i])
			shown = append(shown, t)
		}
	}
	return out, shown
}

// knownCleaners tries the cleaners found for polluter group g on the
// victims out (their tests shown) that g explains, one order per cleaner
// group between g and them, each run k times: a group after which a
// victim passes in every run joins the cleaners of its finding (findings,
// in out's order).
func (m *minimisation) knownCleaners(ctx context.Context, g []string, out []*candidate, shown []string, findings []*Finding) error {
	k := m.cfg.Confirmations
	m.mu.Lock()
	known := slices.Clone(m.cleanerGroups[orderKey(g)])
	m.mu.Unlock()
	for _, cl := range known {
		victims := without(shown, toSet(cl))
		order := m.s.feasible(concat(g, cl, victims))
		if err := m.ensure(ctx, m.deadline, genConfirm, [][]string{order}, k); err != nil {
			return err
		}
		for i, c := range out {
			at := slices.Index(order, c.test)
			if at < 0 || !isSubsequence(concat(g, cl), order[:at]) {
				continue
			}
			if tl := m.st.get(order[:at+1]).tally; tl.runs() >= k && tl.passes() {
				m.mu.Lock()
				findings[i].Cleaners = appendNew(findings[i].Cleaners, cl)
				m.mu.Unlock()
			}
		}
	}
	return nil
}

// shortOrders runs g right before each of tests once, all at once, and
// returns the orders whose run showed the effect the batch showed (a
// victim failing, a brittle passing): a finding takes such an order, g and
// its test alone, as its failing (passing) order, so that its reproduce
// command is short and shows g enough on its own; a test whose effect needs
// more of the batch keeps the batch order it was shown in. A budget that
// ends first leaves every test its batch order.
func (m *minimisation) shortOrders(ctx context.Context, g, tests []string, fail bool) (map[string][]string, error) {
	orders := make([][]string, len(tests))
	for i, t := range tests {
		orders[i] = m.s.feasible(concat(g, []string{t}))
	}
	out := map[string][]string{}
	if err := m.ensure(ctx, m.deadline, genMinimise, orders, 1); err != nil {
		if errors.Is(err, errBudget) {
			return out, nil
		}
		return nil, err
	}
	for i, t := range tests {
		o := orders[i]
		if o[len(o)-1] != t {
			continue
		}
		tl := m.st.get(o).tally
		if (fail && tl.fails()) || (!fail && tl.passes()) {
			out[t] = o
		}
	}
	return out, nil
}

// batchOrders returns the batch and control orders of tryGroup: g, then
// the candidates' tests in the suite's order, those of g's classes first
// (so that a class with class-level fixtures runs them in g's scope, right
// after g); the control is the batch without g.
func (m *minimisation) batchOrders(g []string, cands []*candidate) (batch, control []string) {
	classes := classesOf(g)
	tests := make([]string, len(cands))
	for i, c := range cands {
		tests[i] = c.test
	}
	slices.SortStableFunc(tests, func(x, y string) int {
		return cmp.Or(firstIf(classes[testid.ClassOf(x)], classes[testid.ClassOf(y)]), cmp.Compare(m.index[x], m.index[y]))
	})
	batch = m.s.feasible(concat(g, tests))
	return batch, m.s.feasible(without(batch, toSet(g)))
}
