package od

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// errFlipped stops the minimisation of a test whose outcome differed
// between runs of the same order: it is NOD, whatever its groups.
var errFlipped = errors.New("the outcome flipped in the same order")

// minimise finds a confirmed victim's polluters and their cleaners, or a
// brittle's state-setters. A test found to flip in the same order on the
// way is left for the NOD sweep.
func (a *analysis) minimise(ctx context.Context, deadline time.Time, c *candidate) error {
	err := a.minimiseGroups(ctx, deadline, c)
	if errors.Is(err, errFlipped) {
		a.logf("%s flipped in the same order: not order-dependent", c.test)
		return nil
	}
	return err
}

func (a *analysis) minimiseGroups(ctx context.Context, deadline time.Time, c *candidate) error {
	t := c.test
	switch c.od {
	case victim:
		f := &Finding{Test: t, Kind: report.ODVictim, PassingOrder: []string{t}, FailingOrder: c.failing, Incomplete: true}
		a.add(f)
		a.logf("victim %s: finding its polluters", t)
		groups, err := a.groups(ctx, deadline, t, c.failing, true)
		f.Polluters = groups
		if len(groups) > 0 {
			f.FailingOrder = append(slices.Clone(shortest(groups)), t)
		}
		f.Message = a.failureMessage(t, f.FailingOrder, c.failing)
		if err != nil {
			return err
		}
		for _, g := range groups {
			cleaners, err := a.cleaners(ctx, deadline, t, g, groups)
			f.Cleaners = appendNew(f.Cleaners, cleaners...)
			if err != nil {
				return err
			}
		}
		f.Incomplete = false
	case brittle:
		f := &Finding{Test: t, Kind: report.ODBrittle, FailingOrder: []string{t}, PassingOrder: c.passing, Incomplete: true}
		a.add(f)
		a.logf("brittle %s: finding its state-setters", t)
		groups, err := a.groups(ctx, deadline, t, c.passing, false)
		f.Setters = groups
		if len(groups) > 0 {
			f.PassingOrder = append(slices.Clone(shortest(groups)), t)
		}
		f.Message = a.failureMessage(t, []string{t})
		if err != nil {
			return err
		}
		f.Incomplete = false
	}
	return nil
}

