// Package dataflow finds order-dependent tests from data dependencies
// (PraDeT): an instrumented reference run records, for every test, the
// shared state it read that an earlier test wrote last (agent option
// dataflow=true); the dependencies form a graph that refinement
// tests edge by edge, each time running the tests that must precede the
// reader with the one edge inverted. An edge whose inversion changes the
// reader's outcome is manifest, one that does not is benign.
package dataflow

import (
	"cmp"
	"slices"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// Status is where refinement left an edge.
type Status string

// Edge statuses.
const (
	Untested Status = "untested" // not tested (yet): its inversion would make a cycle, or the budget ended
	Manifest Status = "manifest" // inverting it changed the reader's outcome
	Benign   Status = "benign"   // inverting it changed nothing
)

// Root is one piece of shared state: a static field (pkg.Class.field) or a
// system property.
type Root struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// Kinds of edges.
const (
	// Flow is PraDeT's data dependency: Reader read roots that Writer, run
	// before it, wrote last. Refinement runs Reader without Writer before it.
	Flow = "flow"
	// Anti is the converse: Reader read roots that Writer, run after it,
	// writes. Refinement runs Reader after Writer (and the reader's other
	// later writers), which is how a victim whose polluter runs after it in
	// the reference order shows.
	Anti = "anti"
)

// Edge is a data dependency between two tests of a reference run.
type Edge struct {
	Reader string `json:"reader"`
	Writer string `json:"writer"`
	Kind   string `json:"kind"`
	Roots  []Root `json:"roots"`
	// Reference names the reference run the edge was seen in.
	Reference string `json:"reference"`
	Status    Status `json:"status"`
	// Order is the run that tested the edge (the reader last), and
	// Outcome the reader's outcome in it; RefOutcome is its outcome in the
	// reference run.
	Order      []string         `json:"order,omitempty"`
	Outcome    launcher.Outcome `json:"outcome,omitempty"`
	RefOutcome launcher.Outcome `json:"referenceOutcome"`
	message    string           // the reader's failure message in Order
}

// Reference is one instrumented run of an order: its tests and their
// outcomes.
type Reference struct {
	Name     string                      `json:"name"`
	Order    []string                    `json:"order"`
	Outcomes map[string]launcher.Outcome `json:"outcomes"`
	index    map[string]int
	messages map[string]string
}

// Graph is the data dependencies of one or more reference runs.
type Graph struct {
	References []*Reference `json:"references"`
	Edges      []*Edge      `json:"edges"`
	// Reads counts, per reference, the reads of shared state that earlier
	// tests of the run did not write last (no edge).
	Reads int `json:"reads"`
}

// Add records a reference run r (made with dataflow=true) under name: its
// outcomes and an edge for every reader and writer that are both in its
// order, the writer before the reader. An edge already in the graph (the
// same reader and writer) is not added again.
func (g *Graph) Add(name string, r *launcher.Result) {
	ref := &Reference{Name: name, Order: r.Order, Outcomes: map[string]launcher.Outcome{}, index: map[string]int{}, messages: map[string]string{}}
	for i, t := range r.Order {
		if _, ok := ref.index[t]; !ok {
			ref.index[t] = i
		}
	}
	for _, t := range r.Tests {
		if _, ok := ref.Outcomes[t.Test]; !ok {
			ref.Outcomes[t.Test] = t.Outcome
			ref.messages[t.Test] = t.Message
		}
	}
	g.References = append(g.References, ref)
	known := map[[2]string]bool{}
	for _, e := range g.Edges {
		known[[2]string{e.Reader, e.Writer}] = true
	}
	byPair := map[[2]string]*Edge{}
	for _, d := range r.Dataflow {
		ri, ok := ref.index[d.Test]
		if !ok {
			continue
		}
		for _, rd := range d.Reads {
			wi, ok := ref.index[rd.Writer]
			if !ok || wi >= ri || rd.Writer == d.Test {
				continue
			}
			key := [2]string{d.Test, rd.Writer}
			if known[key] {
				continue
			}
			e := byPair[key]
			if e == nil {
				e = &Edge{Reader: d.Test, Writer: rd.Writer, Kind: Flow, Reference: name, Status: Untested, RefOutcome: ref.Outcomes[d.Test]}
				byPair[key] = e
				g.Edges = append(g.Edges, e)
			}
			e.Roots = append(e.Roots, Root{Name: rd.Root, Kind: rd.Kind})
		}
		g.Reads += max(len(d.Touched)-len(d.Reads), 0)
	}
	g.addAnti(ref, r, known)
}

// addAnti adds an Anti edge for every reader and every later test of the
// run that wrote a root the reader read.
func (g *Graph) addAnti(ref *Reference, r *launcher.Result, known map[[2]string]bool) {
	type access struct {
		test   string
		at     int
		writes map[string]string // root to kind
	}
	var tests []access
	for _, d := range r.Dataflow {
		at, ok := ref.index[d.Test]
		if !ok {
			continue
		}
		a := access{test: d.Test, at: at, writes: map[string]string{}}
		for _, w := range d.Writes {
			a.writes[w.Root] = w.Kind
		}
		tests = append(tests, a)
	}
	for _, d := range r.Dataflow {
		ri, ok := ref.index[d.Test]
		if !ok {
			continue
		}
		for _, w := range tests {
			if w.at <= ri || w.test == d.Test || known[[2]string{d.Test, w.test}] {
				continue
			}
			var e *Edge
			for _, root := range d.Touched {
				if _, ok := w.writes[root.Root]; !ok {
					continue
				}
				if e == nil {
					e = &Edge{Reader: d.Test, Writer: w.test, Kind: Anti, Reference: ref.Name, Status: Untested, RefOutcome: ref.Outcomes[d.Test]}
					g.Edges = append(g.Edges, e)
					known[[2]string{d.Test, w.test}] = true
				}
				e.Roots = append(e.Roots, Root{Name: root.Root, Kind: root.Kind})
			}
		}
	}
}

// reference returns the reference run named name.
func (g *Graph) reference(name string) *Reference {
	for _, r := range g.References {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Count returns how many edges have status s.
func (g *Graph) Count(s Status) int {
	n := 0
	for _, e := range g.Edges {
		if e.Status == s {
			n++
		}
	}
	return n
}

// components splits the edges of one reference that are still in the graph
// (untested and manifest) into weakly connected components.
func (g *Graph) components(ref string) [][]*Edge {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok || p == x {
			parent[x] = x
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	var live []*Edge
	for _, e := range g.Edges {
		if e.Reference == ref && e.Kind == Flow && e.Status != Benign {
			live = append(live, e)
			parent[find(e.Reader)] = find(e.Writer)
		}
	}
	byRoot := map[string][]*Edge{}
	var roots []string
	for _, e := range live {
		r := find(e.Reader)
		if byRoot[r] == nil {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], e)
	}
	out := make([][]*Edge, 0, len(roots))
	for _, r := range roots {
		out = append(out, byRoot[r])
	}
	return out
}

// sourceFirst sorts edges as PraDeT picks them: dependencies of later
// readers first, and of one reader on later writers first.
func sourceFirst(ref *Reference, edges []*Edge) []*Edge {
	out := slices.Clone(edges)
	slices.SortStableFunc(out, func(x, y *Edge) int {
		if c := cmp.Compare(ref.index[y.Reader], ref.index[x.Reader]); c != 0 {
			return c
		}
		return cmp.Compare(ref.index[y.Writer], ref.index[x.Writer])
	})
	return out
}

// schedule returns the run that tests edge e within its component: the
// tests that must precede e's reader when every other edge of the
// component holds and e is inverted (the reader before the writer), in a
// topological order that follows the reference where it may, then the
// reader; ok is false when no such run exists (the inversion would make a
// cycle: the writer must precede the reader through other edges).
func schedule(ref *Reference, comp []*Edge, e *Edge) (order []string, ok bool) {
	// before[t] are the tests that must run before t.
	before := map[string][]string{}
	for _, o := range comp {
		if o != e {
			before[o.Reader] = append(before[o.Reader], o.Writer)
		}
	}
	need := map[string]bool{}
	stack := slices.Clone(before[e.Reader])
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if need[t] {
			continue
		}
		need[t] = true
		stack = append(stack, before[t]...)
	}
	if need[e.Writer] || need[e.Reader] {
		return nil, false
	}
	// The edges of one reference all point backwards in its order, so the
	// reference order of the needed tests is a topological order.
	for t := range need {
		order = append(order, t)
	}
	slices.SortFunc(order, func(x, y string) int { return cmp.Compare(ref.index[x], ref.index[y]) })
	return append(order, e.Reader), true
}
