package od

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

// star returns a writer w of root R and n readers of it, with both-way
// pairs between w and each reader, sharing R.
func star(n int, readersWrite bool) (tests []string, pairs [][2]string, f *Focus) {
	f = &Focus{Writes: map[string][]string{"p.W#w": {"R"}}, Shared: map[[2]string][]string{}}
	tests = []string{"p.W#w"}
	for i := range n {
		r := fmt.Sprintf("p.R%d#r", i)
		tests = append(tests, r)
		if readersWrite {
			f.Writes[r] = []string{"R"}
		}
		for _, p := range [][2]string{{"p.W#w", r}, {r, "p.W#w"}} {
			pairs = append(pairs, p)
			f.Shared[p] = []string{"R"}
		}
	}
	return tests, pairs, f
}

// coveredBy returns the pairs of want that orders cover.
func coveredBy(c *pairCover, orders []plannedOrder, want [][2]string) map[[2]string]bool {
	w := map[[2]string]bool{}
	for _, p := range want {
		w[p] = true
	}
	got := map[[2]string]bool{}
	for _, o := range orders {
		c.covered(o.tests, func(p [2]string) bool { return w[p] }, func(p [2]string) { got[p] = true })
	}
	return got
}

func TestCoverOrders(t *testing.T) {
	for _, tc := range []struct {
		name         string
		readers      int
		readersWrite bool
		fixtures     bool
		maxOrders    int
	}{
		{"one writer, many readers: two orders", 20, false, false, 2},
		{"one writer, many readers, one fixture class", 20, false, true, 2},
		{"every reader writes too: adjacent only", 6, true, false, 6},
		{"one reader", 1, false, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tests, pairs, f := star(tc.readers, tc.readersWrite)
			fixtures := map[string]bool{}
			if tc.fixtures {
				// the readers R0..R4 share one class with fixtures
				for i := range tests {
					if i >= 1 && i <= 5 {
						tests[i] = fmt.Sprintf("p.F#r%d", i)
					}
				}
				fixtures["p.F"] = true
				_, pairs, f = star(0, false)
				for _, r := range tests[1:] {
					for _, p := range [][2]string{{"p.W#w", r}, {r, "p.W#w"}} {
						pairs = append(pairs, p)
						f.Shared[p] = []string{"R"}
					}
				}
			}
			s := newSuite(tests, fixtures)
			c := newPairCover(f)
			orders := coverOrders(s, pairs, c, 1)
			got := coveredBy(c, orders, pairs)
			for _, p := range pairs {
				if !got[p] {
					t.Errorf("%v not covered by %v", p, orders)
				}
			}
			for _, o := range orders {
				if !s.contiguous(o.tests) || len(slices.Compact(sortedCopy(o.tests))) != len(o.tests) {
					t.Errorf("order %v is not feasible", o.tests)
				}
			}
			if len(orders) > tc.maxOrders {
				t.Errorf("%d pairs took %d orders, want at most %d: %v", len(pairs), len(orders), tc.maxOrders, orders)
			}
			again := coverOrders(s, pairs, c, 1)
			if !slices.EqualFunc(orders, again, func(x, y plannedOrder) bool { return slices.Equal(x.tests, y.tests) }) {
				t.Error("the same seed gave different orders")
			}
		})
	}
}