// effect returns the oracle "t fails (or passes) when run after before,
// then the candidate", running what the store does not know yet.
func (a *analysis) effect(deadline time.Time, t string, before []string, fail bool) oracle {
	return func(ctx context.Context, cands [][]string) ([]bool, error) {
		orders := make([][]string, len(cands))
		for i, c := range cands {
			orders[i] = concat(before, c, []string{t})
		}
		if err := a.ensure(ctx, deadline, genMinimise, orders, 1); err != nil {
			return nil, err
		}
		out := make([]bool, len(orders))
		for i, o := range orders {
			tl := a.st.get(o).tally
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
func (a *analysis) groups(ctx context.Context, deadline time.Time, t string, from []string, fail bool) ([][]string, error) {
	test := a.effect(deadline, t, nil, fail)
	var groups [][]string
	used := map[string]bool{t: true}
	// minimise finds a group in items, which show the effect, and keeps it when k runs confirm it.
	minimise := func(items []string) error {
		g, err := ddmin(ctx, items, test, a.freeSlots)
		if err != nil {
			return err
		}
		for _, x := range g {
			used[x] = true
		}
		order := concat(g, []string{t})
		if err := a.ensure(ctx, deadline, genConfirm, [][]string{order}, a.cfg.Confirmations); err != nil {
			return err
		}
		tl := a.st.get(order).tally
		if tl.mixed() {
			return errFlipped
		}
		if (fail && tl.fails()) || (!fail && tl.passes()) {
			groups = append(groups, g)
			a.mu.Lock()
			if fail {
				a.polluterGroups = appendNew(a.polluterGroups, g)
			} else {
				a.setterGroups = appendNew(a.setterGroups, g)
			}
			a.mu.Unlock()
		}
		return nil
	}

	prefix := from[:len(from)-1]
	var tryKnown [][]string
	a.mu.Lock()
	known := a.polluterGroups
	if !fail {
		known = a.setterGroups
	}
	for _, g := range known {
		if !slices.Contains(g, t) && isSubsequence(g, prefix) {
			tryKnown = append(tryKnown, g)
		}
	}
	a.mu.Unlock()
	if len(tryKnown) > 0 {
		hits, err := test(ctx, tryKnown)
		if err != nil {
			return groups, err
		}
		for i, hit := range hits {
			if hit && !overlaps(tryKnown[i], used) {
				if err := minimise(tryKnown[i]); err != nil {
					return groups, err
				}
			}
		}
	}
	if !overlaps(prefix, used) {
		// A single group is in every prefix t showed the effect after: try those tests first.
		items := prefix
		if common := a.common(t, prefix, fail); len(common) > 0 && len(common) < len(prefix) {
			ok, err := test(ctx, [][]string{common})
			if err != nil {
				return groups, err
			}
			if ok[0] {
				items = common
			}
		}
		if err := minimise(items); err != nil {
			return groups, err
		}
	}
	var sources [][]string
	for _, o := range a.st.observed(t, false) {
		if p := o.order[:len(o.order)-1]; (fail && o.fails() || !fail && o.passes()) && !explained(p, groups) {
			sources = append(sources, p)
		}
	}
	sources = append(sources, without(a.s.tests, map[string]bool{t: true}))
	for {
		var rests [][]string
		seen := map[string]bool{}
		for _, src := range sources {
			if rest := without(src, used); len(rest) > 0 && !seen[orderKey(rest)] {
				seen[orderKey(rest)] = true
				rests = append(rests, rest)
			}
		}
		if len(rests) == 0 {
			return groups, nil
		}
		found, err := first(ctx, test, rests, a.freeSlots)
		if err != nil || found < 0 {
			return groups, err
		}
		if err := minimise(rests[found]); err != nil {
			return groups, err
		}
	}
}

// common returns the tests of prefix (in its order) that ran before t in
// every order after which t failed (fail) or passed.
func (a *analysis) common(t string, prefix []string, fail bool) []string {
	count := map[string]int{}
	n := 0
	for _, o := range a.st.observed(t, false) {
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

// cleaners finds the minimal groups of tests that, run between polluter
// group g and victim t, make t pass: the cleaners found for g and other
// victims first, then the tests seen between g and t in passing orders,
// then all tests (polluters of t excepted), each list run at once and, when
// it passes, minimised by delta debugging for as long as what is left of it
// (without the cleaners found so far) still passes.
func (a *analysis) cleaners(ctx context.Context, deadline time.Time, t string, g []string, polluters [][]string) ([][]string, error) {
	exclude := map[string]bool{t: true}
	for _, p := range polluters {
		for _, x := range p {
			exclude[x] = true
		}
	}
	var chunks [][]string
	a.mu.Lock()
	for _, c := range a.cleanerGroups[orderKey(g)] {
		if !overlaps(c, exclude) {
			chunks = append(chunks, c)
		}
	}
	a.mu.Unlock()
	var between []string
	inBetween := map[string]bool{}
	for _, o := range a.st.observed(t, false) {
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
	slices.SortFunc(between, func(x, y string) int { return a.index[x] - a.index[y] })
	if len(between) > 0 {
		chunks = append(chunks, between)
	}
	// All of them, for groups of cleaners that were not all seen in between.
	if all := without(a.s.tests, exclude); len(all) > len(between) {
		chunks = append(chunks, all)
	}
	test := a.effect(deadline, t, g, false)
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
			c, err := ddmin(ctx, rest, test, a.freeSlots)
			if err != nil {
				return groups, err
			}
			order := concat(g, c, []string{t})
			if err := a.ensure(ctx, deadline, genConfirm, [][]string{order}, a.cfg.Confirmations); err != nil {
				return groups, err
			}
			switch tl := a.st.get(order).tally; {
			case tl.mixed():
				return groups, errFlipped
			case tl.passes():
				groups = append(groups, c)
				a.mu.Lock()
				a.cleanerGroups[orderKey(g)] = appendNew(a.cleanerGroups[orderKey(g)], c)
				a.mu.Unlock()
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
