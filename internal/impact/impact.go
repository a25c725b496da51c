// Package impact says which tests a change can affect and which ordered
// pairs of tests can interact through shared state: the tests of changed
// test classes, the tests whose code or shared state touches a changed
// class, and each of them with every test that writes what it reads or
// reads what it writes, from a traced run of the current code.
package impact

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/change"
	"github.com/flakyhq/flaky/internal/testid"
)

// Knowledge is what earlier full analyses knew about the module's tests;
// a nil *Knowledge knows nothing.
type Knowledge struct {
	// Tests holds a record per test an earlier analysis ran: a test of
	// the suite that has none is new.
	Tests map[string]Record
}

// Record is what a full analysis recorded of one test.
type Record struct {
	// Classes are the project classes whose code ran for the test (binary names).
	Classes []string
	// Methods are the project methods that ran for the test, as
	// Class#name (binary class names, <init> for constructors; the code of
	// anonymous and local classes counts as their declaring method's, that
	// of lambdas as their enclosing method's); nil when not recorded.
	Methods []string
	// Reads are the shared-state roots it read before it replaced them
	// (what an earlier test can have left for it), Writes those it wrote.
	Reads, Writes []string
}

// Test is an affected test and why.
type Test struct {
	ID      string
	Reasons []string
	// New says the knowledge has no record of the test (with no
	// knowledge, every affected test is new): it runs alone and twice.
	New bool
	// Via, when set, are the affected tests whose writes the test reads,
	// the only reason it is affected: it is judged only for order
	// dependence on one of them.
	Via []string
}

// Impact is what a change can affect in a suite.
type Impact struct {
	// Suite counts the suite's tests.
	Suite int
	// Tests are the affected tests, in the suite's order.
	Tests []Test
	// Pairs are the ordered pairs of tests to cover: each affected test
	// (but those affected only Via others) with every test sharing a root
	// with it, both ways.
	Pairs [][2]string
	// Shared are the roots each pair shares (what the first writes and
	// the second reads, or the reverse), and Writes the roots each test of
	// the suite writes: a pair is covered when its first test runs before
	// its second with no writer of its roots between them.
	Shared map[[2]string][]string
	Writes map[string][]string
	// Reads are the roots each test of the suite read before it wrote
	// them itself (what an earlier test can have left for it).
	Reads map[string][]string
	// Because sums up the reasons, most tests first ("TransferTest
	// changed", "FeeTable.RATES read or written by 9 tests").
	Because []string
}

// Via returns, per test affected only through others' writes, those others.
func (im *Impact) Via() map[string][]string {
	out := map[string][]string{}
	for _, t := range im.Tests {
		if len(t.Via) > 0 {
			out[t.ID] = t.Via
		}
	}
	return out
}

// IDs returns the affected tests' ids.
func (im *Impact) IDs() []string {
	out := make([]string, len(im.Tests))
	for i, t := range im.Tests {
		out[i] = t.ID
	}
	return out
}

// New returns the affected tests that are new.
func (im *Impact) New() []string {
	var out []string
	for _, t := range im.Tests {
		if t.New {
			out = append(out, t.ID)
		}
	}
	return out
}

