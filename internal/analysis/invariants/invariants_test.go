package invariants

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/report"
)

// point builds a program point from variables (name:kind) and samples
// written as JSON objects.
func point(t *testing.T, name string, vars []agent.TraceVar, samples ...string) agent.TracePoint {
	t.Helper()
	p := agent.TracePoint{Point: name, Vars: vars, Calls: int64(len(samples))}
	for _, s := range samples {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		p.Samples = append(p.Samples, m)
	}
	return p
}

func texts(invs []Invariant) []string {
	var out []string
	for _, i := range invs {
		out = append(out, i.Text)
	}
	return out
}

func TestInfer(t *testing.T) {
	x := []agent.TraceVar{{Name: "x", Kind: "int"}}
	tests := []struct {
		name    string
		vars    []agent.TraceVar
		samples []string
		want    []string
	}{
		{"constant from one sample", x, []string{`{"x":0}`}, []string{"x == 0"}},
		{"one of", x, []string{`{"x":3}`, `{"x":1}`, `{"x":3}`}, []string{"x one of { 1, 3 }"}},
		{"bounds justified by many hits", x, samples("x", append(append(repeat(0, 50), 1, 2, 3, 4, 5, 6, 7, 8), repeat(9, 50)...)...), []string{"x >= 0", "x <= 9"}},
		{"bounds unjustified with few hits", x, samples("x", 0, 5, 9, 13, 20), nil},
		{"null reference", []agent.TraceVar{{Name: "o", Kind: "hashcode"}}, []string{`{"o":null}`, `{"o":null}`}, []string{"o == null"}},
		{"non-null reference", []agent.TraceVar{{Name: "o", Kind: "hashcode"}}, []string{`{"o":12}`, `{"o":99}`}, []string{"o != null"}},
		{"string and dynamic type", []agent.TraceVar{{Name: "s", Kind: "string"}, {Name: "o.getClass().getName()", Kind: "string"}},
			[]string{`{"s":"a","o.getClass().getName()":"p.Impl"}`, `{"s":"b","o.getClass().getName()":"p.Impl"}`},
			[]string{`s != null`, `s one of { "a", "b" }`, `o.getClass().getName() == "p.Impl"`}},
		{"size empty", []agent.TraceVar{{Name: "l.size()", Kind: "int"}}, []string{`{"l.size()":0}`}, []string{"l.size() == 0"}},
		{"nonsensical left out", []agent.TraceVar{{Name: "size(a[])", Kind: "int"}}, []string{`{}`, `{"size(a[])":2}`}, []string{"size(a[]) == 2"}},
		{"equality needs samples", []agent.TraceVar{{Name: "a", Kind: "int"}, {Name: "b", Kind: "int"}},
			[]string{`{"a":1,"b":1}`, `{"a":2,"b":2}`, `{"a":7,"b":7}`, `{"a":9,"b":9}`},
			[]string{"a one of { 1, 2, 7, 9 }", "b one of { 1, 2, 7, 9 }", "a == b"}[2:]},
		{"no equality from two samples", []agent.TraceVar{{Name: "a", Kind: "int"}, {Name: "b", Kind: "int"}},
			[]string{`{"a":1,"b":1}`, `{"a":2,"b":2}`}, []string{"a one of { 1, 2 }", "b one of { 1, 2 }"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(Infer(point(t, "p.C.m():::EXIT", tt.vars, tt.samples...)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Infer = %q, want %q", got, tt.want)
			}
		})
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func samples(name string, values ...int) []string {
	var out []string
	for _, v := range values {
		b, _ := json.Marshal(map[string]int{name: v})
		out = append(out, string(b))
	}
	return out
}

func TestProblems(t *testing.T) {
	vars := []agent.TraceVar{{Name: "return", Kind: "int"}, {Name: "p.Store.url", Kind: "string"}}
	pass := []agent.TracePoint{
		point(t, "p.Store.count():::EXIT", vars, `{"return":0,"p.Store.url":"mem"}`),
		point(t, "p.Store.count():::ENTER", vars[1:], `{"p.Store.url":"mem"}`),
		point(t, "p.Only.passing():::EXIT", vars, `{"return":5}`),
	}
	fail := []agent.TracePoint{
		point(t, "p.Store.count():::EXIT", vars, `{"return":1,"p.Store.url":"mem"}`),
		point(t, "p.Store.count():::ENTER", vars[1:], `{"p.Store.url":"mem"}`),
	}
	got := Problems(pass, fail)
	if len(got) != 1 {
		t.Fatalf("Problems = %+v, want one", got)
	}
	g := got[0]
	if g.Point != "p.Store.count():::EXIT" || g.Variable != "return" ||
		!slices.Equal(g.Passing, []string{"return == 0"}) || !slices.Equal(g.Failing, []string{"return == 1"}) {
		t.Errorf("Problems = %+v", g)
	}
}

func TestProblemsTopFive(t *testing.T) {
	var vars []agent.TraceVar
	passS, failS := "{", "{"
	for i := range 8 {
		n := string(rune('a' + i))
		vars = append(vars, agent.TraceVar{Name: n, Kind: "int"})
		if i > 0 {
			passS, failS = passS+",", failS+","
		}
		passS += `"` + n + `":0`
		failS += `"` + n + `":1`
	}
	got := Problems([]agent.TracePoint{point(t, "p", vars, passS+"}")}, []agent.TracePoint{point(t, "p", vars, failS+"}")})
	if len(got) != Top {
		t.Fatalf("got %d problem invariants, want %d", len(got), Top)
	}
}

func TestWatchOf(t *testing.T) {
	tests := []struct {
		point, variable, want string
		ok                    bool
	}{
		{"p.Store.count():::EXIT", "return", "p.Store#count", true},
		{"p.Store.find(int):::EXIT", "return", "", false},
		{"p.Registry.mode():::ENTER", "p.Registry.mode", "p.Registry.mode", true},
		{"p.Registry.mode():::ENTER", "p.Registry.items.size()", "p.Registry.items", true},
		{"p.Registry.mode():::ENTER", "size(p.Registry.names[])", "p.Registry.names", true},
		{"p.Registry.get(int):::ENTER", "arg0", "", false},
		{"p.Registry.get(int):::ENTER", "this.items", "", false},
		{"p.Registry.mode():::EXIT", "return.getClass().getName()", "p.Registry#mode", true},
		// A static field of another class that a test reads directly.
		{"p.ModeTest.check():::ENTER", "p.Flags.ready", "p.Flags.ready", true},
		{"p.ModeTest.check():::ENTER", "p.sub.Flags$Inner.names.size()", "p.sub.Flags$Inner.names", true},
		{"p.ModeTest.check():::ENTER", "p.lower.case", "", false},
	}
	for _, tt := range tests {
		w, ok := watchOf(report.ProblemInvariant{Point: tt.point, Variable: tt.variable})
		if ok != tt.ok || w.name != tt.want {
			t.Errorf("watchOf(%s, %s) = %q, %v; want %q, %v", tt.point, tt.variable, w.name, ok, tt.want, tt.ok)
		}
	}
}

func TestCandidate(t *testing.T) {
	tests := []struct {
		method, class, name string
		params              []string
		static              bool
	}{
		{"p.Store.deleteAll()", "p.Store", "deleteAll", []string{}, true},
		{"p.Outer$Inner.set(int, java.lang.String[])", "p.Outer$Inner", "set", []string{"int", "java.lang.String[]"}, false},
	}
	for _, tt := range tests {
		c := candidate(agent.WatchChange{Method: tt.method, Static: tt.static, Test: "p.T#t", Arguments: tt.params}, "p.Store.count()", true)
		if !slices.Equal(c.Arguments, tt.params) || c.Class != tt.class || c.Name != tt.name || !slices.Equal(c.ParameterTypes, tt.params) || c.ParameterTypes == nil || c.Static != tt.static {
			t.Errorf("candidate(%s) = %+v, want class %s, name %s, parameters %q, static %v", tt.method, c, tt.class, tt.name, tt.params, tt.static)
		}
	}
}

func TestResetOrder(t *testing.T) {
	suite := []string{"A#a", "B#b", "S#s", "V#v"}
	tests := []struct {
		f    report.Finding
		want []string
	}{
		{report.Finding{Test: "V#v", Kind: report.ODVictim, Polluters: [][]string{{"S#s"}}}, []string{"S#s", "A#a", "B#b"}},
		{report.Finding{Test: "V#v", Kind: report.ODBrittle, Setters: [][]string{{"B#b"}}}, []string{"B#b", "A#a", "S#s"}},
		{report.Finding{Test: "V#v", Kind: report.ODBrittle}, nil},
		{report.Finding{Test: "V#v", Kind: report.NOD, Polluters: [][]string{{"S#s"}}}, nil},
	}
	for _, tt := range tests {
		got, ok := resetOrder(tt.f, suite)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("resetOrder(%+v) = %q, %v; want %q", tt.f, got, ok, tt.want)
		}
	}
}

func TestHolds(t *testing.T) {
	values := map[string]json.RawMessage{"return": json.RawMessage("1"), "p.C.s": json.RawMessage(`"strict"`), "p.C.o": json.RawMessage("null")}
	tests := []struct {
		inv  string
		want bool
	}{
		{"return == 1", true}, {"return == 0", false}, {"return >= 1", true}, {"return <= 0", false},
		{"return one of { 0, 1 }", true}, {`p.C.s == "strict"`, true}, {`p.C.s == "default"`, false},
		{"p.C.o == null", true}, {"p.C.o != null", false}, {"return == p.C.s", false}, {"missing == 1", false},
	}
	for _, tt := range tests {
		if got := holds(tt.inv, values); got != tt.want {
			t.Errorf("holds(%q) = %v, want %v", tt.inv, got, tt.want)
		}
	}
}
