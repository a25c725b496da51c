package launcher

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

func TestClashes(t *testing.T) {
	tests := []struct {
		name string
		r    TestResult
		want bool
	}{
		{"bind exception", TestResult{Outcome: Error, FailureType: "java.net.BindException", Message: "Address already in use"}, true},
		{"cause in the stack", TestResult{Outcome: Error, FailureType: "java.lang.IllegalStateException", Message: "cannot start",
			Stack: "java.lang.IllegalStateException: cannot start\nCaused by: java.net.BindException: Address already in use (Bind failed)"}, true},
		{"file lock", TestResult{Outcome: Error, FailureType: "java.nio.channels.OverlappingFileLockException"}, true},
		{"port in use", TestResult{Outcome: Fail, Message: "port 8080 is already in use"}, true},
		{"assertion", TestResult{Outcome: Fail, FailureType: "java.lang.AssertionError", Message: "expected:<1> but was:<2>"}, false},
		{"passed", TestResult{Outcome: Pass, Message: "Address already in use"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clashes(tt.r); got != tt.want {
				t.Errorf("Clashes = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRunWithStopsAtAClash: a run beside other JVMs stops at its first
// clash (a resumed run too) and runs again alone, and every later run is
// alone from the start. A JVM goes on after its clash once the driver
// reported it, or after ample time for the driver to stop it: many times
// what a whole run costs here now, so that only a driver that does not stop
// it lets it run p.B#b.
func TestRunWithStopsAtAClash(t *testing.T) {
	t.Setenv(clashWaitEnv, ample(time.Second, costOfARun(t)).String())
	ran := filepath.Join(t.TempDir(), "ran")
	t.Setenv(ranLogEnv, ran)
	order := []string{"p.A#a", "p.A#clash", "p.B#b"}
	run := func(l *Launcher, opts RunOptions, want, wantEnded string) {
		t.Helper()
		os.Remove(ran)
		os.Remove(ran + ".reported")
		var ended []string
		var mu sync.Mutex
		opts.OnTestEnd = func(r TestResult, _ []agent.Perturbation) {
			mu.Lock()
			ended = append(ended, r.Test+"="+string(r.Outcome))
			mu.Unlock()
			if Clashes(r) {
				os.WriteFile(ran+".reported", nil, 0o600) // see fakeClashWait
			}
		}
		r, err := l.RunWith(context.Background(), order, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Serial || outcomes(r) != "p.A#a=pass p.A#clash=error p.B#b=pass" {
			t.Errorf("resume %v: serial %v, %s; want serial, every test run", opts.Resume, r.Serial, outcomes(r))
		}
		if data, _ := os.ReadFile(ran); string(data) != want {
			t.Errorf("resume %v: the JVMs ran\n%swant\n%s", opts.Resume, data, want)
		}
		if got := strings.Join(ended, " "); got != wantEnded {
			t.Errorf("resume %v: OnTestEnd got %s, want %s", opts.Resume, got, wantEnded)
		}
	}
	for _, opts := range []RunOptions{{}, {Resume: true}} {
		l := fakeLauncher(t, "clean", Options{})
		// The clash of the run beside others is not reported: it runs again.
		run(l, opts, "p.A#a\np.A#clash\np.A#a\np.A#clash\np.B#b\n", "p.A#a=pass p.A#a=pass p.A#clash=error p.B#b=pass")
		run(l, opts, "p.A#a\np.A#clash\np.B#b\n", "p.A#a=pass p.A#clash=error p.B#b=pass")
	}
}
