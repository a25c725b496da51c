package od

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// pairSuite is a suite of classes A..E with 4 methods each; A and C have
// class-level fixtures.
func pairSuite() *suite {
	var tests []string
	for _, c := range "ABCDE" {
		for m := range 4 {
			tests = append(tests, fmt.Sprintf("p.%c#m%d", c, m))
		}
	}
	return newSuite(tests, map[string]bool{"p.A": true, "p.C": true})
}

// randomPairs returns n random ordered pairs of distinct tests.
func randomPairs(tests []string, n int, seed uint64) [][2]string {
	r := rand.New(rand.NewPCG(seed, 1))
	var out [][2]string
	for len(out) < n {
		x, y := tests[r.IntN(len(tests))], tests[r.IntN(len(tests))]
		if x != y {
			out = append(out, [2]string{x, y})
		}
	}
	return out
}

func TestPairOrdersCoverEveryPairFeasibly(t *testing.T) {
	s := pairSuite()
	for _, n := range []int{1, 5, 40, 200} {
		for seed := range int64(3) {
			pairs := randomPairs(s.tests, n, uint64(seed)+uint64(n))
			orders := pairOrders(s, pairs, seed)
			adjacent := map[[2]string]bool{}
			for _, o := range orders {
				if o.gen != GenPairs || !s.contiguous(o.tests) {
					t.Errorf("%d pairs, seed %d: order %v is not feasible", n, seed, o.tests)
				}
				if c := slices.Clone(o.tests); len(slices.Compact(sortedCopy(c))) != len(o.tests) {
					t.Errorf("%d pairs, seed %d: order %v repeats a test", n, seed, o.tests)
				}
				for i := 1; i < len(o.tests); i++ {
					adjacent[[2]string{o.tests[i-1], o.tests[i]}] = true
				}
			}
			for _, p := range pairs {
				if !adjacent[p] {
					t.Errorf("%d pairs, seed %d: %v never adjacent", n, seed, p)
				}
			}
			if n == 40 {
				t.Logf("%d pairs in %d orders", n, len(orders))
			}
			if len(orders) > n {
				t.Errorf("%d pairs took %d orders", n, len(orders))
			}
		}
	}
}

func sortedCopy(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

func TestPairOrdersChainAndAreDeterministic(t *testing.T) {
	s := pairSuite()
	// A chain of pairs fits in one order.
	chain := [][2]string{{"p.B#m0", "p.D#m1"}, {"p.D#m1", "p.E#m2"}, {"p.E#m2", "p.B#m3"}}
	if orders := pairOrders(s, chain, 1); len(orders) != 1 || !slices.Equal(orders[0].tests, []string{"p.B#m0", "p.D#m1", "p.E#m2", "p.B#m3"}) {
		t.Errorf("chain: %v", orders)
	}
	// Both ways across two fixture classes: the A-block cannot be entered twice.
	both := [][2]string{{"p.A#m0", "p.C#m0"}, {"p.C#m0", "p.A#m0"}, {"p.A#m1", "p.C#m1"}}
	orders := pairOrders(s, both, 1)
	if len(orders) < 2 {
		t.Errorf("both ways across fixture classes in one order: %v", orders)
	}
	pairs := randomPairs(s.tests, 60, 9)
	a, b := pairOrders(s, pairs, 5), pairOrders(s, pairs, 5)
	if !slices.EqualFunc(a, b, func(x, y plannedOrder) bool { return slices.Equal(x.tests, y.tests) && x.label == y.label }) {
		t.Error("the same seed gave different orders")
	}
}

func TestAnalyzeFocusJudgesOnlyTargets(t *testing.T) {
	f := newFakeSuite()
	focus := &Focus{
		// p.Retry#jitter, NOD, flips in the original runs: not a target,
		// not reported. p.Receipt#total is judged only as a victim of
		// p.Cache#clear, which it is not.
		Targets: []string{"p.Invoice#total", "p.Receipt#total", "q.Stable#one"},
		Pairs: [][2]string{
			{"p.Promotion#sale", "p.Invoice#total"}, {"p.Invoice#total", "p.Promotion#sale"},
			{"p.Cache#clear", "p.Invoice#total"}, {"p.Invoice#total", "p.Cache#clear"},
			{"p.Promotion#sale", "p.Receipt#total"}, {"p.Cache#clear", "p.Receipt#total"},
		},
		Via:   map[string][]string{"p.Receipt#total": {"p.Cache#clear"}},
		Alone: []string{"p.Invoice#total"},
	}
	for _, seed := range []int64{1, 2} {
		f.runs = 0
		res, err := Run(context.Background(), f, Config{Tests: f.order, Seed: seed, Workers: 2, Focus: focus, OriginalRuns: 6})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].Test != "p.Invoice#total" || res.Findings[0].Kind != report.ODVictim {
			t.Errorf("seed %d: findings %+v", seed, res.Findings)
		}
		cov := res.Coverage
		if cov.Pairs != 6 || cov.PairsCovered != 6 || cov.Generators[GenPairs] == 0 || cov.TestsAlone == 0 {
			t.Errorf("seed %d: coverage %+v", seed, cov)
		}
		t.Logf("seed %d: %d orders %v", seed, cov.Orders, cov.Generators)
	}
}

