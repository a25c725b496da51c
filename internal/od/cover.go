// Pair coverage: a required pair (x, y) is covered by an order in which x
// runs before y and no test between them writes the state the pair shares
// (what x writes and y reads, or the reverse). Without the state a pair
// shares, only running them adjacently covers it.

package od

import (
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/flakyhq/flaky/internal/testid"
)

// pairCover tells which pairs an order covers: the roots each test writes
// and the roots each pair shares.
type pairCover struct {
	writes map[string]map[string]bool
	shared map[[2]string][]string
}

// newPairCover returns the pair coverage of a Focus (nil when it names no
// shared state: pairs are then covered only adjacently).
func newPairCover(f *Focus) *pairCover {
	if f == nil || len(f.Shared) == 0 {
		return nil
	}
	c := &pairCover{writes: map[string]map[string]bool{}, shared: f.Shared}
	for t, roots := range f.Writes {
		c.writes[t] = toSet(roots)
	}
	return c
}

// blocks reports whether z, between p's tests, writes a root p shares (a
// pair whose shared roots are unknown is blocked by any test).
func (c *pairCover) blocks(z string, p [2]string) bool {
	roots, ok := c.shared[p]
	if !ok || len(roots) == 0 {
		return true
	}
	w := c.writes[z]
	return slices.ContainsFunc(roots, func(r string) bool { return w[r] })
}

// blockedBy reports whether any root p shares is in written (the roots the
// tests between its two tests write); unknown roots always block.
func (c *pairCover) blockedBy(p [2]string, written map[string]bool, between bool) bool {
	roots, ok := c.shared[p]
	if !ok || len(roots) == 0 {
		return between
	}
	return slices.ContainsFunc(roots, func(r string) bool { return written[r] })
}

// covered calls yes for each pair of tests of order, the first before the
// second, with no test between them that writes a root the pair shares
// (with a nil c: each adjacent pair).
func (c *pairCover) covered(order []string, want func(p [2]string) bool, yes func(p [2]string)) {
	for j := 1; j < len(order); j++ {
		if c == nil {
			if p := [2]string{order[j-1], order[j]}; want(p) {
				yes(p)
			}
			continue
		}
		written := map[string]bool{}
		for i := j - 1; i >= 0; i-- {
			if p := [2]string{order[i], order[j]}; want(p) && !c.blockedBy(p, written, i < j-1) {
				yes(p)
			}
			for r := range c.writes[order[i]] {
				written[r] = true
			}
		}
	}
}

// coverOrders returns orders that together cover every pair of pairs (see
// pairCover), each test at most once per order and each class with
// class-level fixtures in one stretch. Each order is built greedily
// forwards (from the test with the most uncovered pairs out of it, adding
// the test that covers the most pairs with the tests before it) and
// backwards (from the test with the most uncovered pairs into it,
// prepending), and the one that covers more is taken: a test that writes
// what N others read gets [w, r1..rN] and [r1..rN, w] for its 2N pairs.
func coverOrders(s *suite, pairs [][2]string, c *pairCover, seed int64) []plannedOrder {
	in := map[string]bool{}
	for _, t := range s.tests {
		in[t] = true
	}
	g := &coverGraph{s: s, c: c, uncovered: map[[2]string]bool{}, next: map[string][]string{}, prev: map[string][]string{}, out: map[string]int{}, into: map[string]int{}, rank: map[string]int{}}
	for _, p := range pairs {
		if p[0] == p[1] || !in[p[0]] || !in[p[1]] || g.uncovered[p] {
			continue
		}
		g.uncovered[p] = true
		g.next[p[0]] = append(g.next[p[0]], p[1])
		g.prev[p[1]] = append(g.prev[p[1]], p[0])
		g.out[p[0]]++
		g.into[p[1]]++
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x70616972))
	for i, j := range r.Perm(len(s.tests)) {
		g.rank[s.tests[j]] = i
	}
	total := len(g.uncovered)
	var orders []plannedOrder
	for len(g.uncovered) > 0 {
		f, b := g.build(true), g.build(false)
		best := f
		if len(b.got) > len(f.got) {
			best = b
		}
		if len(best.got) == 0 {
			break // cannot happen: any uncovered pair fits an empty order
		}
		for p := range best.got {
			delete(g.uncovered, p)
			g.out[p[0]]--
			g.into[p[1]]--
		}
		orders = append(orders, plannedOrder{gen: GenPairs, tests: best.order})
	}
	return labelPairOrders(orders, total, seed)
}

// coverGraph is the pairs coverOrders still has to cover.
type coverGraph struct {
	s          *suite
	c          *pairCover
	uncovered  map[[2]string]bool
	next, prev map[string][]string
	out, into  map[string]int
	rank       map[string]int
}

// coverBuild is one order being built by coverGraph.build.
type coverBuild struct {
	order   []string
	used    map[string]bool
	classes map[string]bool
	// written holds per test in the order the roots the tests after it
	// (forwards) or before it (backwards) write; between whether any does.
	written map[string]map[string]bool
	between map[string]bool
	got     map[[2]string]bool
}

