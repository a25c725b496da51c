package mvn

import (
	"slices"
	"testing"
)

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

func TestWithArgs(t *testing.T) {
	args := []string{"-Pmodern-jvm", "-Dx=1"}
	for _, c := range []struct {
		command, after string
		args           []string
		want           string
	}{
		{"mvn -Pflaky test -Dflaky.order=o", "test", args, "mvn -Pflaky test -Pmodern-jvm -Dx=1 -Dflaky.order=o"},
		{"flaky run-order --order o", "flaky", args, "flaky -P modern-jvm -D x=1 run-order --order o"},
		{"mvn -Pflaky test -Dflaky.order='a b'", "test", []string{"-Dy=two words"}, "mvn -Pflaky test '-Dy=two words' '-Dflaky.order=a b'"},
		{"mvn -Pflaky test", "test", nil, "mvn -Pflaky test"},
		{"cd x && flaky init", "test", args, "cd x && flaky init"},
		{"mvn 'unclosed", "test", args, "mvn 'unclosed"},
	} {
		if got := WithArgs(c.command, c.after, c.args); got != c.want {
			t.Errorf("WithArgs(%q, %q, %q) = %q, want %q", c.command, c.after, c.args, got, c.want)
		}
	}
}

func TestCommandLineArgs(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"", nil},
		{" -Pflaky verify", nil},
		{"-Pflaky verify -Djacoco.skip=true", []string{"-Djacoco.skip=true"}},
		{"-T 1C -Pflaky,jdk17AndLater clean verify -DskipITs -Dflaky.chaos=combined", []string{"-Pjdk17AndLater", "-DskipITs=true"}},
		{"--activate-profiles ci -P !slow,flaky --define a=1 --define=b=2 -D c=3 verify", []string{"-Pci,!slow", "-Da=1", "-Db=2", "-Dc=3"}},
		// The variable loses the quotes of a value with spaces: its words are joined again.
		{"-Pflaky -Dmsg=two words verify -Dx=y", []string{"-Dmsg=two words", "-Dx=y"}},
		{"-Dmsg=a b jacoco:report", []string{"-Dmsg=a b"}},
		{"-Dmsg=a -pl core verify", []string{"-Dmsg=a"}},
		{"-Pflaky verify -D", nil},
		{"-D=v verify -Da", []string{"-Da=true"}},
	} {
		if got := CommandLineArgs(c.line).Args(); !slices.Equal(got, c.want) {
			t.Errorf("CommandLineArgs(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}
