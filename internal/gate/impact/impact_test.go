package impact

import (
	"reflect"
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/engine/agent"
)

var suite = []string{"p.TransferTest#a", "p.TransferTest#b", "p.FeeTest#f", "p.CacheTest#c", "p.OtherTest#o", "p.PropTest#p"}

func roots(kind string, names ...string) []agent.DataflowRoot {
	var out []agent.DataflowRoot
	for _, n := range names {
		out = append(out, agent.DataflowRoot{Root: n, Kind: kind})
	}
	return out
}

var trace = []agent.Dataflow{
	{Test: "p.TransferTest#a", Touched: roots("static-field", "p.FeeTable.RATES"), Classes: []string{"p.Transfer"}},
	{Test: "p.TransferTest#b", Classes: []string{"p.Transfer"}},
	{Test: "p.FeeTest#f", Writes: roots("static-field", "p.FeeTable.RATES"), Classes: []string{"p.FeeTable$Loader"}},
	{Test: "p.CacheTest#c", Classes: []string{"p.Cache"}, Writes: roots("system-property", "p.Cache.mode")},
	{Test: "p.OtherTest#o"},
	{Test: "p.PropTest#p", Touched: roots("system-property", "p.Cache.mode")},
}

// knowing returns knowledge that has a record of tests.
func knowing(tests ...string) *Knowledge {
	k := &Knowledge{Tests: map[string]Record{}}
	for _, t := range tests {
		k.Tests[t] = Record{}
	}
	return k
}

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ch      change.Change
		k       *Knowledge
		tests   []Test
		pairs   [][2]string
		because []string
	}{
		{
			name: "test class changed",
			ch:   change.Change{TestClasses: []string{"p.TransferTest"}},
			tests: []Test{
				{ID: "p.TransferTest#a", Reasons: []string{"TransferTest changed"}, New: true},
				{ID: "p.TransferTest#b", Reasons: []string{"TransferTest changed"}, New: true},
			},
			pairs:   [][2]string{{"p.TransferTest#a", "p.FeeTest#f"}, {"p.FeeTest#f", "p.TransferTest#a"}},
			because: []string{"TransferTest changed"},
		},
		{
			name: "production class run and its static read",
			ch:   change.Change{Classes: []string{"p.FeeTable"}},
			k:    knowing(suite...),
			tests: []Test{
				{ID: "p.TransferTest#a", Reasons: []string{"reads FeeTable.RATES (FeeTable changed)"}},
				{ID: "p.FeeTest#f", Reasons: []string{"runs FeeTable (changed)", "writes FeeTable.RATES (FeeTable changed)"}},
			},
			pairs:   [][2]string{{"p.TransferTest#a", "p.FeeTest#f"}, {"p.FeeTest#f", "p.TransferTest#a"}},
			because: []string{"FeeTable.RATES read or written by 2 tests", "FeeTable run by 1 test"},
		},
		{
			name: "a system property names no class; new tests from the knowledge",
			ch:   change.Change{Classes: []string{"p.Cache"}},
			k:    knowing(suite[:5]...),
			tests: []Test{
				{ID: "p.CacheTest#c", Reasons: []string{"runs Cache (changed)"}},
				{ID: "p.PropTest#p", Reasons: []string{"new test"}, New: true},
			},
			pairs:   [][2]string{{"p.CacheTest#c", "p.PropTest#p"}, {"p.PropTest#p", "p.CacheTest#c"}},
			because: []string{"Cache run by 1 test", "1 new test"},
		},
		{
			name: "readers of what a changed test writes",
			ch:   change.Change{TestClasses: []string{"p.FeeTest", "p.CacheTest"}},
			k:    knowing(suite...),
			tests: []Test{
				{ID: "p.TransferTest#a", Reasons: []string{"reads FeeTable.RATES written by FeeTest#f"}, Via: []string{"p.FeeTest#f"}},
				{ID: "p.FeeTest#f", Reasons: []string{"FeeTest changed"}},
				{ID: "p.CacheTest#c", Reasons: []string{"CacheTest changed"}},
				{ID: "p.PropTest#p", Reasons: []string{"reads p.Cache.mode written by CacheTest#c"}, Via: []string{"p.CacheTest#c"}},
			},
			pairs: [][2]string{
				{"p.TransferTest#a", "p.FeeTest#f"}, {"p.FeeTest#f", "p.TransferTest#a"},
				{"p.CacheTest#c", "p.PropTest#p"}, {"p.PropTest#p", "p.CacheTest#c"},
			},
			because: []string{"FeeTest changed", "CacheTest changed", "2 tests read state the affected tests write"},
		},
		{name: "documentation", ch: change.Change{Other: []string{"README.md"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := Of(&tc.ch, suite, trace, tc.k)
			if !reflect.DeepEqual(im.Tests, tc.tests) {
				t.Errorf("tests %+v, want %+v", im.Tests, tc.tests)
			}
			if !slices.Equal(im.Pairs, tc.pairs) {
				t.Errorf("pairs %v, want %v", im.Pairs, tc.pairs)
			}
			if !slices.Equal(im.Because, tc.because) {
				t.Errorf("because %q, want %q", im.Because, tc.because)
			}
		})
	}
}

