package chaos

import (
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

// TestBisection checks that the bisection over call sites ends with the
// sites whose shuffling alone fails the test: one site among several, or
// two that only fail together.
func TestBisection(t *testing.T) {
	sites := make([]report.CallSite, 5)
	for i := range sites {
		sites[i] = report.CallSite{Class: "C", Method: "m", Line: i + 1}
	}
	for _, tt := range []struct {
		name  string
		fails func(shuffled []int) bool // the lines shuffled
		want  []int
		runs  int
	}{
		{"one site", func(s []int) bool { return slices.Contains(s, 4) }, []int{4}, 5},
		{"first site", func(s []int) bool { return slices.Contains(s, 1) }, []int{1}, 2},
		{"two together", func(s []int) bool { return slices.Contains(s, 2) && slices.Contains(s, 4) }, []int{1, 2, 3, 4, 5}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bisection{candidates: sites}
			runs := 0
			for !b.done && runs < 20 {
				var lines []int
				for _, c := range b.half() {
					lines = append(lines, c.Line)
				}
				runs++
				b.next(tt.fails(lines))
			}
			var got []int
			for _, c := range b.candidates {
				got = append(got, c.Line)
			}
			if !slices.Equal(got, tt.want) || runs != tt.runs {
				t.Errorf("candidates %v after %d runs, want %v after %d", got, runs, tt.want, tt.runs)
			}
		})
	}
}

// TestOnlySites checks the agent option naming the sites to shuffle.
func TestOnlySites(t *testing.T) {
	s, detail := onlySites(Settings{Params: []string{"seed=3"}}, []report.CallSite{{Class: "a.B", Method: "m", Line: 7, API: "java.util.Map#values()"}, {Class: "a.B", Method: "lambda$x$0", Line: 9}})
	want := "iteration.sites=a.B#m:7+a.B#lambda$x$0:9"
	if !slices.Equal(s.Params, []string{"seed=3", want}) || detail != sitesDetail+"a.B#m:7+a.B#lambda$x$0:9" {
		t.Errorf("params %q, detail %q", s.Params, detail)
	}
	if _, err := s.AgentOptions(mustLookup("ITERATION_ORDER")); err != nil {
		t.Error(err)
	}
}
