package mvn

import "testing"

func TestReproduce(t *testing.T) {
	for _, c := range []struct {
		module string
		tests  []string
		want   string
	}{
		{".", []string{"a.B#c"}, `mvn -Pflaky test -Dflaky.testFailureIgnore=false '-Dflaky.order=/x y/o.txt'`},
		{"core", nil, `mvn -Pflaky test -pl core -Dflaky.testFailureIgnore=false '-Dflaky.order=/x y/o.txt'`},
		{"apps/core", []string{"a.B#c", "a.C$N#d", "a.B#e", "a.C#f"},
			`mvn -Pflaky test -pl apps/core -am -Dtest=a.B,a.C -Dsurefire.failIfNoSpecifiedTests=false -Dflaky.testFailureIgnore=false '-Dflaky.order=/x y/o.txt'`},
	} {
		if got := Reproduce(c.module, "/x y/o.txt", c.tests...); got != c.want {
			t.Errorf("Reproduce(%q, %q) = %s\nwant %s", c.module, c.tests, got, c.want)
		}
	}
}
