package od

import (
	"strings"
	"testing"
)

func TestWarmBatches(t *testing.T) {
	o := func(gen, label string, n int) plannedOrder {
		return plannedOrder{gen: gen, label: label, tests: make([]string, n)}
	}
	tests := []struct {
		name       string
		orders     []plannedOrder
		n, workers int
		want       string
	}{
		{"exploration orders n at a time", []plannedOrder{o(GenRandomMethods, "r1", 3), o(GenRandomMethods, "r2", 3), o(GenRandomMethods, "r3", 3)}, 2, 1, "r1 r2 | r3"},
		{"isolation and twice runs stay fresh, in their place", []plannedOrder{
			o(GenRandomMethods, "r1", 3), o(GenIsolation, "i1", 1), o(GenRandomMethods, "r2", 3), o(GenTwice, "t", 6), o(GenRandomMethods, "r3", 3),
		}, 8, 1, "r1 r2 r3 | i1 | t"},
		{"a full batch opens the next", []plannedOrder{o(GenRandomMethods, "r1", 3), o(GenRandomMethods, "r2", 3), o(GenIsolation, "i1", 1), o(GenRandomMethods, "r3", 3)}, 2, 1, "r1 r2 | i1 | r3"},
		{"orders of one test run fresh", []plannedOrder{o(GenRandomMethods, "r1", 1), o(GenRandomMethods, "r2", 2)}, 4, 1, "r1 | r2"},
		{"the first orders are dealt out to the JVMs that start first", []plannedOrder{
			o(GenIsolation, "i1", 1), o(GenReverseClasses, "r1", 3), o(GenTuscanClasses, "p1", 3), o(GenTuscanClasses, "p2", 3), o(GenRandomMethods, "r2", 3),
			o(GenRandomMethods, "r3", 3), o(GenRandomMethods, "r4", 3), o(GenRandomMethods, "r5", 3),
		}, 2, 2, "i1 | r1 p2 | p1 r2 | r3 r5 | r4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var parts []string
			for _, b := range warmBatches(tt.orders, tt.n, tt.workers) {
				var labels []string
				for _, p := range b {
					labels = append(labels, p.label)
				}
				parts = append(parts, strings.Join(labels, " "))
			}
			if got := strings.Join(parts, " | "); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWarmBatchSize: as many orders per warm JVM as keep every worker busy,
// within 2 and the most asked for.
func TestWarmBatchSize(t *testing.T) {
	explore := func(n int) []plannedOrder {
		out := []plannedOrder{{gen: GenOriginal, tests: make([]string, 5)}, {gen: GenIsolation, tests: make([]string, 1)}}
		for range n {
			out = append(out, plannedOrder{gen: GenRandomMethods, tests: make([]string, 5)})
		}
		return out
	}
	tests := []struct {
		orders        []plannedOrder
		most, workers int
		want          int
	}{
		{explore(24), 8, 4, 6},
		{explore(11), 8, 4, 3},
		{explore(100), 8, 4, 8},
		{explore(3), 8, 4, 2},
		{explore(0), 8, 4, 2},
		{explore(9), 8, 0, 8},
	}
	for _, tt := range tests {
		if got := warmBatchSize(tt.orders, tt.most, tt.workers); got != tt.want {
			t.Errorf("%d exploration orders, most %d, %d workers: %d, want %d", len(tt.orders)-2, tt.most, tt.workers, got, tt.want)
		}
	}
}
