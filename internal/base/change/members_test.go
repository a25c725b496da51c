package change

import (
	"slices"
	"testing"
)

func TestDiffMembers(t *testing.T) {
	header := Member{Class: "T", Kind: "header", Name: "T", Signature: "header", Hash: "h"}
	test := func(name, hash string, annotations ...string) Member {
		return Member{Class: "T", Kind: "method", Name: name, Signature: name + "()", Hash: hash, Annotations: annotations}
	}
	base := []Member{header, test("a", "1", "Test"), test("b", "2", "Test"), test("setUp", "3", "Before"),
		{Class: "T", Kind: "field", Name: "x", Signature: "field x", Hash: "4"},
		{Class: "T$In", Kind: "method", Name: "help", Signature: "help(int)", Hash: "5"},
		{Class: "T", Kind: "constructor", Name: "<init>", Signature: "<init>()", Hash: "6"}}
	with := func(change func([]Member) []Member) []Member { return change(slices.Clone(base)) }
	for _, tc := range []struct {
		name    string
		before  []Member
		after   []Member
		whole   bool
		methods []string
	}{
		{"nothing changed", base, base, false, nil},
		{"a new test method", base, append(slices.Clone(base), test("c", "7", "Test")), false, []string{"p.T#c"}},
		{"a changed test method", base, with(func(m []Member) []Member { m[1].Hash = "x"; return m }), false, []string{"p.T#a"}},
		{"a removed test method", base, with(func(m []Member) []Member { return slices.Delete(m, 2, 3) }), false, []string{"p.T#b"}},
		{"a nested class's method and a constructor", base, with(func(m []Member) []Member { m[5].Hash, m[6].Hash = "x", "y"; return m }), false, []string{"p.T#<init>", "p.T$In#help"}},
		{"an overload added", base, append(slices.Clone(base), Member{Class: "T$In", Kind: "method", Name: "help", Signature: "help(long)", Hash: "8"}), false, []string{"p.T$In#help"}},
		{"a fixture changed", base, with(func(m []Member) []Member { m[3].Hash = "x"; return m }), true, nil},
		{"a field changed", base, with(func(m []Member) []Member { m[4].Hash = "x"; return m }), true, nil},
		{"the header changed", base, with(func(m []Member) []Member { m[0].Hash = "x"; return m }), true, nil},
		{"an overriding method added", base, append(slices.Clone(base), test("toString", "9", "Override")), true, nil},
		{"a new file", nil, base, true, nil},
		{"a deleted file", base, nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := DiffMembers("p", tc.before, tc.after)
			if (m.Whole != "") != tc.whole || !slices.Equal(m.Methods, tc.methods) {
				t.Errorf("got whole %q, methods %v; want whole %v, methods %v", m.Whole, m.Methods, tc.whole, tc.methods)
			}
		})
	}
}
