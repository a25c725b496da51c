package repair

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/fix/editor"
)

// TestRankMethods: only methods the patched class can call (with a receiver
// it can obtain) are kept; the invariant analysis's first, then direct
// resets before their callers, fewer parameters first.
func TestRankMethods(t *testing.T) {
	recv := map[string][]receiverWay{
		"p.Session": {{Kind: "new", Access: "private"}, {Kind: "static-method", Name: "getInstance", Access: "public"}},
		"p.Hidden":  {{Kind: "new", Access: "private"}},
	}
	ms := []resetMethod{
		{Owner: "p.Cache", Name: "put", Static: true, Access: "public", OwnerPublic: true, Params: []string{"java.lang.String", "java.lang.String"}, How: "mutator put"},
		{Owner: "p.Admin", Name: "purgeAll", Static: true, Access: "public", OwnerPublic: true, How: "calls p.Admin.purge", Depth: 1},
		{Owner: "p.Admin", Name: "purge", Static: true, Access: "public", OwnerPublic: true, How: "mutator clear"},
		{Owner: "p.Admin", Name: "secret", Static: true, Access: "private", OwnerPublic: true, How: "putstatic"},
		{Owner: "q.Other", Name: "reset", Static: true, Access: "package", OwnerPublic: true, How: "putstatic"},
		{Owner: "q.Internal", Name: "reset", Static: true, Access: "public", OwnerPublic: false, How: "putstatic"},
		{Owner: "p.Session", Name: "invalidate", Access: "public", OwnerPublic: true, How: "writes user of the held object"},
		{Owner: "p.Hidden", Name: "clear", Access: "public", OwnerPublic: true, How: "writes x of the held object"},
		{Owner: "p.Store", Name: "deleteAll", Static: true, Access: "public", OwnerPublic: true, How: "named by the invariant analysis", Depth: 0, invariant: true},
		{Owner: "p.Flags", Name: "reset", Static: true, Access: "package", OwnerPublic: false, How: "putstatic"},
	}
	var got []string
	for _, m := range rankMethods(ms, recv, "p.VictimTest") {
		got = append(got, m.Owner+"."+m.Name)
	}
	want := []string{"p.Store.deleteAll", "p.Flags.reset", "p.Admin.purge", "p.Session.invalidate", "p.Cache.put", "p.Admin.purgeAll"}
	if !slices.Equal(got, want) {
		t.Errorf("ranked %q, want %q", got, want)
	}
}

// TestArgChoices: the passing value's leaves and the mined literals that fit
// the parameter type, then its defaults.
func TestArgChoices(t *testing.T) {
	lits := []literal{{Type: "string", Value: "pdf"}, {Type: "string", Value: "csv"}, {Type: "int", Value: "42"}}
	recv := map[string][]receiverWay{"p.Config": {{Kind: "new", Access: "public"}}}
	tests := []struct {
		typ     string
		passing []string
		want    []probeArg
	}{
		{"java.lang.String", nil, []probeArg{{"string", "pdf"}, {"string", "csv"}, {Kind: "null"}, {"string", ""}}},
		{"java.lang.String", []string{"en"}, []probeArg{{"string", "en"}, {"string", "pdf"}, {"string", "csv"}, {Kind: "null"}, {"string", ""}}},
		{"int", []string{"7", "x"}, []probeArg{{"int", "7"}, {"int", "42"}, {"int", "0"}}},
		{"long", nil, []probeArg{{"long", "42"}, {"long", "0"}}},
		{"boolean", nil, []probeArg{{"boolean", "false"}, {"boolean", "true"}}},
		{"boolean", []string{"true"}, []probeArg{{"boolean", "true"}, {"boolean", "false"}}},
		{"p.Config", nil, []probeArg{{"new", "p.Config"}, {Kind: "null"}}},
		{"java.util.Map", nil, []probeArg{{Kind: "null"}}},
	}
	for _, tt := range tests {
		if got := argChoices(tt.typ, tt.passing, lits, recv); !slices.Equal(got, tt.want) {
			t.Errorf("argChoices(%s, %q) = %v, want %v", tt.typ, tt.passing, got, tt.want)
		}
	}
}

