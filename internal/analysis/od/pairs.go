// Pair orders, the order generation of a change's analysis: instead of
// exploring, a few orders in which each required ordered pair of tests
// runs adjacently (test pair coverage, Li et al. ISSTA 2023), made by
// chaining the pairs greedily into long paths, each test at most once per
// order, each class with class-level fixtures in one stretch.

package od

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/flakyhq/flaky/internal/base/testid"
)

// GenPairs is the generator of the orders that cover a change's pairs.
const GenPairs = "pairs"

// Focus narrows an analysis to the tests a change can affect.
type Focus struct {
	// Targets are the tests to judge: no other test is reported, though
	// every test's runs count as evidence.
	Targets []string
	// Pairs are the ordered pairs of tests to run adjacently, the first
	// right before the second; they replace the exploration orders.
	Pairs [][2]string
	// Alone are the tests to run alone and twice in a row (the new ones).
	Alone []string
	// Via names, for a target judged only for its dependence on certain
	// tests, those tests: it is reported only as their victim or brittle
	// (one of them among its polluters or state-setters), never NOD or
	// NIO.
	Via map[string][]string
	// Writes are the roots (shared state) each test writes, and Shared the
	// roots each pair of Pairs shares (what its first test writes and its
	// second reads, or the reverse): a pair is then covered by any order
	// in which its first test runs before its second with no test between
	// them writing one of those roots, so that one writer before and after
	// many readers covers all their pairs. A pair without Shared roots is
	// covered only by running adjacently.
	Writes map[string][]string
	Shared map[[2]string][]string
	// Reads are the roots each test read that an earlier test can have
	// left for it: minimisation tries the tests that write them first.
	Reads map[string][]string
	// Settled are known victims whose verdict the knowledge keeps: neither
	// they nor their known polluters changed. A failure of one after one
	// of its known polluter groups is explained and no evidence; only a
	// failure without one makes it a candidate again.
	Settled map[string][][]string
	// Polluters and Setters are polluter (with their cleaners) and
	// state-setter groups earlier analyses found: minimisation tries them
	// first, as groups it found itself (a group, and a cleaner, is still
	// confirmed by running it).
	Polluters []KnownPolluters
	Setters   [][]string
}

// KnownPolluters is a polluter group an earlier analysis found, with the
// cleaner groups it found for it.
type KnownPolluters struct {
	Group    []string
	Cleaners [][]string
}

// ReadsWrittenBy returns the roots t reads (Reads) that w writes (Writes),
// in Reads' order.
func (f *Focus) ReadsWrittenBy(t, w string) []string {
	return slices.DeleteFunc(slices.Clone(f.Reads[t]), func(r string) bool { return !slices.Contains(f.Writes[w], r) })
}

// reported tells whether a finding is one the Focus judges (without one,
// every finding is).
func (f *Focus) reported(fd *Finding) bool {
	if f == nil || len(f.Via[fd.Test]) == 0 {
		return true
	}
	via := toSet(f.Via[fd.Test])
	for _, g := range slices.Concat(fd.Polluters, fd.Setters) {
		if slices.ContainsFunc(g, func(t string) bool { return via[t] }) {
			return true
		}
	}
	return false
}

