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
		name   string
		orders []plannedOrder
		n      int
		want   string
	}{
		{"exploration orders n at a time", []plannedOrder{o(GenRandomMethods, "r1", 3), o(GenRandomMethods, "r2", 3), o(GenRandomMethods, "r3", 3)}, 2, "r1 r2 | r3"},
		{"isolation and twice runs stay fresh, in their place", []plannedOrder{
			o(GenRandomMethods, "r1", 3), o(GenIsolation, "i1", 1), o(GenRandomMethods, "r2", 3), o(GenTwice, "t", 6), o(GenRandomMethods, "r3", 3),
		}, 8, "r1 r2 r3 | i1 | t"},
		{"a full batch opens the next", []plannedOrder{o(GenRandomMethods, "r1", 3), o(GenRandomMethods, "r2", 3), o(GenIsolation, "i1", 1), o(GenRandomMethods, "r3", 3)}, 2, "r1 r2 | i1 | r3"},
		{"orders of one test run fresh", []plannedOrder{o(GenRandomMethods, "r1", 1), o(GenRandomMethods, "r2", 2)}, 4, "r1 | r2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var parts []string
			for _, b := range warmBatches(tt.orders, tt.n) {
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
