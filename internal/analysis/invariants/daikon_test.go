package invariants

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

func daikonPoints(t *testing.T) []agent.TracePoint {
	vars := []agent.TraceVar{
		{Name: "this", Kind: "hashcode"}, {Name: "this.name", Kind: "string"}, {Name: "arg0", Kind: "int"},
		{Name: "arg1", Kind: "hashcode"}, {Name: "arg1.getClass().getName()", Kind: "string"},
		{Name: "arg1.size()", Kind: "int"}, {Name: "arg1[]", Kind: "string[]"},
		{Name: "p.Store.open", Kind: "boolean"}, {Name: "p.Store.rate", Kind: "double"}, {Name: "return", Kind: "int"},
	}
	return []agent.TracePoint{
		point(t, "p.Store.count(int, java.util.List):::ENTER", vars[:9],
			`{"this":17,"this.name":"a b\"c","arg0":3,"arg1":null,"p.Store.open":true,"p.Store.rate":0.5}`,
			`{"this":17,"this.name":null,"arg0":-4,"arg1":99,"arg1.getClass().getName()":"java.util.ArrayList","arg1.size()":2,"arg1[]":["x y","\"q\""],"p.Store.open":false,"p.Store.rate":2}`),
		point(t, "p.Store.count(int, java.util.List):::EXIT", vars, `{"this":17,"arg0":3,"return":0}`),
	}
}

// TestDaikonRoundTrip writes points in Daikon's format and reads them back:
// every value, null and nonsensical one survives.
func TestDaikonRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := daikonPoints(t)
	if err := WriteDaikon(dir, "run", want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDaikon(dir, "run")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(normalise(got), normalise(want)) {
		t.Errorf("round trip:\n got %+v\nwant %+v", normalise(got), normalise(want))
	}
	decls, _ := os.ReadFile(filepath.Join(dir, "run.decls"))
	for _, want := range []string{
		"decl-version 2.0\n",
		"ppt p.Store.count(int,\\_java.util.List):::EXIT1\nppt-type subexit\n",
		"variable this.name\n  var-kind field name\n  enclosing-var this\n  dec-type java.lang.String\n  rep-type java.lang.String\n",
		"variable arg1.getClass().getName()\n  var-kind function getClass().getName()\n  enclosing-var arg1\n",
		"variable arg1[]\n  var-kind array\n  enclosing-var arg1\n  array 1\n",
		"variable return\n  var-kind return\n",
	} {
		if !strings.Contains(string(decls), want) {
			t.Errorf("decls lack %q:\n%s", want, decls)
		}
	}
	trace, _ := os.ReadFile(filepath.Join(dir, "run.dtrace"))
	if !strings.Contains(string(trace), "arg1[]\n[\"x y\" \"\\\"q\\\"\"]\n1\n") || !strings.Contains(string(trace), "arg1.size()\nnonsensical\n2\n") {
		t.Errorf("dtrace:\n%s", trace)
	}
}

// normalise re-encodes samples so that equal values compare equal.
func normalise(points []agent.TracePoint) []agent.TracePoint {
	out := make([]agent.TracePoint, len(points))
	for i, p := range points {
		p.Calls = int64(len(p.Samples))
		samples := make([]map[string]json.RawMessage, len(p.Samples))
		for j, s := range p.Samples {
			m := map[string]json.RawMessage{}
			for k, v := range s {
				var x any
				_ = json.Unmarshal(v, &x)
				m[k], _ = json.Marshal(x)
			}
			samples[j] = m
		}
		p.Samples = samples
		out[i] = p
	}
	return out
}

// TestReadDaikonGrammar rejects files that break the documented grammar.
func TestReadDaikonGrammar(t *testing.T) {
	good := "decl-version 2.0\nvar-comparability none\n\nppt p.C.m():::ENTER\nppt-type enter\nvariable x\n  var-kind variable\n  dec-type int\n  rep-type int\n"
	tests := []struct {
		name, decls, dtrace, want string
	}{
		{"no header", strings.TrimPrefix(good, "decl-version 2.0\n"), "", "want decl-version"},
		{"old version", strings.Replace(good, "2.0", "1.0", 1), "", "want 2.0"},
		{"no rep-type", strings.Replace(good, "  rep-type int\n", "", 1), "", "no rep-type"},
		{"field without enclosing", strings.Replace(good, "var-kind variable", "var-kind field x", 1), "", "enclosing-var"},
		{"unknown key", good + "  colour red\n", "", "unknown variable key"},
		{"undeclared ppt", good, "p.C.n():::ENTER\nx\n1\n1\n\n", "undeclared ppt"},
		{"wrong variable", good, "p.C.m():::ENTER\ny\n1\n1\n\n", "declares \"x\""},
		{"bad value", good, "p.C.m():::ENTER\nx\nabc\n1\n\n", "not an int"},
		{"bad flag", good, "p.C.m():::ENTER\nx\n1\n7\n\n", "modified flag"},
		{"good", good, "p.C.m():::ENTER\nx\n1\n1\n\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "r.decls"), []byte(tt.decls), 0o644)
			os.WriteFile(filepath.Join(dir, "r.dtrace"), []byte(tt.dtrace), 0o644)
			_, err := ReadDaikon(dir, "r")
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("ReadDaikon error %v, want %q", err, tt.want)
			}
		})
	}
}
