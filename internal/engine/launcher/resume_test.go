package launcher

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// A run with Resume goes on in a fresh JVM after each JVM that ends early
// (test timeout, System.exit, a crash), so every test after it still runs;
// Resumed says where each JVM started. The test timeout, for p.A#hang, is
// ample for what a whole run costs here now, so the tests that pass cannot
// run into it, however busy the machine.
func TestResumeAfterEarlyEnd(t *testing.T) {
	testTimeout := ample(500*time.Millisecond, costOfARun(t))
	tests := []struct {
		name    string
		order   []string
		want    string
		resumed []Resumption
	}{
		{
			name:  "no early end",
			order: []string{"p.A#a", "p.B#b"},
			want:  "p.A#a=pass p.B#b=pass",
		},
		{
			name:    "timeout, then System.exit, then a crash",
			order:   []string{"p.A#a", "p.A#hang", "p.A#c", "p.B#exit", "p.B#d", "p.C#oom", "p.C#e"},
			want:    "p.A#a=pass p.A#hang=timeout p.A#c=pass p.B#exit=crash p.B#d=pass p.C#oom=crash p.C#e=pass",
			resumed: []Resumption{{At: 2, From: "p.A#c", After: "p.A#hang", Why: "timeout"}, {At: 4, From: "p.B#d", After: "p.B#exit", Why: "System.exit"}, {At: 6, From: "p.C#e", After: "p.C#oom", Why: "crash"}},
		},
		{
			name:    "the last test ends its JVM",
			order:   []string{"p.A#a", "p.A#exit"},
			want:    "p.A#a=pass p.A#exit=crash",
			resumed: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fakeLauncher(t, "run", Options{TestTimeout: testTimeout})
			r, err := l.RunWith(context.Background(), tt.order, RunOptions{Resume: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := outcomes(r); got != tt.want {
				t.Errorf("outcomes = %s, want %s", got, tt.want)
			}
			if !slices.Equal(r.Resumed, tt.resumed) {
				t.Errorf("Resumed = %+v, want %+v", r.Resumed, tt.resumed)
			}
			if !slices.Equal(r.Order, tt.order) {
				t.Errorf("Order = %v", r.Order)
			}
			if n := strings.Count(r.Output, "fake JVM starting"); n != len(tt.resumed)+1 {
				t.Errorf("output of %d JVMs, want %d:\n%s", n, len(tt.resumed)+1, r.Output)
			}
		})
	}
}

// Without Resume, a JVM that ends early leaves the rest of the order not run.
func TestNoResumeByDefault(t *testing.T) {
	l := fakeLauncher(t, "run", Options{})
	r, err := l.Run(context.Background(), []string{"p.A#exit", "p.A#b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(r); got != "p.A#exit=crash p.A#b=not-run" || r.Resumed != nil {
		t.Errorf("outcomes = %s, Resumed = %v", got, r.Resumed)
	}
}

func TestResumptionString(t *testing.T) {
	r := Resumption{At: 2, From: "p.A#c", After: "p.A#hang", Why: "timeout"}
	if got, want := r.String(), "a fresh JVM went on from p.A#c (entry 3) after p.A#hang ended its JVM (timeout)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