// TestLeaves: the scalar values of a recorded passing value.
func TestLeaves(t *testing.T) {
	tests := []struct {
		passing string
		want    []string
	}{
		{"null", nil},
		{"", nil},
		{"en_US", []string{"en_US"}},
		{"false", []string{"false"}},
		{`["csv","pdf"]`, []string{"csv", "pdf"}},
		{`{"@class":"java.util.TreeSet","@items":["a"]}`, []string{"a"}},
		{"3", []string{"3"}},
	}
	for _, tt := range tests {
		if got := leaves(tt.passing); !slices.Equal(got, tt.want) {
			t.Errorf("leaves(%q) = %q, want %q", tt.passing, got, tt.want)
		}
	}
}

// TestSequences: single calls first, then pairs and triples of distinct
// calls in rank order, each length by the sum of its calls' costs, bounded.
func TestSequences(t *testing.T) {
	calls := []probeCall{{Name: "a", cost: 0}, {Name: "b", cost: 1}, {Name: "c", cost: 5}}
	names := func(ss []sequence) []string {
		var out []string
		for _, s := range ss {
			var n []string
			for _, c := range s.Calls {
				n = append(n, c.Name)
			}
			out = append(out, strings.Join(n, "+"))
		}
		return out
	}
	tests := []struct {
		limit int
		want  []string
	}{
		{100, []string{"a", "b", "c", "a+b", "a+c", "b+c", "a+b+c"}},
		{4, []string{"a", "b", "c", "a+b"}},
		{2, []string{"a", "b"}},
	}
	for _, tt := range tests {
		got := sequences(calls, tt.limit)
		if !slices.Equal(names(got), tt.want) {
			t.Errorf("sequences(limit %d) = %q, want %q", tt.limit, names(got), tt.want)
		}
		for i, s := range got {
			if s.ID != strconv.Itoa(i) {
				t.Errorf("sequence %d has id %q", i, s.ID)
			}
		}
	}
}

// TestSinglesRank: calls of better-ranked methods first, each method's
// arguments in their choice order, bounded per method by the choices.
func TestSinglesRank(t *testing.T) {
	ms := []resetMethod{
		{Owner: "p.Plugins", Name: "unload", Desc: "(Ljava/lang/String;)V", Static: true, Params: []string{"java.lang.String"}},
		{Owner: "p.Admin", Name: "purge", Desc: "()V", Static: true},
	}
	lits := []literal{{Type: "string", Value: "pdf"}, {Type: "string", Value: "csv"}}
	var got []string
	for _, c := range singles(ms, nil, nil, lits, "p.T") {
		got = append(got, javaCall(c, paramsOf(c, ms)))
	}
	want := []string{`p.Plugins.unload("pdf");`, `p.Plugins.unload("csv");`, `p.Plugins.unload((java.lang.String) null);`, `p.Plugins.unload("");`, `p.Admin.purge();`}
	if !slices.Equal(got, want) {
		t.Errorf("singles %q, want %q", got, want)
	}
}

// TestJavaCall renders calls fully qualified: receivers from accessors,
// fields or constructors, nested classes after dots, typed nulls.
func TestJavaCall(t *testing.T) {
	tests := []struct {
		call   probeCall
		params []string
		want   string
	}{
		{probeCall{Owner: "p.Admin", Name: "purge", Static: true}, nil, "p.Admin.purge();"},
		{probeCall{Owner: "p.Session", Name: "invalidate", Receiver: &receiverWay{Kind: "static-method", Name: "getInstance"}}, nil, "p.Session.getInstance().invalidate();"},
		{probeCall{Owner: "p.Outer$Reg", Name: "clear", Receiver: &receiverWay{Kind: "static-field", Name: "INSTANCE"}}, nil, "p.Outer.Reg.INSTANCE.clear();"},
		{probeCall{Owner: "p.Counter", Name: "reset", Receiver: &receiverWay{Kind: "new"}}, nil, "new p.Counter().reset();"},
		{probeCall{Owner: "p.C", Name: "set", Static: true, Args: []probeArg{{"string", "a\"b"}, {"long", "3"}, {Kind: "null"}, {"new", "q.Cfg"}, {"boolean", "true"}}},
			[]string{"java.lang.String", "long", "java.util.Map", "q.Cfg", "boolean"},
			`p.C.set("a\"b", 3L, (java.util.Map) null, new q.Cfg(), true);`},
	}
	for _, tt := range tests {
		if got := javaCall(tt.call, tt.params); got != tt.want {
			t.Errorf("javaCall = %s, want %s", got, tt.want)
		}
	}
}