// Summary says what is analysed and why in one line: "12 affected tests
// of 955, 31 pairs, because: TransferTest changed; FeeTable.RATES read or
// written by 9 tests".
func (im *Impact) Summary() string {
	s := fmt.Sprintf("%d affected test%s of %d, %d pair%s", len(im.Tests), plural(len(im.Tests)), im.Suite, len(im.Pairs), plural(len(im.Pairs)))
	if len(im.Because) > 0 {
		const most = 5
		because := im.Because
		if len(because) > most {
			because = append(slices.Clone(because[:most]), fmt.Sprintf("%d more", len(im.Because)-most))
		}
		s += ", because: " + strings.Join(because, "; ")
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// usage is one test's classes and roots.
type usage struct {
	classes       map[string]bool // top-level class names
	methods       map[string]bool // Class#name
	reads, writes map[string]bool
	other         map[string]bool // roots that are no static field (system properties, files)
}

// Of returns what ch can affect in suite (the tests in their original
// order), from trace (the agent's dataflow records of a run of the
// current code) and k (nil: no knowledge).
func Of(ch *change.Change, suite []string, trace []agent.Dataflow, k *Knowledge) *Impact {
	uses := usages(trace, k)
	testClasses := set(ch.TestClasses)
	// classes are the production classes changed as a whole (their
	// static fields may have); changedMethods the methods changed where
	// only methods changed.
	classes := map[string]bool{}
	var changedMethods []string
	for _, c := range ch.Classes {
		if m := ch.Members[c]; m == nil || m.Whole != "" {
			classes[c] = true
		}
	}
	for _, c := range slices.Concat(ch.TestClasses, ch.Classes) {
		if m := ch.Members[c]; m != nil && m.Whole == "" {
			changedMethods = append(changedMethods, m.Methods...)
		}
	}
	slices.Sort(changedMethods)
	changedMethods = slices.Compact(changedMethods)
	im := &Impact{Suite: len(suite)}
	causes := map[string]int{}
	var order []string
	cause := func(c string) {
		if causes[c] == 0 {
			order = append(order, c)
		}
		causes[c]++
	}
	for _, id := range suite {
		var reasons []string
		u := uses[id]
		known := k != nil
		if k != nil {
			_, known = k.Tests[id]
		}
		if k != nil && !known {
			reasons = append(reasons, "new test")
			cause(newTests)
		}
		tid := testid.Parse(id)
		if c := topLevel(tid.Class); testClasses[c] {
			switch m := ch.Members[c]; {
			case m == nil || m.Whole != "":
				r := simple(c) + " changed"
				reasons = append(reasons, r)
				cause(r)
			case slices.Contains(m.Methods, tid.Class+"#"+tid.Method):
				reasons = append(reasons, shortMethod(tid.Class+"#"+tid.Method)+" changed")
				cause(simple(c) + " changed")
			case len(u.methods) == 0:
				// Without the test's methods, any change to its class may be its.
				reasons = append(reasons, simple(c)+" changed")
				cause(simple(c) + " changed")
			}
		}
		for _, f := range ch.Build {
			r := f + " changed"
			reasons = append(reasons, r)
			cause(r)
		}
		for _, f := range ch.Resources {
			r := f + " changed"
			reasons = append(reasons, r)
			cause(r)
		}
		for _, c := range ch.Classes {
			if !u.classes[c] {
				continue
			}
			if m := ch.Members[c]; m == nil || m.Whole != "" || len(u.methods) == 0 {
				reasons = append(reasons, "runs "+simple(c)+" (changed)")
				cause(simple(c) + " run by")
			}
		}
		for _, mk := range changedMethods {
			if u.methods[mk] && !slices.Contains(reasons, shortMethod(mk)+" changed") {
				reasons = append(reasons, "runs "+shortMethod(mk)+" (changed)")
				cause(shortMethod(mk) + " run by")
			}
		}
		for _, rw := range []struct {
			verb  string
			roots map[string]bool
		}{{"reads", u.reads}, {"writes", u.writes}} {
			for _, root := range slices.Sorted(maps.Keys(rw.roots)) {
				if c := declaringClass(root); !u.other[root] && classes[c] {
					reasons = append(reasons, fmt.Sprintf("%s %s (%s changed)", rw.verb, shortRoot(root), simple(c)))
					cause(shortRoot(root) + " read or written by")
				}
			}
		}
		if len(reasons) > 0 {
			im.Tests = append(im.Tests, Test{ID: id, Reasons: slices.Compact(reasons), New: !known})
		}
	}
	im.Pairs, im.Shared = pairs(im.Tests, suite, uses)
	im.Writes, im.Reads = map[string][]string{}, map[string][]string{}
	for _, id := range suite {
		if w := uses[id].writes; len(w) > 0 {
			im.Writes[id] = slices.Sorted(maps.Keys(w))
		}
		if r := uses[id].reads; len(r) > 0 {
			im.Reads[id] = slices.Sorted(maps.Keys(r))
		}
	}
	// A test that reads what an affected test writes may now be its
	// victim (or depend on it as a state-setter): it is judged for that.
	direct := slices.Clone(im.Tests)
	affected := set(im.IDs())
	for _, id := range suite {
		if affected[id] {
			continue
		}
		var t Test
		for _, a := range direct {
			if root := shared(uses[id].reads, uses[a.ID].writes); root != "" {
				t.Via = append(t.Via, a.ID)
				t.Reasons = append(t.Reasons, fmt.Sprintf("reads %s written by %s", display(root, uses[id]), short(a.ID)))
			}
		}
		if len(t.Via) > 0 {
			t.ID = id
			im.Tests = append(im.Tests, t)
			cause(readers)
		}
	}
	index := map[string]int{}
	for i, id := range suite {
		index[id] = i
	}
	slices.SortStableFunc(im.Tests, func(x, y Test) int { return index[x.ID] - index[y.ID] })
	// The direct causes first, most tests first; then the readers.
	sort.SliceStable(order, func(i, j int) bool {
		if (order[i] == readers) != (order[j] == readers) {
			return order[j] == readers
		}
		return causes[order[i]] > causes[order[j]]
	})
	for _, c := range order {
		switch {
		case c == newTests:
			c = fmt.Sprintf("%d new test%s", causes[c], plural(causes[c]))
		case c == readers:
			verb := "read"
			if causes[c] == 1 {
				verb = "reads"
			}
			c = fmt.Sprintf("%d test%s %s state the affected tests write", causes[c], plural(causes[c]), verb)
		case strings.HasSuffix(c, " by"):
			c = fmt.Sprintf("%s %d test%s", c, causes[c], plural(causes[c]))
		}
		im.Because = append(im.Because, c)
	}
	return im
}

// newTests is the cause of the tests the knowledge has no record of;
// readers that of the tests reading what an affected test writes.
const (
	newTests = "new tests"
	readers  = "readers"
)

// short names a test as SimpleClass#method.
func short(id string) string {
	t := testid.Parse(id)
	return testid.Join(t.SimpleClass(), t.Member())
}

// shared returns a root (the first by name) that both sets hold; "" when none.
func shared(x, y map[string]bool) string {
	for _, k := range slices.Sorted(maps.Keys(x)) {
		if y[k] {
			return k
		}
	}
	return ""
}

// display shows a root in a reason: a static field as Class.field, any
// other root as it is.
func display(root string, u usage) string {
	if u.other[root] || !strings.Contains(root, ".") {
		return root
	}
	return shortRoot(root)
}

// pairs returns each affected test with every other test of the suite that
// writes a root it reads or reads a root it writes, in both orders, in
// the suite's order, and the roots each pair shares.
func pairs(affected []Test, suite []string, uses map[string]usage) ([][2]string, map[[2]string][]string) {
	seen := map[[2]string][]string{}
	for _, t := range affected {
		a := uses[t.ID]
		for _, w := range suite {
			if w == t.ID {
				continue
			}
			u := uses[w]
			roots := slices.Concat(common(a.reads, u.writes), common(a.writes, u.reads))
			if len(roots) == 0 {
				continue
			}
			slices.Sort(roots)
			roots = slices.Compact(roots)
			seen[[2]string{w, t.ID}] = roots
			seen[[2]string{t.ID, w}] = roots
		}
	}
	index := map[string]int{}
	for i, t := range suite {
		index[t] = i
	}
	out := make([][2]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.SortFunc(out, func(x, y [2]string) int {
		if d := index[x[0]] - index[y[0]]; d != 0 {
			return d
		}
		return index[x[1]] - index[y[1]]
	})
	return out, seen
}

// common returns the keys both sets hold.
func common(x, y map[string]bool) []string {
	var out []string
	for k := range x {
		if y[k] {
			out = append(out, k)
		}
	}
	return out
}

// shortMethod shows a Class#name method as Class.name (the class without
// its package, <init> as new).
func shortMethod(m string) string {
	c, name, _ := strings.Cut(m, "#")
	if name == "<init>" {
		return "new " + simple(c)
	}
	return simple(c) + "." + name
}

// add records a root of a kind in roots (u.reads or u.writes).
func (u usage) add(roots map[string]bool, root, kind string) {
	roots[root] = true
	if kind != staticField {
		u.other[root] = true
	}
}

// staticField is the kind of the roots that static fields are; the others
// (system properties, files, JDK defaults) are declared by no class.
const staticField = "static-field"

// usages collects each test's classes and roots from the trace, and from
// the knowledge for what the trace lacks.
func usages(trace []agent.Dataflow, k *Knowledge) map[string]usage {
	out := map[string]usage{}
	get := func(id string) usage {
		u, ok := out[id]
		if !ok {
			u = usage{classes: map[string]bool{}, methods: map[string]bool{}, reads: map[string]bool{}, writes: map[string]bool{}, other: map[string]bool{}}
			out[id] = u
		}
		return u
	}
	for _, d := range trace {
		u := get(d.Test)
		for _, c := range d.Classes {
			u.classes[topLevel(c)] = true
		}
		for _, m := range d.Methods {
			u.methods[m] = true
		}
		for _, r := range d.Reads {
			u.add(u.reads, r.Root, r.Kind)
		}
		for _, r := range exposed(d) {
			u.add(u.reads, r.Root, r.Kind)
		}
		for _, r := range d.Writes {
			u.add(u.writes, r.Root, r.Kind)
		}
	}
	if k != nil {
		for id, r := range k.Tests {
			u := get(id)
			for _, c := range r.Classes {
				u.classes[topLevel(c)] = true
			}
			for _, m := range r.Methods {
				u.methods[m] = true
			}
			for _, root := range r.Reads {
				u.reads[root] = true
			}
			for _, root := range r.Writes {
				u.writes[root] = true
			}
		}
	}
	return out
}

// exposed returns the roots of d that an earlier test can have left for
// its test: those it read before it replaced them (an agent that does not
// tell them apart: every root it read).
func exposed(d agent.Dataflow) []agent.DataflowRoot {
	if d.Exposed != nil {
		return d.Exposed
	}
	return d.Touched
}

// declaringClass returns the top-level class declaring a static-field root
// (pkg.Class.field, pkg.Outer$Inner.field).
func declaringClass(root string) string {
	i := strings.LastIndexByte(root, '.')
	if i <= 0 {
		return ""
	}
	return topLevel(root[:i])
}

// topLevel strips the nested part of a binary class name.
func topLevel(class string) string {
	c, _, _ := strings.Cut(class, "$")
	return c
}

// simple returns a class's name without its package.
func simple(class string) string {
	return class[strings.LastIndexByte(class, '.')+1:]
}

// shortRoot returns a static-field root as Class.field.
func shortRoot(root string) string {
	i := strings.LastIndexByte(root, '.')
	if i < 0 {
		return root
	}
	return simple(root[:i]) + root[i:]
}

func meets(x, y map[string]bool) bool {
	for k := range x {
		if y[k] {
			return true
		}
	}
	return false
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}
