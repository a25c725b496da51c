package testid

import (
	"encoding/json"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ID
		pkg  string
		top  string
	}{
		{"pkg.C#m", ID{"pkg.C", "m", ""}, "pkg", "pkg.C"},
		{"C#m", ID{"C", "m", ""}, "", "C"},
		{"a.b.Outer$Inner#m[2]", ID{"a.b.Outer$Inner", "m", "[2]"}, "a.b", "a.b.Outer"},
		{"p.C#t[1][3]", ID{"p.C", "t", "[1][3]"}, "p", "p.C"},
		{"p.C#t(String)", ID{"p.C", "t", "(String)"}, "p", "p.C"},
		{"p.C#t[a#b]", ID{"p.C", "t", "[a#b]"}, "p", "p.C"},
		{"p.C#formats[5, 5 EUR](2)", ID{"p.C", "formats", "[5, 5 EUR](2)"}, "p", "p.C"},
		{"p.C#m[a#b, (x), [y]](10)", ID{"p.C", "m", "[a#b, (x), [y]](10)"}, "p", "p.C"},
		{"p.C", ID{"p.C", "", ""}, "p", "p.C"},
		{"$Odd#m", ID{"$Odd", "m", ""}, "", "$Odd"},
	} {
		got := Parse(tc.in)
		if got != tc.want {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("Parse(%q).String() = %q", tc.in, got.String())
		}
		if got.Package() != tc.pkg || got.TopLevel() != tc.top {
			t.Errorf("Parse(%q): package %q top-level %q, want %q %q", tc.in, got.Package(), got.TopLevel(), tc.pkg, tc.top)
		}
	}
}

func TestInvocations(t *testing.T) {
	base := Parse("p.C#m")
	for _, tc := range []struct {
		id   string
		test ID
		want bool
	}{
		{"p.C#m", base, true},
		{"p.C#m[3]", base, true},
		{"p.C#mm[3]", base, false},
		{"p.D#m", base, false},
		{"p.C#m[3]", Parse("p.C#m[3]"), true},
		{"p.C#m[4]", Parse("p.C#m[3]"), false},
		{"p.C#m[3][1]", Parse("p.C#m[3]"), true},
		{"p.C#m[30]", Parse("p.C#m[3]"), false},
		{"p.C#m(String)", base, false},
		{"p.C#m[5, 5 EUR](2)", base, true},
		{"p.C#m[5, 5 EUR](2)", Parse("p.C#m[5, 5 EUR](2)"), true},
		{"p.C#m[5, 5 EUR](2)", Parse("p.C#m[5, 5 EUR](1)"), false},
		{"p.C", Parse("p.C"), true},
		{"p.C#m", Parse("p.C"), false},
	} {
		if got := Parse(tc.id).IsInvocationOf(tc.test); got != tc.want {
			t.Errorf("%s.IsInvocationOf(%s) = %v", tc.id, tc.test, got)
		}
	}
	if got := Parse("p.C#m[3]").Base().String(); got != "p.C#m" {
		t.Errorf("Base = %q", got)
	}
}

func TestJSON(t *testing.T) {
	in := map[ID][]ID{Parse("p.C#m[1]"): {Parse("p.D#n"), New("p.E", "o")}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"p.C#m[1]":["p.D#n","p.E#o"]}` {
		t.Fatalf("JSON %s", b)
	}
	var out map[ID][]ID
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if got := out[Parse("p.C#m[1]")]; len(got) != 2 || got[1] != New("p.E", "o") {
		t.Fatalf("round trip: %v", out)
	}
}

func TestHelpers(t *testing.T) {
	if ClassOf("p.C#m[1]") != "p.C" || ClassOf("p.C") != "p.C" {
		t.Error("ClassOf")
	}
	if c, m := Split("p.C#m[1]"); c != "p.C" || m != "m[1]" {
		t.Errorf("Split = %q %q", c, m)
	}
	if c, m := ClassMethod("p.C#m[1]"); c != "p.C" || m != "m" {
		t.Errorf("ClassMethod = %q %q", c, m)
	}
	for _, id := range []string{"p.C#m[1]", "p.C#m", "p.C"} {
		if got := Join(Split(id)); got != id {
			t.Errorf("Join(Split(%q)) = %q", id, got)
		}
	}
	if JoinMethod("p.C", "m[1]") != "p.C#m[1]" || JoinMethod("p.C", "") != "p.C#" {
		t.Error("JoinMethod")
	}
	for _, c := range []struct {
		id, test string
		want     bool
	}{
		{"p.C#m", "p.C#m", true},
		{"p.C#m[2]", "p.C#m", true},
		{"p.C#mm", "p.C#m", false},
		{"p.C#m", "p.C#m[2]", false},
		{"p.C", "p.C", true},
	} {
		if got := IsInvocation(c.id, c.test); got != c.want {
			t.Errorf("IsInvocation(%q, %q) = %v", c.id, c.test, got)
		}
	}
	if Parse("a.b.O$I#m").SimpleClass() != "O$I" {
		t.Error("SimpleClass")
	}
}

func TestIsIndexed(t *testing.T) {
	for id, want := range map[string]bool{
		"p.C#m": false, "p.C#m[2]": true, "p.C#m[5, 5 EUR](2)": true, "p.C#m(String)": false, "p.C": false,
	} {
		if got := Parse(id).IsIndexed(); got != want {
			t.Errorf("Parse(%q).IsIndexed() = %v, want %v", id, got, want)
		}
	}
}