// TestScanResets runs the editor's bytecode finder on the repair fixture's
// classes (compiled with javac) and a polluter: each field's reset-methods
// with how they reset it, receivers of instance methods, and the literals.
func TestScanResets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs javac and a JVM: skipped with -short")
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("no javac")
	}
	java, _ := exec.LookPath("java")
	dir := t.TempDir()
	src := filepath.Join("..", "..", "..", "testdata", "repair", "src", "main", "java", "fixture", "repair")
	files := []string{filepath.Join(dir, "Loader.java")}
	for _, n := range []string{"Cache", "CacheAdmin", "Session", "Plugins", "Ids"} {
		files = append(files, filepath.Join(src, n+".java"))
	}
	// A caller of a reset-method (depth 1) and a polluter's literals.
	os.WriteFile(files[0], []byte("package fixture.repair;\npublic class Loader {\n  static int untouched = 1;\n"+
		"  public static void reloadAll() { CacheAdmin.purge(); }\n"+
		"  static void pollute() { Plugins.load(\"pdf\"); Plugins.load(\"csv\"); }\n}\n"), 0o644)
	out := filepath.Join(dir, "classes")
	if b, err := exec.Command(javac, append([]string{"--release", "8", "-d", out}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	ed, err := editor.StartEditor(context.Background(), java)
	if err != nil {
		t.Fatal(err)
	}
	defer ed.Close()
	tests := []struct {
		class, field string
		extra        []string // methods the invariant analysis named
		methods      []string // owner.name: how (depth)
		receivers    []string
		literals     []string
	}{
		{"fixture.repair.Cache", "ENTRIES", nil, []string{"Cache.put: mutator put (0)", "CacheAdmin.purge: mutator clear (0)", "Loader.reloadAll: calls fixture.repair.CacheAdmin.purge (1)"}, nil, []string{"pdf", "csv"}},
		{"fixture.repair.Session", "INSTANCE", nil, []string{"Session.signIn: writes user of the held object (0)", "Session.invalidate: writes user of the held object (0)"},
			[]string{"fixture.repair.Session new private", "fixture.repair.Session static-method getInstance public", "fixture.repair.Session static-field INSTANCE private"}, []string{"pdf", "csv"}},
		{"fixture.repair.Plugins", "LOADED", nil, []string{"Plugins.load: mutator add (0)", "Plugins.unload: mutator remove (0)", "Loader.pollute: calls fixture.repair.Plugins.load (1)"}, nil, []string{"pdf", "csv"}},
		// A sequence that only moves forward (incrementAndGet) has no reset-method.
		{"fixture.repair.Ids", "LAST", nil, nil, nil, []string{"pdf", "csv"}},
		// A field nothing writes has no reset-method.
		{"fixture.repair.Loader", "untouched", nil, nil, nil, []string{"pdf", "csv"}},
		// Named methods come first; without a field, only they are listed.
		{"fixture.repair.Ids", "LAST", []string{"fixture.repair.Loader.reloadAll()"}, []string{"Loader.reloadAll: named by the invariant analysis (0)"}, nil, []string{"pdf", "csv"}},
		{"", "", []string{"fixture.repair.Plugins.unload(String)", "fixture.repair.Nope.x()"}, []string{"Plugins.unload: named by the invariant analysis (0)"}, nil, []string{"pdf", "csv"}},
	}
	for _, tt := range tests {
		var sc scanResult
		req := map[string]any{"op": "scan-resets", "dirs": []string{out}, "class": tt.class, "field": tt.field,
			"literalClasses": []string{"fixture.repair.Loader", tt.class}, "extra": append([]string{}, tt.extra...), "depth": 2}
		if err := ed.Call(req, &sc); err != nil {
			t.Fatal(err)
		}
		var methods, receivers, lits []string
		for _, m := range sc.Methods {
			methods = append(methods, fmt.Sprintf("%s.%s: %s (%d)", m.Owner[strings.LastIndexByte(m.Owner, '.')+1:], m.Name, m.How, m.Depth))
		}
		for owner, ws := range sc.Receivers {
			for _, w := range ws {
				receivers = append(receivers, strings.TrimSpace(owner+" "+w.Kind+" "+w.Name)+" "+w.Access)
			}
		}
		for _, l := range sc.Literals {
			if l.Type == "string" {
				lits = append(lits, l.Value)
			}
		}
		if !slices.Equal(methods, tt.methods) || !slices.Equal(receivers, tt.receivers) || !slices.Equal(lits, tt.literals) {
			t.Errorf("%s.%s: methods %q receivers %q literals %q\nwant %q %q %q", tt.class, tt.field, methods, receivers, lits, tt.methods, tt.receivers, tt.literals)
		}
	}
}

// TestMinimalHits: a probed sequence that restores the passing state needs
// no minimisation when each of its shorter sub-sequences was probed and did
// not.
func TestMinimalHits(t *testing.T) {
	seqs := sequences([]probeCall{{Name: "a"}, {Name: "b", cost: 1}, {Name: "c", cost: 2}}, 6) // a b c a+b a+c b+c
	tests := []struct {
		name       string
		hits, want []int
	}{
		{"single", []int{1}, []int{1}},
		{"pair whose parts fail", []int{3}, []int{3}},
		{"pair containing a hit", []int{0, 3, 5}, []int{0, 5}},
	}
	for _, tt := range tests {
		if got := minimalHits(seqs, tt.hits); !slices.Equal(got, tt.want) {
			t.Errorf("%s: minimalHits(%v) = %v, want %v", tt.name, tt.hits, got, tt.want)
		}
	}
	// a+b+c is beyond the limit of 6; with it probed, its pairs decide.
	all := sequences([]probeCall{{Name: "a"}, {Name: "b", cost: 1}, {Name: "c", cost: 2}}, 7)
	if got := minimalHits(all, []int{6}); !slices.Equal(got, []int{6}) {
		t.Errorf("triple whose pairs failed: %v", got)
	}
	if got := minimalHits(all, []int{4, 6}); !slices.Equal(got, []int{4}) {
		t.Errorf("triple containing a hit pair: %v", got)
	}
}

// TestRestoresAt: a root restored at the polluted path, whatever else in it
// differs from the passing value.
func TestRestoresAt(t *testing.T) {
	tree := func(s string) agent.StateRoot {
		return agent.StateRoot{Kind: "static-field", Root: "p.S.INSTANCE", Tree: json.RawMessage(s)}
	}
	passing := tree(`{"@class":"p.S","calls":0,"user":null}`)
	tests := []struct {
		name, got, path string
		want            bool
	}{
		{"path restored, counter differs", `{"@class":"p.S","calls":3}`, ".user", true},
		{"path still polluted", `{"@class":"p.S","calls":3,"user":"alice"}`, ".user", false},
		{"whole root asked for", `{"@class":"p.S","calls":3}`, "", false},
		{"other class", `{"@class":"p.T","calls":0}`, ".user", false},
	}
	for _, tt := range tests {
		if got := restoresAt(passing, tree(tt.got), tt.path); got != tt.want {
			t.Errorf("%s: restoresAt = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestClasspathEntry finds the directory or jar of the classpath that holds
// a class.
func TestClasspathEntry(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "classes")
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p", "A.class"), []byte{0xca}, 0o644); err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(root, "lib.jar")
	f, err := os.Create(jar)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for _, name := range []string{"q/", "q/B.class", "q/B$Inner.class"} {
		if _, err := z.Create(name); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cp := []string{filepath.Join(root, "missing"), dir, jar}
	for _, tt := range []struct{ class, want string }{
		{"p.A", dir}, {"q.B", jar}, {"q.B$Inner", jar}, {"q.C", ""}, {"", ""},
	} {
		if got := classpathEntry(cp, tt.class); got != tt.want {
			t.Errorf("classpathEntry(%q) = %q, want %q", tt.class, got, tt.want)
		}
	}
}
