// Pair coverage: a required pair (x, y) is covered by an order in which x
// runs before y and no test between them writes the state the pair shares
// (what x writes and y reads, or the reverse). Without the state a pair
// shares, only running them adjacently covers it.

package od

import (
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/flakyhq/flaky/internal/base/testid"
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
	g        *coverGraph
	forwards bool // the order grows at its end, else at its start
	order    []string
	used     map[string]bool
	classes  map[string]bool
	// written holds per test in the order the roots the tests after it
	// (forwards) or before it (backwards) write; between whether any does.
	written map[string]map[string]bool
	between map[string]bool
	got     map[[2]string]bool
}

// build builds one order forwards or backwards.
func (g *coverGraph) build(forwards bool) *coverBuild {
	b := &coverBuild{g: g, forwards: forwards, used: map[string]bool{}, classes: map[string]bool{}, written: map[string]map[string]bool{}, between: map[string]bool{}, got: map[[2]string]bool{}}
	// candidates are the tests near the order's tests.
	cands := map[string]bool{}
	for {
		best := b.bestNear(cands)
		if best == "" {
			best = b.newStretch()
		}
		if best == "" {
			return b
		}
		b.add(best)
		delete(cands, best)
		for _, w := range b.far(best) {
			if !b.used[w] {
				cands[w] = true
			}
		}
	}
}

// bestNear returns the candidate (of cands, those that no longer fit
// dropped) that closes the most uncovered pairs with the order's tests,
// ties going to one that continues a class's stretch, then to the one with
// the most pairs still to cover onwards, then the fewest back; "" when none
// closes any.
func (b *coverBuild) bestNear(cands map[string]bool) string {
	best, bestGain := "", 0
	for _, v := range slices.Sorted(maps.Keys(cands)) {
		if !b.fits(v) {
			delete(cands, v)
			continue
		}
		n := b.gain(v)
		if n == 0 || n < bestGain {
			continue
		}
		if n > bestGain || b.g.before(v, best, []int{b2i(b.stays(v)), b.pending(v), -b.back(v)}, []int{b2i(b.stays(best)), b.pending(best), -b.back(best)}) {
			best, bestGain = v, n
		}
	}
	return best
}

// newStretch returns the test to open a new stretch with (or start the
// order): a test with pairs still to cover onwards, one of which can
// follow it, with the fewest pairs still to cover into it; "" when none.
func (b *coverBuild) newStretch() string {
	g := b.g
	best := ""
	for _, v := range g.s.tests {
		if !b.fits(v) || b.pending(v) == 0 {
			continue
		}
		if best != "" && !g.before(v, best, []int{-b.back(v), b.pending(v)}, []int{-b.back(best), b.pending(best)}) {
			continue
		}
		if slices.ContainsFunc(b.far(v), func(w string) bool { return !b.used[w] && g.uncovered[b.pair(v, w)] && g.followsFits(b, v, w) }) {
			best = v
		}
	}
	return best
}

// pair orients a candidate v and a test u of the order.
func (b *coverBuild) pair(u, v string) [2]string {
	if b.forwards {
		return [2]string{u, v}
	}
	return [2]string{v, u}
}

// near lists the tests v could close pairs with.
func (b *coverBuild) near(v string) []string {
	if b.forwards {
		return b.g.prev[v]
	}
	return b.g.next[v]
}

// far lists the tests v could open pairs with, in the building direction.
func (b *coverBuild) far(v string) []string {
	if b.forwards {
		return b.g.next[v]
	}
	return b.g.prev[v]
}

// closes reports whether adding v next to the order's test u would cover
// their pair: u is in the order, the pair is uncovered, not covered by the
// order yet, and no test between them blocks it.
func (b *coverBuild) closes(u, v string) bool {
	p := b.pair(u, v)
	return b.used[u] && b.g.uncovered[p] && !b.got[p] && !b.g.c.blockedBy(p, b.written[u], b.between[u])
}

// gain counts the uncovered pairs adding v would cover.
func (b *coverBuild) gain(v string) int {
	n := 0
	for _, u := range b.near(v) {
		if b.closes(u, v) {
			n++
		}
	}
	return n
}

// fits reports whether v may come next: it is not in the order yet, and a
// test of a class with class-level fixtures whose stretch the order has
// already comes only right next to it.
func (b *coverBuild) fits(v string) bool {
	if b.used[v] {
		return false
	}
	c := testid.ClassOf(v)
	if !b.g.s.fixtures[c] || !b.classes[c] {
		return true
	}
	end := b.order[len(b.order)-1]
	if !b.forwards {
		end = b.order[0]
	}
	return testid.ClassOf(end) == c
}

// add adds v to the order, with the pairs it covers.
func (b *coverBuild) add(v string) {
	for _, u := range b.near(v) {
		if b.closes(u, v) {
			b.got[b.pair(u, v)] = true
		}
	}
	for _, u := range b.order {
		b.between[u] = true
		for r := range b.g.c.writes[v] {
			if b.written[u] == nil {
				b.written[u] = map[string]bool{}
			}
			b.written[u][r] = true
		}
	}
	if b.forwards {
		b.order = append(b.order, v)
	} else {
		b.order = slices.Insert(b.order, 0, v)
	}
	b.used[v] = true
	if c := testid.ClassOf(v); b.g.s.fixtures[c] {
		b.classes[c] = true
	}
}

// pending counts v's uncovered pairs in the building direction with
// tests not in the order.
func (b *coverBuild) pending(v string) int {
	n := 0
	for _, w := range b.far(v) {
		if !b.used[w] && b.g.uncovered[b.pair(v, w)] {
			n++
		}
	}
	return n
}

// end is the test a new one would be next to.
func (b *coverBuild) end() string {
	switch {
	case len(b.order) == 0:
		return ""
	case b.forwards:
		return b.order[len(b.order)-1]
	}
	return b.order[0]
}

// stays reports whether v continues the stretch of a class with
// class-level fixtures at the order's end, which must be finished
// before another class comes.
func (b *coverBuild) stays(v string) bool {
	c := testid.ClassOf(v)
	return b.g.s.fixtures[c] && b.end() != "" && testid.ClassOf(b.end()) == c
}

// back counts a test's uncovered pairs against the building direction.
func (b *coverBuild) back(v string) int {
	if b.forwards {
		return b.g.into[v]
	}
	return b.g.out[v]
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
