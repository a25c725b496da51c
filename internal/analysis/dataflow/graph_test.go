package dataflow

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// paperReference is the reference run of Figure 5 of the PraDeT paper, as
// the agent reports it: t2 and t3 read the flag t1 wrote, t3 reads foo t2 wrote.
func paperReference() *launcher.Result {
	return &launcher.Result{
		Order: []string{"t1", "t2", "t3"},
		Tests: []launcher.TestResult{{Test: "t1", Outcome: launcher.Pass}, {Test: "t2", Outcome: launcher.Pass}, {Test: "t3", Outcome: launcher.Pass}},
		Dataflow: []agent.Dataflow{
			{Test: "t1", Writes: roots("T.initialized"), Touched: roots("T.initialized")},
			{Test: "t2", Reads: []agent.DataflowRead{{Root: "T.initialized", Kind: "static-field", Writer: "t1"}}, Touched: roots("T.initialized"), Writes: roots("T.foo")},
			{Test: "t3", Reads: []agent.DataflowRead{{Root: "T.initialized", Kind: "static-field", Writer: "t1"}, {Root: "T.foo", Kind: "static-field", Writer: "t2"}}, Touched: roots("T.initialized", "T.foo")},
		},
	}
}

// paperSuite runs the paper's tests by their semantics: t1 and t2 set the
// flag, t2 sets foo, t3 passes when both are set.
type paperSuite struct{ orders [][]string }

func (s *paperSuite) RunAll(_ context.Context, orders [][]string) ([]*launcher.Result, error) {
	var out []*launcher.Result
	for _, o := range orders {
		s.orders = append(s.orders, o)
		flag, foo := false, false
		r := &launcher.Result{Order: o}
		for _, t := range o {
			outcome := launcher.Pass
			switch t {
			case "t1":
				flag = true
			case "t2":
				flag, foo = true, true
			case "t3":
				if !flag || !foo {
					outcome = launcher.Fail
				}
			}
			r.Tests = append(r.Tests, launcher.TestResult{Test: t, Outcome: outcome})
		}
		out = append(out, r)
	}
	return out, nil
}

