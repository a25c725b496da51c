// Order generation, the first stage (ordering): the suite's tests, grouped
// by class and by package (suite), and the seed give the exploration
// orders (the generators below: reversed, random, Tuscan-square pairwise),
// each made feasible under class-level fixtures; detectionOrders adds the
// isolation and twice-in-a-row runs and gives the numbered detection plan,
// which schedule.go puts in the order to run it.

package od

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
)

// Generator names, recorded in reports as the source of each order.
const (
	GenOriginal       = "original"        // the suite's own order, rerun
	GenIsolation      = "isolation"       // one test alone
	GenTwice          = "twice"           // every test twice in a row, all in one JVM
	GenReverseClasses = "reverse-classes" // classes reversed, methods in their order
	GenReverseMethods = "reverse-methods" // classes in their order, methods reversed
	GenRandomClasses  = "random-classes"  // classes shuffled, methods shuffled inside each
	GenRandomMethods  = "random-methods"  // all tests shuffled, classes interleaved
	GenTuscanClasses  = "tuscan-classes"  // every ordered pair of classes adjacent once
	GenTuscanPackages = "tuscan-packages" // every ordered pair of tests of a package adjacent once
	GenTuscanMethods  = "tuscan-methods"  // every ordered pair of tests adjacent once
)

// randomEvery is how many pairwise orders run between two random ones.
const randomEvery = 4

// group is a named run of tests: a class or a package.
type group struct {
	name  string
	tests []string
}

// suite is a test suite in its original order, grouped by class and package.
type suite struct {
	tests    []string
	classes  []group // in order of first appearance, methods in original order
	packages []group // likewise
	// fixtures holds the classes with class-level fixtures: their tests
	// always run contiguously (see feasible).
	fixtures map[string]bool
}

func newSuite(tests []string, fixtures map[string]bool) *suite {
	return &suite{tests: tests, classes: groupBy(tests, testid.ClassOf), packages: groupBy(tests, packageOf), fixtures: fixtures}
}

// feasible returns order rearranged into one that Surefire and the test
// framework could run: the tests of a class with class-level fixtures run
// contiguously, in one class-fixture scope (its fixtures once), as they do
// under Surefire. Each such class's tests move to where the class first
// runs, except the class of the order's last test, whose tests move to the
// end, so that the order still ends with its last test. Other tests keep
// their places, and the tests of one class their relative order. Classes
// without class-level fixtures may interleave with others.
func (s *suite) feasible(order []string) []string {
	if len(s.fixtures) == 0 || len(order) < 2 || s.contiguous(order) {
		return order
	}
	lastClass := testid.ClassOf(order[len(order)-1])
	blocks := map[string][]string{}
	for _, t := range order {
		if c := testid.ClassOf(t); s.fixtures[c] {
			blocks[c] = append(blocks[c], t)
		}
	}
	out := make([]string, 0, len(order))
	placed := map[string]bool{lastClass: true}
	for _, t := range order {
		c := testid.ClassOf(t)
		switch {
		case !s.fixtures[c]:
			out = append(out, t)
		case !placed[c]:
			placed[c] = true
			out = append(out, blocks[c]...)
		}
	}
	if s.fixtures[lastClass] {
		out = append(out, blocks[lastClass]...)
	}
	return out
}

// contiguous reports whether every class with class-level fixtures runs in
// one stretch of order.
func (s *suite) contiguous(order []string) bool {
	done := map[string]bool{}
	for i, t := range order {
		c := testid.ClassOf(t)
		if !s.fixtures[c] || (i > 0 && testid.ClassOf(order[i-1]) == c) {
			continue
		}
		if done[c] {
			return false
		}
		done[c] = true
	}
	return true
}

func groupBy(tests []string, key func(string) string) []group {
	var groups []group
	index := map[string]int{}
	for _, t := range tests {
		k := key(t)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, group{name: k})
		}
		groups[i].tests = append(groups[i].tests, t)
	}
	return groups
}

// packageOf returns the package of a test id's class ("" for the default package).
func packageOf(id string) string { return testid.Parse(id).Package() }

// plannedOrder is an order with the generator and label that produced it.
type plannedOrder struct {
	gen   string
	label string
	tests []string
	plan  int // position in the detection plan (RecordedRun.Plan); -1 for the original runs
	// claim says the run is a shard's recorded run a merge replays: its
	// outcomes are a candidate's evidence only, never a finding's.
	claim bool
}

