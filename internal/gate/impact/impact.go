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

	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
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
	c := changedBy(ch)
	im := &Impact{Suite: len(suite)}
	t := &tally{n: map[string]int{}}
	for _, id := range suite {
		u := uses[id]
		known := k != nil
		if k != nil {
			_, known = k.Tests[id]
		}
		var reasons []string
		if k != nil && !known {
			reasons = append(reasons, "new test")
			t.add(newTests)
		}
		reasons = c.reasons(reasons, id, u, t)
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
	im.Tests = append(im.Tests, readersOf(im.Tests, suite, uses, t)...)
	index := map[string]int{}
	for i, id := range suite {
		index[id] = i
	}
	slices.SortStableFunc(im.Tests, func(x, y Test) int { return index[x.ID] - index[y.ID] })
	im.Because = t.because()
	return im
}

// changed is what a change changed, as Of matches it against each test.
type changed struct {
	ch          *change.Change
	testClasses map[string]bool
	// classes are the production classes changed as a whole (their static
	// fields may have); methods the methods changed where only methods
	// changed.
	classes map[string]bool
	methods []string
}

// changedBy returns what ch changed.
func changedBy(ch *change.Change) changed {
	c := changed{ch: ch, testClasses: set(ch.TestClasses), classes: map[string]bool{}}
	for _, cl := range ch.Classes {
		if m := ch.Members[cl]; m == nil || m.Whole != "" {
			c.classes[cl] = true
		}
	}
	for _, cl := range slices.Concat(ch.TestClasses, ch.Classes) {
		if m := ch.Members[cl]; m != nil && m.Whole == "" {
			c.methods = append(c.methods, m.Methods...)
		}
	}
	slices.Sort(c.methods)
	c.methods = slices.Compact(c.methods)
	return c
}

// reasons adds to reasons why the change affects the test id (u: what it
// uses), and their causes to t.
func (c changed) reasons(reasons []string, id string, u usage, t *tally) []string {
	ch := c.ch
	reasons = c.ofTestClass(reasons, testid.Parse(id), u, t)
	for _, f := range slices.Concat(ch.Build, ch.Resources) {
		r := f + " changed"
		reasons = append(reasons, r)
		t.add(r)
	}
	for _, cl := range ch.Classes {
		if !u.classes[cl] {
			continue
		}
		if m := ch.Members[cl]; m == nil || m.Whole != "" || len(u.methods) == 0 {
			reasons = append(reasons, "runs "+simple(cl)+" (changed)")
			t.add(simple(cl) + " run by")
		}
	}
	for _, mk := range c.methods {
		if u.methods[mk] && !slices.Contains(reasons, shortMethod(mk)+" changed") {
			reasons = append(reasons, "runs "+shortMethod(mk)+" (changed)")
			t.add(shortMethod(mk) + " run by")
		}
	}
	for _, rw := range []struct {
		verb  string
		roots map[string]bool
	}{{"reads", u.reads}, {"writes", u.writes}} {
		for _, root := range slices.Sorted(maps.Keys(rw.roots)) {
			if cl := declaringClass(root); !u.other[root] && c.classes[cl] {
				reasons = append(reasons, fmt.Sprintf("%s %s (%s changed)", rw.verb, shortRoot(root), simple(cl)))
				t.add(shortRoot(root) + " read or written by")
			}
		}
	}
	return reasons
}

// ofTestClass adds to reasons how the change of the test's own class
// affects the test tid, if it does, and the cause to t.
func (c changed) ofTestClass(reasons []string, tid testid.ID, u usage, t *tally) []string {
	cl := topLevel(tid.Class)
	if !c.testClasses[cl] {
		return reasons
	}
	switch m := c.ch.Members[cl]; {
	case m == nil || m.Whole != "":
		r := simple(cl) + " changed"
		reasons = append(reasons, r)
		t.add(r)
	case slices.Contains(m.Methods, tid.Class+"#"+tid.Method):
		reasons = append(reasons, shortMethod(tid.Class+"#"+tid.Method)+" changed")
		t.add(simple(cl) + " changed")
	case len(u.methods) == 0:
		// Without the test's methods, any change to its class may be its.
		reasons = append(reasons, simple(cl)+" changed")
		t.add(simple(cl) + " changed")
	}
	return reasons
}

// readersOf returns the tests of suite not in affected that read what an
// affected test writes: each may now be its victim (or depend on it as a
// state-setter), and is judged for that. Each counts towards the readers
// cause of t.
func readersOf(affected []Test, suite []string, uses map[string]usage, t *tally) []Test {
	ids := map[string]bool{}
	for _, a := range affected {
		ids[a.ID] = true
	}
	var out []Test
	for _, id := range suite {
		if ids[id] {
			continue
		}
		var r Test
		for _, a := range affected {
			if root := shared(uses[id].reads, uses[a.ID].writes); root != "" {
				r.Via = append(r.Via, a.ID)
				r.Reasons = append(r.Reasons, fmt.Sprintf("reads %s written by %s", display(root, uses[id]), short(a.ID)))
			}
		}
		if len(r.Via) > 0 {
			r.ID = id
			out = append(out, r)
			t.add(readers)
		}
	}
	return out
}

// tally counts the affected tests of each cause, the causes in the order
// they first appear.
type tally struct {
	n     map[string]int
	order []string
}

// add counts one test of cause c.
func (t *tally) add(c string) {
	if t.n[c] == 0 {
		t.order = append(t.order, c)
	}
	t.n[c]++
}

// because says the causes: the direct ones first, most tests first; then
// the readers.
func (t *tally) because() []string {
	order, causes := t.order, t.n
	sort.SliceStable(order, func(i, j int) bool {
		if (order[i] == readers) != (order[j] == readers) {
			return order[j] == readers
		}
		return causes[order[i]] > causes[order[j]]
	})
	var because []string
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
		because = append(because, c)
	}
	return because
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
