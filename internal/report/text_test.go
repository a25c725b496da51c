package report

import (
	"strings"
	"testing"
)

func TestFirstLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"one\ntwo", "one"},
		{"\ntwo", ""},
	} {
		if got := FirstLine(c.in); got != c.want {
			t.Errorf("FirstLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestHeadline(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"  one\r\ntwo", 10, "one"},
		{"\n\nexpected:<1>\n", 10, "expected:<..."},
		{"\n\nexpected:<1>\n", 20, "expected:<1>"},
		{"abcdef", 3, "abc..."},
		{"é" + strings.Repeat("x", 3), 1, "..."},
		{"short", 5, "short"},
	} {
		if got := Headline(c.in, c.max); got != c.want {
			t.Errorf("Headline(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