// explorer yields the exploration orders of a suite: the reversed orders,
// then pairwise (Tuscan square) orders from the pairs most likely to share
// static state (classes, then tests of one package) to all pairs of tests,
// with a random order after every few, then random orders. Orders equal to
// the original or to an earlier one are skipped. All choices derive from seed.
type explorer struct {
	s       *suite
	seed    uint64
	seen    map[string]bool
	pending []plannedOrder
	stage   int
	random  int // random orders emitted
	paired  int // pairwise orders emitted since the last random one
}

func newExplorer(s *suite, seed int64) *explorer {
	return &explorer{s: s, seed: uint64(seed), seen: map[string]bool{orderKey(s.tests): true}}
}

// rng returns the random source for the n-th use of a generator.
func (e *explorer) rng(gen string, n int) *rand.Rand {
	h := uint64(14695981039346656037)
	for _, b := range []byte(gen) {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return rand.New(rand.NewPCG(e.seed, h+uint64(n)))
}

// maxRepeats is how many repeated orders in a row end the stream: a suite
// this small has no new orders left.
const maxRepeats = 64

// next returns the next new order; false when the suite has no new orders.
func (e *explorer) next() (plannedOrder, bool) {
	if len(e.s.tests) < 2 {
		return plannedOrder{}, false
	}
	for range maxRepeats {
		o := e.candidate()
		o.tests = e.s.feasible(o.tests)
		if k := orderKey(o.tests); !e.seen[k] {
			e.seen[k] = true
			return o, true
		}
	}
	return plannedOrder{}, false
}

// candidate returns the next order of the stream, possibly a repeat.
func (e *explorer) candidate() plannedOrder {
	for len(e.pending) == 0 {
		switch e.stage {
		case 0:
			e.pending = []plannedOrder{reverseClasses(e.s), reverseMethods(e.s)}
		case 1:
			e.pending = tuscanClasses(e.s, e.rng(GenTuscanClasses, 0), e.seed)
		case 2:
			if len(e.s.packages) > 1 {
				e.pending = tuscanPackages(e.s, e.rng(GenTuscanPackages, 0), e.seed)
			}
		case 3:
			e.pending = tuscanMethods(e.s, e.rng(GenTuscanMethods, 0), e.seed)
		default:
			return e.randomOrder()
		}
		e.stage++
	}
	if e.stage > 1 && e.paired == randomEvery {
		return e.randomOrder()
	}
	o := e.pending[0]
	e.pending = e.pending[1:]
	if o.gen != GenReverseClasses && o.gen != GenReverseMethods {
		e.paired++
	}
	return o
}

// randomOrder alternates random class orders and random method orders.
func (e *explorer) randomOrder() plannedOrder {
	e.paired = 0
	n := e.random
	e.random++
	if n%2 == 0 {
		return randomClasses(e.s, e.rng(GenRandomClasses, n/2), e.seed, n/2+1)
	}
	return randomMethods(e.s, e.rng(GenRandomMethods, n/2), e.seed, n/2+1)
}

// autoRounds is the default number of exploration orders: the reversed
// orders, all class-pairwise orders with the random ones between them, and
// two more random orders.
func autoRounds(s *suite) int {
	rows := len(pairRows(len(s.classes)))
	return 2 + rows + rows/randomEvery + 2
}

func reverseClasses(s *suite) plannedOrder {
	var out []string
	for i := len(s.classes) - 1; i >= 0; i-- {
		out = append(out, s.classes[i].tests...)
	}
	return plannedOrder{gen: GenReverseClasses, label: GenReverseClasses, tests: out}
}

func reverseMethods(s *suite) plannedOrder {
	var out []string
	for _, c := range s.classes {
		for i := len(c.tests) - 1; i >= 0; i-- {
			out = append(out, c.tests[i])
		}
	}
	return plannedOrder{gen: GenReverseMethods, label: GenReverseMethods, tests: out}
}

func randomClasses(s *suite, r *rand.Rand, seed uint64, n int) plannedOrder {
	classes := slices.Clone(s.classes)
	r.Shuffle(len(classes), func(i, j int) { classes[i], classes[j] = classes[j], classes[i] })
	var out []string
	for _, c := range classes {
		m := slices.Clone(c.tests)
		r.Shuffle(len(m), func(i, j int) { m[i], m[j] = m[j], m[i] })
		out = append(out, m...)
	}
	return plannedOrder{gen: GenRandomClasses, label: fmt.Sprintf("%s #%d (seed %d)", GenRandomClasses, n, int64(seed)), tests: out}
}

func randomMethods(s *suite, r *rand.Rand, seed uint64, n int) plannedOrder {
	out := slices.Clone(s.tests)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return plannedOrder{gen: GenRandomMethods, label: fmt.Sprintf("%s #%d (seed %d)", GenRandomMethods, n, int64(seed)), tests: out}
}

// permuted returns a seeded permutation of items (the symbols of a square).
func permuted[T any](items []T, r *rand.Rand) []T {
	out := slices.Clone(items)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// pairwise returns the Tuscan rows over tests: every ordered pair adjacent once.
func pairwise(tests []string) [][]string {
	rows := pairRows(len(tests))
	out := make([][]string, len(rows))
	for i, row := range rows {
		out[i] = make([]string, len(row))
		for j, v := range row {
			out[i][j] = tests[v]
		}
	}
	return out
}

// tuscanClasses keeps each class's methods together: row r orders the
// classes by row r of a Tuscan square over the classes (every ordered pair
// of classes adjacent once) and the methods of each class by a row of the
// class's own square (every ordered pair of its methods adjacent once, when
// there are at least as many rows as methods).
func tuscanClasses(s *suite, r *rand.Rand, seed uint64) []plannedOrder {
	classes := permuted(s.classes, r)
	methodRows := make([][][]string, len(classes))
	for i, c := range classes {
		methodRows[i] = pairwise(permuted(c.tests, r))
	}
	rows := pairRows(len(classes))
	out := make([]plannedOrder, len(rows))
	for i, row := range rows {
		var tests []string
		for _, ci := range row {
			mr := methodRows[ci]
			tests = append(tests, mr[i%len(mr)]...)
		}
		out[i] = plannedOrder{gen: GenTuscanClasses, label: fmt.Sprintf("%s row %d/%d (seed %d)", GenTuscanClasses, i+1, len(rows), int64(seed)), tests: tests}
	}
	return out
}

// tuscanPackages covers the ordered pairs of tests of the same package (the
// pairs that static state most plausibly connects): row r concatenates, for
// each package, row r of the package's Tuscan square.
func tuscanPackages(s *suite, r *rand.Rand, seed uint64) []plannedOrder {
	packages := permuted(s.packages, r)
	rowsOf := make([][][]string, len(packages))
	n := 0
	for i, p := range packages {
		rowsOf[i] = pairwise(permuted(p.tests, r))
		n = max(n, len(rowsOf[i]))
	}
	out := make([]plannedOrder, n)
	for i := range out {
		var tests []string
		for k := range packages {
			pr := rowsOf[(k+i)%len(packages)]
			tests = append(tests, pr[i%len(pr)]...)
		}
		out[i] = plannedOrder{gen: GenTuscanPackages, label: fmt.Sprintf("%s row %d/%d (seed %d)", GenTuscanPackages, i+1, n, int64(seed)), tests: tests}
	}
	return out
}

// tuscanMethods covers every ordered pair of tests in about n orders.
func tuscanMethods(s *suite, r *rand.Rand, seed uint64) []plannedOrder {
	rows := pairwise(permuted(s.tests, r))
	out := make([]plannedOrder, len(rows))
	for i, row := range rows {
		out[i] = plannedOrder{gen: GenTuscanMethods, label: fmt.Sprintf("%s row %d/%d (seed %d)", GenTuscanMethods, i+1, len(rows), int64(seed)), tests: row}
	}
	return out
}

// isolation runs t alone.
func isolation(t string) plannedOrder {
	return plannedOrder{gen: GenIsolation, label: GenIsolation, tests: []string{t}}
}

// twice runs each test twice in a row, all in one JVM: a test whose second
// run's outcome differs from its first is not idempotent.
func twice(label string, tests []string) plannedOrder {
	out := make([]string, 0, 2*len(tests))
	for _, t := range tests {
		out = append(out, t, t)
	}
	return plannedOrder{gen: GenTwice, label: label, tests: out}
}

// orderKey identifies an order.
func orderKey(order []string) string {
	return strings.Join(order, "\n")
}

// ordering is the first stage: it takes the suite, the targets (the tests
// to judge) and the seed and gives the detection orders, scheduled
// (scheduled), and how many exploration orders they hold, which the budget
// the analysis chooses is scaled by (fixBudget, in budget.go).
type ordering struct {
	*recorder
}

// scheduled returns the detection orders (a shard's share of them) in the
// order to run them (schedule), and how many exploration orders the whole
// plan holds.
func (og *ordering) scheduled() ([]plannedOrder, int) {
	orders, rounds := og.detectionOrders()
	if og.cfg.Shard.N > 0 {
		orders = slices.DeleteFunc(orders, func(o plannedOrder) bool { return !og.cfg.Shard.takes(o.plan) })
		og.logf("shard %s: %d of the detection orders", og.cfg.Shard, len(orders))
	}
	return og.schedule(orders), rounds
}

// analysable returns the tests (with a Focus, its targets) minus the ones
// to skip and the ones that were only skipped or aborted (an assumption
// failed) in the original runs.
func (og *ordering) analysable() []string {
	var focus map[string]bool
	if og.cfg.Focus != nil {
		focus = toSet(og.cfg.Focus.Targets)
	}
	var out []string
	for _, t := range og.s.tests {
		if og.cfg.Skip[t] || (focus != nil && !focus[t]) {
			continue
		}
		if o := og.st.get(og.s.tests[:og.index[t]+1]); o.runs() > 0 || o.skipped == 0 {
			out = append(out, t)
		}
	}
	return out
}

// detectionOrders interleaves the exploration orders (with a Focus, the
// orders that cover its pairs) with the isolation runs, so both progress
// when the budget is short.
func (og *ordering) detectionOrders() ([]plannedOrder, int) {
	var explore []plannedOrder
	if og.cfg.Focus != nil {
		if c := newPairCover(og.cfg.Focus); c != nil {
			explore = coverOrders(og.s, og.cfg.Focus.Pairs, c, og.cfg.Seed)
		} else {
			explore = pairOrders(og.s, og.cfg.Focus.Pairs, og.cfg.Seed)
		}
	} else {
		rounds := og.cfg.Rounds
		if rounds == 0 {
			rounds = autoRounds(og.s)
		}
		ex := newExplorer(og.s, og.cfg.Seed)
		for len(explore) < rounds {
			o, ok := ex.next()
			if !ok {
				break
			}
			explore = append(explore, o)
		}
	}
	og.cov.RoundsPlanned = len(explore)
	// A test that runs first in an order runs alone: isolate only the others.
	first := map[string]bool{og.s.tests[0]: true}
	for _, o := range explore {
		first[o.tests[0]] = true
	}
	var more []plannedOrder
	alone := og.alone()
	repeatable := slices.DeleteFunc(slices.Clone(alone), func(t string) bool { return og.cfg.Unrepeatable[testid.ClassOf(t)] })
	if len(repeatable) > 0 {
		more = append(more, twice(GenTwice, repeatable), twice(GenTwice+" reversed", reversed(repeatable)))
	}
	for _, t := range alone {
		if !first[t] {
			more = append(more, isolation(t))
		}
	}
	what := fmt.Sprintf("%d exploration orders (seed %d)", len(explore), og.cfg.Seed)
	if og.cfg.Focus != nil {
		how := "each pair adjacent"
		if og.cover != nil {
			how = "each pair's first test before its second with no writer of their shared state between"
		}
		what = fmt.Sprintf("%d of them judged, %d orders covering %d pairs (%s; seed %d)", len(og.targets), len(explore), og.cov.Pairs, how, og.cfg.Seed)
	}
	og.logf("%d tests: %s, %d isolation and twice-in-a-row runs", len(og.s.tests), what, len(more))
	plan := interleave(explore, more)
	for i := range plan {
		plan[i].plan = i
	}
	return plan, len(explore)
}

// alone returns the tests to run alone and twice in a row: the tests to
// judge, or those of them a Focus names.
func (og *ordering) alone() []string {
	if og.cfg.Focus == nil {
		return og.targets
	}
	want := toSet(og.cfg.Focus.Alone)
	return slices.DeleteFunc(slices.Clone(og.targets), func(t string) bool { return !want[t] })
}

// required returns a Focus's pairs of distinct tests of the suite, as
// pairs of indexes, without repeats.
func (rec *recorder) required() map[[2]int]bool {
	out := map[[2]int]bool{}
	for _, p := range rec.cfg.Focus.Pairs {
		x, okx := rec.index[p[0]]
		y, oky := rec.index[p[1]]
		if okx && oky && x != y {
			out[[2]int{x, y}] = true
		}
	}
	return out
}

// interleave merges two lists, each keeping its order, evenly.
func interleave(x, y []plannedOrder) []plannedOrder {
	out := make([]plannedOrder, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		if j >= len(y) || (i < len(x) && i*len(y) <= j*len(x)) {
			out = append(out, x[i])
			i++
		} else {
			out = append(out, y[j])
			j++
		}
	}
	return out
}
