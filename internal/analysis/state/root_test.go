package state

import "testing"

func TestSplitStaticField(t *testing.T) {
	for _, c := range []struct {
		root, class, field string
		ok                 bool
	}{
		{"p.C.FIELD", "p.C", "FIELD", true},
		{"p.C$In.f", "p.C$In", "f", true},
		{"p.C#f", "p.C", "f", true},
		{"f", "", "", false},
	} {
		class, field, ok := SplitStaticField(c.root)
		if class != c.class || field != c.field || ok != c.ok {
			t.Errorf("SplitStaticField(%q) = %q %q %v", c.root, class, field, ok)
		}
	}
}
