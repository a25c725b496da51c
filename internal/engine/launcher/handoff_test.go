package launcher

import (
	"context"
	"slices"
	"testing"
	"time"
)

// A running JVM hands what is left of its order after the class run it has
// begun over, at the next class run's start; the run's Result ends there, and joined with the
// rest's run in another JVM it describes the whole order, with the
// handoff among its Resumed. The first test (p.A#handoff) runs until the
// driver asked for the handoff, so the ask comes in the first class run
// however slow the machine.
func TestHandoff(t *testing.T) {
	tests := []struct {
		name     string
		order    []string
		split    bool
		from, to int
		want     string // the first JVM's outcomes
	}{
		{
			name:  "all after the class run begun",
			order: []string{"p.A#handoff", "p.A#b", "p.B#slow", "p.B#b", "p.C#slow", "p.D#slow"},
			split: true, from: 2, to: 6,
			want: "p.A#handoff=pass p.A#b=pass",
		},
		{
			name:  "no class run left to hand over",
			order: []string{"p.A#handoff", "p.A#b", "p.A#c", "p.A#d", "p.A#e"},
			want:  "p.A#handoff=pass p.A#b=pass p.A#c=pass p.A#d=pass p.A#e=pass",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fakeLauncher(t, "run", Options{Workers: 2})
			h := NewHandoff()
			type split struct {
				from, to int
				ok       bool
			}
			asked := make(chan split, 1)
			go func() {
				for h.Left() == 0 {
					time.Sleep(5 * time.Millisecond)
				}
				from, to, ok := h.Split()
				asked <- split{from, to, ok}
			}()
			r, err := l.RunWith(context.Background(), tt.order, RunOptions{Handoff: h, Resume: true})
			if err != nil {
				t.Fatal(err)
			}
			s := <-asked
			if s.ok != tt.split || s.ok && (s.from != tt.from || s.to != tt.to) {
				t.Fatalf("Split() = %d, %d, %v; want %d, %d, %v", s.from, s.to, s.ok, tt.from, tt.to, tt.split)
			}
			if got := outcomes(r); got != tt.want {
				t.Errorf("outcomes = %s, want %s", got, tt.want)
			}
			if h.Left() != 0 {
				t.Errorf("Left() = %d after the run", h.Left())
			}
			if !s.ok {
				return
			}
			rest, err := l.RunWith(context.Background(), tt.order[s.from:s.to], RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r.Join(rest)
			if !slices.Equal(r.Order, tt.order) {
				t.Errorf("joined Order = %v", r.Order)
			}
			if got, want := outcomes(r), "p.A#handoff=pass p.A#b=pass p.B#slow=pass p.B#b=pass p.C#slow=pass p.D#slow=pass"; got != want {
				t.Errorf("joined outcomes = %s, want %s", got, want)
			}
			if want := []Resumption{{At: 2, From: "p.B#slow", Why: HandedOver}}; !slices.Equal(r.Resumed, want) {
				t.Errorf("Resumed = %+v, want %+v", r.Resumed, want)
			}
		})
	}
}

// Join keeps the results of tests that ran before the not-run ones, and
// shifts the resumptions of the rest's run to the whole order's entries.
func TestJoin(t *testing.T) {
	r := &Result{Order: []string{"p.A#a", "p.A#b"}, Tests: []TestResult{{Test: "p.A#a", Outcome: Pass}, {Test: "p.A#b", Outcome: NotRun}}, ClassScopes: map[string]int{"p.A": 1}, covered: []bool{true, false}}
	rest := &Result{Order: []string{"p.B#a", "p.B#b"}, Tests: []TestResult{{Test: "p.B#a", Outcome: Timeout}, {Test: "p.B#b", Outcome: Pass}}, ClassScopes: map[string]int{"p.B": 2},
		Resumed: []Resumption{{At: 1, From: "p.B#b", After: "p.B#a", Why: "timeout"}}, covered: []bool{true, true}}
	r.Join(rest)
	if got, want := outcomes(r), "p.A#a=pass p.B#a=timeout p.B#b=pass p.A#b=not-run"; got != want {
		t.Errorf("outcomes = %s, want %s", got, want)
	}
	want := []Resumption{{At: 2, From: "p.B#a", Why: HandedOver}, {At: 3, From: "p.B#b", After: "p.B#a", Why: "timeout"}}
	if !slices.Equal(r.Resumed, want) {
		t.Errorf("Resumed = %+v, want %+v", r.Resumed, want)
	}
	if got := r.ClassScopes; got["p.A"] != 1 || got["p.B"] != 2 {
		t.Errorf("ClassScopes = %v", got)
	}
	if !slices.Equal(r.covered, []bool{true, false, true, true}) {
		t.Errorf("covered = %v", r.covered)
	}
}