func TestPairCoverCovered(t *testing.T) {
	c := &pairCover{
		writes: map[string]map[string]bool{"w": {"R": true}, "x": {"R": true}, "y": {"Q": true}},
		shared: map[[2]string][]string{{"w", "r"}: {"R"}, {"r", "w"}: {"R"}},
	}
	for _, tc := range []struct {
		order []string
		want  [][2]string
	}{
		{[]string{"w", "r"}, [][2]string{{"w", "r"}}},
		{[]string{"w", "y", "r"}, [][2]string{{"w", "r"}}}, // y writes another root
		{[]string{"w", "x", "r"}, nil},                     // x writes R between them
		{[]string{"r", "y", "w"}, [][2]string{{"r", "w"}}},
		{[]string{"a", "b"}, [][2]string{{"a", "b"}}}, // no shared roots: adjacent
		{[]string{"a", "y", "b"}, nil},
	} {
		var got [][2]string
		want := func(p [2]string) bool { return p == [2]string{"a", "b"} || c.shared[p] != nil }
		c.covered(tc.order, want, func(p [2]string) { got = append(got, p) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: covered %v, want %v", tc.order, got, tc.want)
		}
	}
}

// TestCoverOrdersScale covers the pairs of a large suite sharing a few
// roots in reasonable time.
func TestCoverOrdersScale(t *testing.T) {
	if testing.Short() {
		t.Skip("large suite")
	}
	var tests []string
	for c := range 50 {
		for m := range 10 {
			tests = append(tests, fmt.Sprintf("p.C%d#m%d", c, m))
		}
	}
	s := newSuite(tests, map[string]bool{"p.C1": true, "p.C7": true})
	pairs := randomPairs(tests, 5000, 3)
	f := &Focus{Writes: map[string][]string{}, Shared: map[[2]string][]string{}}
	for i, x := range tests {
		if i%7 == 0 {
			f.Writes[x] = []string{fmt.Sprintf("R%d", i%5)}
		}
	}
	for i, p := range pairs {
		f.Shared[p] = []string{fmt.Sprintf("R%d", i%5)}
	}
	c := newPairCover(f)
	start := time.Now()
	orders := coverOrders(s, pairs, c, 1)
	got := coveredBy(c, orders, pairs)
	for _, p := range pairs {
		if !got[p] {
			t.Fatalf("%v not covered", p)
		}
	}
	t.Logf("%d pairs of %d tests in %d orders, %s", len(pairs), len(tests), len(orders), time.Since(start).Round(time.Millisecond))
}

// TestUnexplained checks that a settled victim's failures after a known
// polluter are no evidence, and any other failure is; in an order built
// for another test (not a detection order), a failure after a known
// polluter is none even with the changed test after it.
func TestUnexplained(t *testing.T) {
	a := newRecorder(nil, Config{Tests: []string{"p.P#p", "p.N#n", "p.V#v"}, Workers: 1, Focus: &Focus{
		Targets: []string{"p.V#v"}, Settled: map[string][][]string{"p.V#v": {{"p.P#p"}}}, Via: map[string][]string{"p.V#v": {"p.N#n"}},
	}})
	a.planned = [][]string{{"p.P#p", "p.V#v"}, {"p.N#n", "p.V#v"}, {"p.P#p", "p.N#n", "p.V#v"}, {"p.N#n", "p.P#p", "p.V#v"}}
	for _, tc := range []struct {
		name string
		in   []obs
		want []obs
	}{
		{"the changed test after the known polluter, not planned", []obs{{order: []string{"p.P#p", "p.N#n", "p.N#n", "p.V#v"}, tally: tally{fail: 1}}}, []obs{}},
		{"after a new polluter, not planned", []obs{{order: []string{"p.N#n", "p.N#n", "p.V#v"}, tally: tally{fail: 1}}}, []obs{{order: []string{"p.N#n", "p.N#n", "p.V#v"}, tally: tally{fail: 1}}}},
		{"after the known polluter", []obs{{order: []string{"p.P#p", "p.V#v"}, tally: tally{fail: 1}}}, []obs{}},
		{"after a new polluter", []obs{{order: []string{"p.N#n", "p.V#v"}, tally: tally{fail: 1}}}, []obs{{order: []string{"p.N#n", "p.V#v"}, tally: tally{fail: 1}}}},
		{"the changed test after the known polluter", []obs{{order: []string{"p.P#p", "p.N#n", "p.V#v"}, tally: tally{fail: 1}}}, []obs{{order: []string{"p.P#p", "p.N#n", "p.V#v"}, tally: tally{fail: 1}}}},
		{"the known polluter after the changed test", []obs{{order: []string{"p.N#n", "p.P#p", "p.V#v"}, tally: tally{fail: 1}}}, []obs{}},
		{"passes stay", []obs{{order: []string{"p.P#p", "p.V#v"}, tally: tally{pass: 1, fail: 1}}}, []obs{{order: []string{"p.P#p", "p.V#v"}, tally: tally{pass: 1}}}},
	} {
		if got := a.unexplained("p.V#v", tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if got := a.unexplained("p.N#n", []obs{{order: []string{"p.P#p", "p.N#n"}, tally: tally{fail: 1}}}); len(got) != 1 {
		t.Errorf("a test not settled lost its failure: %+v", got)
	}
}