// pairOrders returns orders that together run every pair of s's tests in
// pairs adjacently, the first right before the second: each order chains
// uncovered pairs into paths (from a test with few uncovered pairs into
// it, on to the test with the most uncovered pairs out of it, seeded ties)
// and puts paths one after another while any fits. A test runs at most
// once per order, and a class with class-level fixtures in one stretch,
// so the orders are feasible as they are.
func pairOrders(s *suite, pairs [][2]string, seed int64) []plannedOrder {
	in := map[string]bool{}
	for _, t := range s.tests {
		in[t] = true
	}
	// out and into count each test's uncovered pairs from and to it.
	next, out, into := map[string][]string{}, map[string]int{}, map[string]int{}
	uncovered := map[[2]string]bool{}
	for _, p := range pairs {
		if p[0] == p[1] || !in[p[0]] || !in[p[1]] || uncovered[p] {
			continue
		}
		uncovered[p] = true
		next[p[0]] = append(next[p[0]], p[1])
		out[p[0]]++
		into[p[1]]++
	}
	// rank breaks ties: a seeded permutation of the suite.
	rank := map[string]int{}
	r := rand.New(rand.NewPCG(uint64(seed), 0x70616972))
	for i, j := range r.Perm(len(s.tests)) {
		rank[s.tests[j]] = i
	}
	var orders []plannedOrder
	total := len(uncovered)
	for len(uncovered) > 0 {
		b := &builder{s: s, used: map[string]bool{}, classes: map[string]bool{}}
		covered := 0
		starts := slices.DeleteFunc(slices.Clone(s.tests), func(t string) bool { return out[t] == 0 })
		for {
			// A path starts at a test with an uncovered pair to a test that
			// can follow it.
			start := ""
			starts = slices.DeleteFunc(starts, func(t string) bool { return out[t] == 0 || b.used[t] })
			for _, t := range starts {
				if !b.fits(t) || !slices.ContainsFunc(next[t], func(v string) bool { return uncovered[[2]string{t, v}] && b.fitsAfter(t, v) }) {
					continue
				}
				if start == "" || into[t] < into[start] || (into[t] == into[start] && rank[t] < rank[start]) {
					start = t
				}
			}
			if start == "" {
				break
			}
			for u := start; u != ""; {
				covered += b.add(u, uncovered, out, into)
				after := ""
				for _, v := range next[u] {
					if !uncovered[[2]string{u, v}] || !b.fits(v) {
						continue
					}
					if after == "" || out[v] > out[after] || (out[v] == out[after] && rank[v] < rank[after]) {
						after = v
					}
				}
				u = after
			}
		}
		if covered == 0 {
			break // cannot happen: any uncovered pair fits an empty order
		}
		orders = append(orders, plannedOrder{gen: GenPairs, tests: b.order})
	}
	return labelPairOrders(orders, total, seed)
}

// labelPairOrders names each of the orders covering total pairs by its
// place among them.
func labelPairOrders(orders []plannedOrder, total int, seed int64) []plannedOrder {
	for i := range orders {
		orders[i].label = fmt.Sprintf("%s %d/%d (%d pairs, seed %d)", GenPairs, i+1, len(orders), total, seed)
	}
	return orders
}

// builder is an order being built by pairOrders.
type builder struct {
	s       *suite
	order   []string
	used    map[string]bool // tests in the order
	classes map[string]bool // classes with class-level fixtures in the order
}

// fits reports whether t can run next: it is not in the order yet, and
// its class, when it has class-level fixtures, is the last test's or not
// in the order yet.
func (b *builder) fits(t string) bool {
	if b.used[t] {
		return false
	}
	c := testid.ClassOf(t)
	if !b.s.fixtures[c] || !b.classes[c] {
		return true
	}
	return len(b.order) > 0 && testid.ClassOf(b.order[len(b.order)-1]) == c
}

// fitsAfter reports whether v could run right after t were t added next.
func (b *builder) fitsAfter(t, v string) bool {
	if v == t || b.used[v] {
		return false
	}
	c := testid.ClassOf(v)
	return !b.s.fixtures[c] || !b.classes[c] || testid.ClassOf(t) == c
}

// add appends t and marks the pair it closes covered (counting it off
// out and into); it returns how many pairs it covered (0 or 1).
func (b *builder) add(t string, uncovered map[[2]string]bool, out, into map[string]int) int {
	n := 0
	if len(b.order) > 0 {
		p := [2]string{b.order[len(b.order)-1], t}
		if uncovered[p] {
			delete(uncovered, p)
			out[p[0]]--
			into[t]--
			n = 1
		}
	}
	b.order = append(b.order, t)
	b.used[t] = true
	if c := testid.ClassOf(t); b.s.fixtures[c] {
		b.classes[c] = true
	}
	return n
}
