package launcher

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// readyStandby waits until the launcher holds a waiting standby JVM with
// opts.
func readyStandby(t *testing.T, l *Launcher, opts agent.Options) {
	t.Helper()
	key, err := standbyKey(opts)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a waiting standby JVM", func() bool {
		l.standby.mu.Lock()
		defer l.standby.mu.Unlock()
		return len(l.standby.ready[key]) > 0
	})
}

// A run takes a waiting standby JVM with its agent options: the JVM runs
// the run's order with those options, and what its runner said before the
// run took it reaches the run. A run with other options starts its own.
func TestStandby(t *testing.T) {
	unperturbed := agent.Options{}
	random := agent.Options{Chaos: agent.ChaosOptions{Strategies: []string{"RANDOM_MAX"}}}
	tests := []struct {
		name      string
		prestart  agent.Options
		run       RunOptions
		order     []string
		want      string
		wantTaken bool
		wantNote  string
	}{
		{name: "unperturbed", prestart: unperturbed, order: []string{"p.A#a", "p.B#b"}, want: "p.A#a=pass p.B#b=pass", wantTaken: true},
		{name: "perturbed", prestart: random, run: RunOptions{AgentOptions: random}, order: []string{"p.A#perturbed"}, want: "p.A#perturbed=fail", wantTaken: true},
		{name: "other options", prestart: random, order: []string{"p.A#a"}, want: "p.A#a=pass"},
		// The JVM ends abnormally: the runner's note from before the run
		// took it is among the run's notes.
		{name: "note before the run", prestart: random, run: RunOptions{AgentOptions: random}, order: []string{"p.A#oom"}, want: "p.A#oom=crash", wantTaken: true, wantNote: "runner info: standby RANDOM_MAX"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fakeLauncher(t, "ok", Options{})
			if !l.Prestart(tt.prestart, 1) {
				t.Fatal("Prestart started no standby JVM")
			}
			if l.Prestart(tt.prestart, 1) {
				t.Fatal("a second Prestart with the same options, up to one, started another standby JVM")
			}
			readyStandby(t, l, tt.prestart)
			r, err := l.RunWith(context.Background(), tt.order, tt.run)
			if err != nil {
				t.Fatal(err)
			}
			if got := outcomes(r); got != tt.want {
				t.Errorf("outcomes = %q, want %q", got, tt.want)
			}
			key, _ := standbyKey(tt.prestart)
			l.standby.mu.Lock()
			waiting := len(l.standby.ready[key])
			l.standby.mu.Unlock()
			if took := waiting == 0; took != tt.wantTaken {
				t.Errorf("the run took the standby JVM: %v, want %v", took, tt.wantTaken)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(r.Notes, "\n"), tt.wantNote) {
				t.Errorf("notes %q lack %q", r.Notes, tt.wantNote)
			}
		})
	}
}

// Close ends a standby JVM that no run took, and a standby JVM taken is
// not taken twice.
func TestStandbyClose(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(pidFileEnv, pidFile)
	l := fakeLauncher(t, "ok", Options{})
	l.Prestart(agent.Options{}, 1)
	readyStandby(t, l, agent.Options{})
	pid := readPid(t, pidFile)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the standby JVM's end", func() bool { return gone(pid) })
	if l.Prestart(agent.Options{}, 1) {
		t.Error("Prestart after Close started a standby JVM")
	}
}