// build builds one order forwards or backwards.
func (g *coverGraph) build(forwards bool) *coverBuild {
	b := &coverBuild{used: map[string]bool{}, classes: map[string]bool{}, written: map[string]map[string]bool{}, between: map[string]bool{}, got: map[[2]string]bool{}}
	// pair orients a candidate v and a test u of the order.
	pair := func(u, v string) [2]string {
		if forwards {
			return [2]string{u, v}
		}
		return [2]string{v, u}
	}
	// near lists the tests v could close pairs with.
	near := func(v string) []string {
		if forwards {
			return g.prev[v]
		}
		return g.next[v]
	}
	far := func(v string) []string {
		if forwards {
			return g.next[v]
		}
		return g.prev[v]
	}
	gain := func(v string) int {
		n := 0
		for _, u := range near(v) {
			if p := pair(u, v); b.used[u] && g.uncovered[p] && !b.got[p] && !g.c.blockedBy(p, b.written[u], b.between[u]) {
				n++
			}
		}
		return n
	}
	fits := func(v string) bool {
		if b.used[v] {
			return false
		}
		c := testid.ClassOf(v)
		if !g.s.fixtures[c] || !b.classes[c] {
			return true
		}
		end := b.order[len(b.order)-1]
		if !forwards {
			end = b.order[0]
		}
		return testid.ClassOf(end) == c
	}
	add := func(v string) {
		for _, u := range near(v) {
			if p := pair(u, v); b.used[u] && g.uncovered[p] && !b.got[p] && !g.c.blockedBy(p, b.written[u], b.between[u]) {
				b.got[p] = true
			}
		}
		for _, u := range b.order {
			b.between[u] = true
			for r := range g.c.writes[v] {
				if b.written[u] == nil {
					b.written[u] = map[string]bool{}
				}
				b.written[u][r] = true
			}
		}
		if forwards {
			b.order = append(b.order, v)
		} else {
			b.order = slices.Insert(b.order, 0, v)
		}
		b.used[v] = true
		if c := testid.ClassOf(v); g.s.fixtures[c] {
			b.classes[c] = true
		}
	}
	// pending counts v's uncovered pairs in the building direction with
	// tests not in the order.
	pending := func(v string) int {
		n := 0
		for _, w := range far(v) {
			if !b.used[w] && g.uncovered[pair(v, w)] {
				n++
			}
		}
		return n
	}
	// end is the test a new one would be next to.
	end := func() string {
		switch {
		case len(b.order) == 0:
			return ""
		case forwards:
			return b.order[len(b.order)-1]
		}
		return b.order[0]
	}
	// stays reports whether v continues the stretch of a class with
	// class-level fixtures at the order's end, which must be finished
	// before another class comes.
	stays := func(v string) bool {
		c := testid.ClassOf(v)
		return g.s.fixtures[c] && end() != "" && testid.ClassOf(end()) == c
	}
	// back counts a test's uncovered pairs against the building direction.
	back := func(v string) int {
		if forwards {
			return g.into[v]
		}
		return g.out[v]
	}
	// candidates are the tests near the order's tests.
	cands := map[string]bool{}
	for {
		best, bestGain := "", 0
		for _, v := range slices.Sorted(maps.Keys(cands)) {
			if !fits(v) {
				delete(cands, v)
				continue
			}
			n := gain(v)
			if n == 0 || n < bestGain {
				continue
			}
			if n > bestGain || g.before(v, best, []int{b2i(stays(v)), pending(v), -back(v)}, []int{b2i(stays(best)), pending(best), -back(best)}) {
				best, bestGain = v, n
			}
		}
		if best == "" {
			// Open a new stretch (or start the order): a test with pairs
			// still to cover onwards, one of which can follow it, with
			// the fewest pairs still to cover into it.
			for _, v := range g.s.tests {
				if !fits(v) || pending(v) == 0 {
					continue
				}
				if best != "" && !g.before(v, best, []int{-back(v), pending(v)}, []int{-back(best), pending(best)}) {
					continue
				}
				if slices.ContainsFunc(far(v), func(w string) bool { return !b.used[w] && g.uncovered[pair(v, w)] && g.followsFits(b, v, w) }) {
					best = v
				}
			}
		}
		if best == "" {
			return b
		}
		add(best)
		delete(cands, best)
		for _, w := range far(best) {
			if !b.used[w] {
				cands[w] = true
			}
		}
	}
}

// before reports whether v, with keys kv, is to be taken before w, with
// keys kw: the larger keys first, then the seeded rank.
func (g *coverGraph) before(v, w string, kv, kw []int) bool {
	if w == "" {
		return true
	}
	if c := slices.Compare(kv, kw); c != 0 {
		return c > 0
	}
	return g.rank[v] < g.rank[w]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// followsFits reports whether w could come right after (forwards; before,
// backwards) v were v added to b.
func (g *coverGraph) followsFits(b *coverBuild, v, w string) bool {
	if w == v || b.used[w] {
		return false
	}
	c := testid.ClassOf(w)
	return !g.s.fixtures[c] || !b.classes[c] || testid.ClassOf(v) == c
}