func TestOfEverything(t *testing.T) {
	im := Of(&change.Change{Build: []string{"pom.xml"}}, suite, trace, nil)
	if len(im.Tests) != len(suite) || len(im.New()) != len(suite) {
		t.Fatalf("a pom change affects %d tests (%d new), want all %d", len(im.Tests), len(im.New()), len(suite))
	}
	if want := "6 affected tests of 6, 4 pairs, because: pom.xml changed"; im.Summary() != want {
		t.Errorf("summary %q, want %q", im.Summary(), want)
	}
}

// TestReadsAfterOwnReplacement checks that a root a test read only after
// it replaced it (Exposed says which it read before) pairs it with no
// writer, while an agent that does not tell them apart (no Exposed) pairs
// every read.
func TestReadsAfterOwnReplacement(t *testing.T) {
	ch := &change.Change{TestClasses: []string{"p.TransferTest"}}
	replaced := slices.Clone(trace)
	replaced[0].Exposed = []agent.DataflowRoot{}
	if im := Of(ch, suite, replaced, nil); len(im.Pairs) != 0 {
		t.Errorf("a read after the test's own replacement made pairs %v", im.Pairs)
	}
	if im := Of(ch, suite, trace, nil); len(im.Pairs) != 2 {
		t.Errorf("without Exposed, pairs %v, want the read's two", im.Pairs)
	}
}

// TestOfMethods checks that a change confined to methods affects only the
// tests of the changed test methods and those that ran a changed method,
// and falls back to the whole class without method coverage.
func TestOfMethods(t *testing.T) {
	mtrace := slices.Clone(trace)
	mtrace[0].Methods = []string{"p.TransferTest#a", "p.Transfer#send", "p.Transfer#<init>"}
	mtrace[1].Methods = []string{"p.TransferTest#b", "p.Transfer#<init>"}
	mtrace[2].Methods = []string{"p.FeeTest#f", "p.FeeTable$Loader#load"}
	methods := func(class string, ms ...string) map[string]*change.Members {
		return map[string]*change.Members{class: {Methods: ms}}
	}
	for _, tc := range []struct {
		name  string
		ch    change.Change
		trace []agent.Dataflow
		tests []string
	}{
		{"a changed test method: only its test", change.Change{TestClasses: []string{"p.TransferTest"}, Members: methods("p.TransferTest", "p.TransferTest#b")}, mtrace, []string{"p.TransferTest#b"}},
		{"a changed fixture: every test of the class", change.Change{TestClasses: []string{"p.TransferTest"}, Members: map[string]*change.Members{"p.TransferTest": {Whole: "fixture changed"}}}, mtrace, []string{"p.TransferTest#a", "p.TransferTest#b"}},
		{"a production method: the tests that ran it", change.Change{Classes: []string{"p.Transfer"}, Members: methods("p.Transfer", "p.Transfer#send")}, mtrace, []string{"p.TransferTest#a"}},
		{"a nested class's method", change.Change{Classes: []string{"p.FeeTable"}, Members: methods("p.FeeTable", "p.FeeTable$Loader#load")}, mtrace, []string{"p.TransferTest#a", "p.FeeTest#f"}},
		{"a production class as a whole", change.Change{Classes: []string{"p.Transfer"}, Members: map[string]*change.Members{"p.Transfer": {Whole: "field added"}}}, mtrace, []string{"p.TransferTest#a", "p.TransferTest#b"}},
		{"no method coverage: the class", change.Change{Classes: []string{"p.Transfer"}, Members: methods("p.Transfer", "p.Transfer#send")}, trace, []string{"p.TransferTest#a", "p.TransferTest#b"}},
		{"no method coverage: the test class", change.Change{TestClasses: []string{"p.TransferTest"}, Members: methods("p.TransferTest", "p.TransferTest#b")}, trace, []string{"p.TransferTest#a", "p.TransferTest#b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := Of(&tc.ch, suite, tc.trace, knowing(suite...))
			if got := im.IDs(); !slices.Equal(got, tc.tests) {
				t.Errorf("affected %v, want %v (%+v)", got, tc.tests, im.Tests)
			}
		})
	}
}