// TestPairOrdersScale covers many pairs of a large suite quickly: every
// test of 1000 paired with 100 others.
func TestPairOrdersScale(t *testing.T) {
	var tests []string
	for c := range 100 {
		for m := range 10 {
			tests = append(tests, fmt.Sprintf("p.C%d#m%d", c, m))
		}
	}
	s := newSuite(tests, map[string]bool{"p.C1": true, "p.C7": true})
	pairs := randomPairs(tests, 20000, 3)
	start := time.Now()
	orders := pairOrders(s, pairs, 1)
	adjacent := map[[2]string]bool{}
	for _, o := range orders {
		for i := 1; i < len(o.tests); i++ {
			adjacent[[2]string{o.tests[i-1], o.tests[i]}] = true
		}
	}
	for _, p := range pairs {
		if !adjacent[p] {
			t.Fatalf("%v never adjacent", p)
		}
	}
	t.Logf("%d pairs of %d tests in %d orders, %s", len(pairs), len(tests), len(orders), time.Since(start).Round(time.Millisecond))
}

// TestFocusSeedsKnownGroups checks that the groups a Focus brings from
// earlier analyses, and their cleaners, are the analysis' known groups from
// the start, those naming a test not in the suite left out.
func TestFocusSeedsKnownGroups(t *testing.T) {
	tests := []string{"p.A#a", "p.B#b", "p.V#v"}
	a := newMinimisation(newRecorder(nil, Config{Tests: tests, Workers: 1, Focus: &Focus{
		Targets:   []string{"p.V#v"},
		Polluters: []KnownPolluters{{Group: []string{"p.A#a"}, Cleaners: [][]string{{"p.B#b"}, {"p.Gone#g"}}}, {Group: []string{"p.Gone#g"}}, {Group: []string{"p.A#a"}}},
		Setters:   [][]string{{"p.B#b"}},
	}}), time.Time{})
	if want := [][]string{{"p.A#a"}}; !reflect.DeepEqual(a.polluterGroups, want) {
		t.Errorf("polluter groups %v, want %v", a.polluterGroups, want)
	}
	if want := [][]string{{"p.B#b"}}; !reflect.DeepEqual(a.setterGroups, want) {
		t.Errorf("setter groups %v, want %v", a.setterGroups, want)
	}
	if want := map[string][][]string{orderKey([]string{"p.A#a"}): {{"p.B#b"}}}; !reflect.DeepEqual(a.cleanerGroups, want) {
		t.Errorf("cleaner groups %v, want %v", a.cleanerGroups, want)
	}
}

// TestWriters checks that minimisation tries first the tests a Focus
// records writing what the test reads, in the order given, and without a
// Focus the writers the suite's record (Config.Writers) names.
func TestWriters(t *testing.T) {
	focus := &Focus{
		Reads:  map[string][]string{"p.V#v": {"p.C.cache", "p.C.mode"}},
		Writes: map[string][]string{"p.A#a": {"p.C.mode"}, "p.B#b": {"p.D.other"}, "p.W#w": {"p.C.cache", "p.D.other"}},
	}
	among := []string{"p.W#w", "p.B#b", "p.A#a", "p.N#n"}
	// A whole suite's record: the writers of each reader, in any order.
	writers := map[string][]string{"p.V#v": {"p.A#a", "p.N#n"}}
	for _, tc := range []struct {
		name    string
		focus   *Focus
		writers map[string][]string
		test    string
		want    []string
	}{
		{"writers of what it reads", focus, nil, "p.V#v", []string{"p.W#w", "p.A#a"}},
		{"a test that reads nothing", focus, nil, "p.N#n", nil},
		{"no focus", nil, nil, "p.V#v", nil},
		{"no focus, the suite's record", nil, writers, "p.V#v", []string{"p.A#a", "p.N#n"}},
		{"no focus, a test the record does not name", nil, writers, "p.N#n", nil},
	} {
		a := newMinimisation(newRecorder(nil, Config{Tests: append(slices.Clone(among), "p.V#v"), Workers: 1, Focus: tc.focus, Writers: tc.writers}), time.Time{})
		if got := a.writers(tc.test, among); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
