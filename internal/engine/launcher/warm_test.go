package launcher

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestRunWarm runs orders in one fake warm JVM: each order's results come
// from its own run-start ... run-end, and the orders the warm JVM did not
// finish run in fresh JVMs.
func TestRunWarm(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		orders   [][]string
		want     []string // outcomes per order
		warm     []bool   // whether each order's result came from the warm JVM
	}{
		{
			name:     "all warm",
			scenario: "clean",
			orders:   [][]string{{"p.A#a", "p.B#b"}, {"p.B#fail", "p.A#a"}, {"p.A#a"}},
			want:     []string{"p.A#a=pass p.B#b=pass", "p.B#fail=fail p.A#a=pass", "p.A#a=pass"},
			warm:     []bool{true, true, true},
		},
		{
			name:     "System.exit ends the warm JVM: that order and the rest run fresh",
			scenario: "clean",
			orders:   [][]string{{"p.A#a"}, {"p.A#exit", "p.A#b"}, {"p.B#b"}},
			want:     []string{"p.A#a=pass", "p.A#exit=crash p.A#b=not-run", "p.B#b=pass"},
			warm:     []bool{true, false, false},
		},
		{
			name:     "state the warm JVM cannot reset: the rest run fresh",
			scenario: "warm-unfit",
			orders:   [][]string{{"p.A#a"}, {"p.A#b"}, {"p.B#b"}},
			want:     []string{"p.A#a=pass", "p.A#b=pass", "p.B#b=pass"},
			warm:     []bool{true, false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fakeLauncher(t, tt.scenario, Options{})
			res, err := l.RunWarm(context.Background(), tt.orders)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if got := outcomes(r); got != tt.want[i] {
					t.Errorf("order %d: %s, want %s", i+1, got, tt.want[i])
				}
				if r.Warm != tt.warm[i] {
					t.Errorf("order %d: warm %v, want %v (notes %q)", i+1, r.Warm, tt.warm[i], r.Notes)
				}
				if r.Warm && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "reset system properties") }) {
					t.Errorf("order %d: no note on what was reset: %q", i+1, r.Notes)
				}
			}
		})
	}
}

// TestRunWarmSerialLane: after a clash, two or more orders share a warm
// JVM that runs alone; a lone one runs in a fresh JVM, alone.
func TestRunWarmSerialLane(t *testing.T) {
	tests := []struct {
		name   string
		orders [][]string
		warm   bool
	}{
		{"three orders", [][]string{{"p.A#a", "p.B#b"}, {"p.B#b"}, {"p.B#b", "p.A#a"}}, true},
		{"one order", [][]string{{"p.B#b"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fakeLauncher(t, "clean", Options{})
			l.lanes.clashed.Store(true)
			res, err := l.RunWarm(context.Background(), tt.orders)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if r.Warm != tt.warm || !r.Serial {
					t.Errorf("order %d: warm %v, serial %v; want warm %v, serial", i+1, r.Warm, r.Serial, tt.warm)
				}
				if got := outcomes(r); strings.Contains(got, "not-run") || strings.Contains(got, "fail") {
					t.Errorf("order %d: %s", i+1, got)
				}
			}
		})
	}
}
