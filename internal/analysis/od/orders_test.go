package od

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/base/testid"
)

// testSuite returns ids of classes p<k>.C<i> with the given method counts.
func testSuite(methods ...int) []string {
	var ids []string
	for c, m := range methods {
		for j := range m {
			ids = append(ids, fmt.Sprintf("p%d.C%d#m%d", c%2, c, j))
		}
	}
	return ids
}

func explore(s *suite, seed int64, n int) []plannedOrder {
	e := newExplorer(s, seed)
	var out []plannedOrder
	for len(out) < n {
		o, ok := e.next()
		if !ok {
			break
		}
		out = append(out, o)
	}
	return out
}

func TestExplorerIsDeterministicBySeed(t *testing.T) {
	s := newSuite(testSuite(3, 1, 4, 2, 2, 1, 5), nil)
	a, b, c := explore(s, 7, 40), explore(s, 7, 40), explore(s, 8, 40)
	if len(a) != 40 {
		t.Fatalf("got %d orders", len(a))
	}
	differ := false
	for i := range a {
		if a[i].label != b[i].label || !slices.Equal(a[i].tests, b[i].tests) {
			t.Fatalf("order %d differs between runs with the same seed", i)
		}
		differ = differ || !slices.Equal(a[i].tests, c[i].tests)
	}
	if !differ {
		t.Error("seeds 7 and 8 gave the same orders")
	}
}

func TestExplorerOrdersArePermutationsWithoutRepeats(t *testing.T) {
	tests := testSuite(3, 1, 4, 2)
	s := newSuite(tests, nil)
	seen := map[string]bool{orderKey(tests): true}
	for _, o := range explore(s, 1, 60) {
		if !slices.Equal(slices.Sorted(slices.Values(o.tests)), slices.Sorted(slices.Values(tests))) {
			t.Fatalf("%s is not a permutation of the suite: %v", o.label, o.tests)
		}
		if seen[orderKey(o.tests)] {
			t.Fatalf("%s repeats an earlier order or the original", o.label)
		}
		seen[orderKey(o.tests)] = true
	}
}

func TestExplorerStream(t *testing.T) {
	s := newSuite(testSuite(2, 2, 2, 2, 2, 2, 2, 2, 2), nil)
	var gens []string
	for _, o := range explore(s, 3, 16) {
		gens = append(gens, o.gen)
	}
	want := []string{GenReverseClasses, GenReverseMethods,
		GenTuscanClasses, GenTuscanClasses, GenTuscanClasses, GenTuscanClasses, GenRandomClasses,
		GenTuscanClasses, GenTuscanClasses, GenTuscanClasses, GenTuscanClasses, GenRandomMethods,
		GenTuscanClasses, GenTuscanClasses, GenTuscanPackages, GenTuscanPackages}
	if !slices.Equal(gens, want) {
		t.Errorf("generators\n got %v\nwant %v", gens, want)
	}
	if got, want := autoRounds(s), 2+10+10/randomEvery+2; got != want {
		t.Errorf("autoRounds = %d, want %d", got, want)
	}
}

func TestTinySuitesEndTheStream(t *testing.T) {
	for _, tests := range [][]string{nil, {"a.A#x"}, {"a.A#x", "a.A#y"}} {
		got := explore(newSuite(tests, nil), 1, 100)
		if len(got) > 1 {
			t.Errorf("%v: %d orders, want at most the reversed one", tests, len(got))
		}
	}
}

func TestReversedOrders(t *testing.T) {
	s := newSuite([]string{"a.A#1", "a.A#2", "a.B#1", "a.C#1", "a.C#2"}, nil)
	if got, want := reverseClasses(s).tests, []string{"a.C#1", "a.C#2", "a.B#1", "a.A#1", "a.A#2"}; !slices.Equal(got, want) {
		t.Errorf("reverse classes %v, want %v", got, want)
	}
	if got, want := reverseMethods(s).tests, []string{"a.A#2", "a.A#1", "a.B#1", "a.C#2", "a.C#1"}; !slices.Equal(got, want) {
		t.Errorf("reverse methods %v, want %v", got, want)
	}
}

// adjacentPairs counts how often each ordered pair of keys is adjacent.
func adjacentPairs(orders []plannedOrder, key func(string) string) map[[2]string]int {
	pairs := map[[2]string]int{}
	for _, o := range orders {
		for i := 1; i < len(o.tests); i++ {
			if x, y := key(o.tests[i-1]), key(o.tests[i]); x != y {
				pairs[[2]string{x, y}]++
			}
		}
	}
	return pairs
}

func TestTuscanClassesKeepClassesTogetherAndCoverClassPairs(t *testing.T) {
	s := newSuite(testSuite(3, 1, 4, 2, 2), nil)
	rows := tuscanClasses(s, newExplorer(s, 5).rng(GenTuscanClasses, 0), 5)
	if len(rows) != 6 {
		t.Fatalf("%d rows for 5 classes, want 6", len(rows))
	}
	for _, o := range rows {
		runs := groupBy(o.tests, testid.ClassOf)
		for i := 1; i < len(o.tests); i++ {
			if testid.ClassOf(o.tests[i]) != testid.ClassOf(o.tests[i-1]) && slices.ContainsFunc(o.tests[:i-1], func(x string) bool { return testid.ClassOf(x) == testid.ClassOf(o.tests[i]) }) {
				t.Fatalf("%s splits class %s: %v", o.label, testid.ClassOf(o.tests[i]), o.tests)
			}
		}
		if len(runs) != 5 {
			t.Fatalf("%s has %d classes", o.label, len(runs))
		}
	}
	pairs := adjacentPairs(rows, testid.ClassOf)
	if len(pairs) != 5*4 {
		t.Errorf("%d ordered class pairs adjacent, want 20", len(pairs))
	}
	// Within the class of 4 methods every ordered pair of methods is adjacent in some row.
	within := map[[2]string]bool{}
	for _, o := range rows {
		for i := 1; i < len(o.tests); i++ {
			if testid.ClassOf(o.tests[i]) == "p0.C2" && testid.ClassOf(o.tests[i-1]) == "p0.C2" {
				within[[2]string{o.tests[i-1], o.tests[i]}] = true
			}
		}
	}
	if len(within) != 12 {
		t.Errorf("%d ordered method pairs of C2 adjacent, want 12", len(within))
	}
}

func TestTuscanMethodsAndPackagesCoverTestPairs(t *testing.T) {
	tests := testSuite(3, 1, 4, 2, 2)
	s := newSuite(tests, nil)
	e := newExplorer(s, 9)
	all := adjacentPairs(tuscanMethods(s, e.rng(GenTuscanMethods, 0), 9), func(x string) string { return x })
	if len(all) != len(tests)*(len(tests)-1) {
		t.Errorf("tuscan-methods: %d pairs adjacent, want %d", len(all), len(tests)*(len(tests)-1))
	}
	byPackage := adjacentPairs(tuscanPackages(s, e.rng(GenTuscanPackages, 0), 9), func(x string) string { return x })
	for _, p := range s.packages {
		for _, x := range p.tests {
			for _, y := range p.tests {
				if x != y && byPackage[[2]string{x, y}] == 0 {
					t.Errorf("tuscan-packages: %s -> %s (same package) never adjacent", x, y)
				}
			}
		}
	}
}