func TestGraphAddPaper(t *testing.T) {
	g := &Graph{}
	g.Add("original", paperReference())
	var got []string
	for _, e := range g.Edges {
		var roots []string
		for _, r := range e.Roots {
			roots = append(roots, r.Name)
		}
		got = append(got, e.Reader+"->"+e.Writer+":"+strings.Join(roots, "+"))
	}
	want := []string{"t2->t1:T.initialized", "t3->t1:T.initialized", "t3->t2:T.foo"}
	if !slices.Equal(got, want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	if g.Reads != 1 {
		t.Errorf("reads without a dependency: %d, want 1 (t1's own)", g.Reads)
	}
}

// TestRefinePaper checks the refinement of Figure 5 source-first, one edge
// per round: t3->t2 first ([t1 t3]: manifest), t3->t1 deferred (a cycle
// through t3->t2 and t2->t1), t2->t1 ([t2]: benign), then t3->t1 ([t2 t3]:
// benign).
func TestRefinePaper(t *testing.T) {
	g := &Graph{}
	g.Add("original", paperReference())
	s := &paperSuite{}
	runs, err := Refine(context.Background(), s, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantOrders := [][]string{{"t1", "t3"}, {"t2"}, {"t2", "t3"}}
	if runs != 3 || !slices.EqualFunc(s.orders, wantOrders, slices.Equal) {
		t.Errorf("%d runs %v, want %v", runs, s.orders, wantOrders)
	}
	status := map[string]Status{}
	for _, e := range g.Edges {
		status[e.Reader+"->"+e.Writer] = e.Status
	}
	want := map[string]Status{"t3->t2": Manifest, "t2->t1": Benign, "t3->t1": Benign}
	for k, v := range want {
		if status[k] != v {
			t.Errorf("%s: %s, want %s", k, status[k], v)
		}
	}
	fs, _, err := Findings(context.Background(), s, g, 1, logs.Logger{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Test != "t3" || fs[0].Kind != "od-brittle" || len(fs[0].Setters) != 1 || fs[0].Setters[0][0] != "t2" {
		t.Errorf("findings %+v, want t3 brittle with setter t2", fs)
	}
}

func TestSchedule(t *testing.T) {
	ref := &Reference{index: map[string]int{"a": 0, "b": 1, "c": 2, "d": 3}}
	e := func(r, w string) *Edge { return &Edge{Reader: r, Writer: w} }
	for _, c := range []struct {
		name   string
		comp   []*Edge
		target int
		want   []string
		ok     bool
	}{
		{"alone", []*Edge{e("b", "a")}, 0, []string{"b"}, true},
		{"keeps other writers", []*Edge{e("d", "c"), e("d", "a"), e("c", "b")}, 1, []string{"b", "c", "d"}, true},
		{"cycle", []*Edge{e("c", "b"), e("c", "a"), e("b", "a")}, 1, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := schedule(ref, c.comp, c.comp[c.target])
			if ok != c.ok || !slices.Equal(got, c.want) {
				t.Errorf("schedule = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestDOT(t *testing.T) {
	g := &Graph{}
	g.Add("original", paperReference())
	g.Edges[0].Status = Manifest
	dot, err := g.DOT()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"digraph dataflow", "t2->t1", "color=red", "T.initialized"} {
		if !strings.Contains(strings.ReplaceAll(dot, " ", ""), strings.ReplaceAll(want, " ", "")) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
}

// roots returns static-field roots named names.
func roots(names ...string) []agent.DataflowRoot {
	var out []agent.DataflowRoot
	for _, n := range names {
		out = append(out, agent.DataflowRoot{Root: n, Kind: "static-field"})
	}
	return out
}

// recorder passes every test and records the orders it ran.
type recorder struct{ orders [][]string }

func (s *recorder) RunAll(_ context.Context, orders [][]string) ([]*launcher.Result, error) {
	var out []*launcher.Result
	for _, o := range orders {
		s.orders = append(s.orders, o)
		r := &launcher.Result{Order: o}
		for _, t := range o {
			r.Tests = append(r.Tests, launcher.TestResult{Test: t, Outcome: launcher.Pass})
		}
		out = append(out, r)
	}
	return out, nil
}

// TestRefineAnti checks the anti run of a reader: its flow ancestors and
// its later writer before it, its class's tests kept in one stretch when
// the class has class fixtures.
func TestRefineAnti(t *testing.T) {
	ref := &launcher.Result{
		Order: []string{"p.C#s", "p.C#r", "p.D#w"},
		Tests: []launcher.TestResult{{Test: "p.C#s", Outcome: launcher.Pass}, {Test: "p.C#r", Outcome: launcher.Pass}, {Test: "p.D#w", Outcome: launcher.Pass}},
		Dataflow: []agent.Dataflow{
			{Test: "p.C#s", Writes: roots("p.S.a")},
			{Test: "p.C#r", Reads: []agent.DataflowRead{{Root: "p.S.a", Kind: "static-field", Writer: "p.C#s"}}, Touched: roots("p.S.a", "p.S.b")},
			{Test: "p.D#w", Writes: roots("p.S.b")},
		},
	}
	for _, c := range []struct {
		fixtures map[string]bool
		want     []string
	}{
		{nil, []string{"p.C#s", "p.D#w", "p.C#r"}},
		{map[string]bool{"p.C": true}, []string{"p.D#w", "p.C#s", "p.C#r"}},
	} {
		g := &Graph{}
		g.Add("original", ref)
		s := &recorder{}
		if _, err := Refine(context.Background(), s, g, Options{Fixtures: c.fixtures}); err != nil {
			t.Fatal(err)
		}
		if len(s.orders) == 0 || !slices.Equal(s.orders[0], c.want) {
			t.Errorf("fixtures %v: anti run %v, want %v", c.fixtures, s.orders, c.want)
		}
		if g.Count(Benign) != 2 {
			t.Errorf("fixtures %v: %d benign edges, want 2 (nothing changed)", c.fixtures, g.Count(Benign))
		}
	}
}

// failsAfter passes every test but the reader, which fails when any other test ran before it.
type failsAfter struct {
	reader string
	runs   int
}

func (s *failsAfter) RunAll(_ context.Context, orders [][]string) ([]*launcher.Result, error) {
	var out []*launcher.Result
	for _, o := range orders {
		s.runs++
		r := &launcher.Result{Order: o}
		for i, t := range o {
			outcome := launcher.Pass
			if t == s.reader && i > 0 {
				outcome = launcher.Fail
			}
			r.Tests = append(r.Tests, launcher.TestResult{Test: t, Outcome: outcome})
		}
		out = append(out, r)
	}
	return out, nil
}

// TestRefineAntiManyWriters checks that a reader whose outcome changes
// after more later writers than maxSingles is left untested after one run,
// and one with a few gets a run per writer.
func TestRefineAntiManyWriters(t *testing.T) {
	for _, n := range []int{3, maxSingles + 1} {
		ref := &launcher.Result{Order: []string{"p.R#r"}, Tests: []launcher.TestResult{{Test: "p.R#r", Outcome: launcher.Pass}}}
		ref.Dataflow = []agent.Dataflow{{Test: "p.R#r", Touched: roots("p.S.a")}}
		for i := range n {
			w := fmt.Sprintf("p.W#w%d", i)
			ref.Order = append(ref.Order, w)
			ref.Tests = append(ref.Tests, launcher.TestResult{Test: w, Outcome: launcher.Pass})
			ref.Dataflow = append(ref.Dataflow, agent.Dataflow{Test: w, Writes: roots("p.S.a")})
		}
		g := &Graph{}
		g.Add("original", ref)
		s := &failsAfter{reader: "p.R#r"}
		if _, err := Refine(context.Background(), s, g, Options{}); err != nil {
			t.Fatal(err)
		}
		if n > maxSingles {
			if s.runs != 1 || g.Count(Untested) != n {
				t.Errorf("%d writers: %d runs, %d untested; want 1 run, all untested", n, s.runs, g.Count(Untested))
			}
		} else if s.runs != 1+n || g.Count(Manifest) != n {
			t.Errorf("%d writers: %d runs, %d manifest; want %d runs, all manifest", n, s.runs, g.Count(Manifest), 1+n)
		}
	}
}
