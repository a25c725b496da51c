package report

import (
	"slices"
	"testing"
)

func TestNODOrder(t *testing.T) {
	for _, c := range []struct {
		fails, runs, want int
	}{
		{0, 0, maxNODRepeats},
		{1, 1, maxNODRepeats},    // the first failure alone says nothing of the rate
		{3, 3, 22},               // 2 of 2 after it: at least 34%
		{4, 5, 26},               // 3 of 4 after it: at least 30%
		{2, 5, maxNODRepeats},    // 1 of 4 after it: at least 4.6%
		{1, 1000, maxNODRepeats}, // 0 of 999
		{30, 100, 39},            // 29 of 99: at least 21%
		{500, 500, 2},            // 499 of 499: at least 99%
	} {
		got := NODOrder([]string{"a.P#p", "a.N#t"}, "a.N#t", c.fails, c.runs)
		want := append([]string{"a.P#p"}, slices.Repeat([]string{"a.N#t"}, c.want)...)
		if !slices.Equal(got, want) {
			t.Errorf("%d of %d runs failed: %d runs of the test, want %d", c.fails, c.runs, len(got)-1, c.want)
		}
	}
}
