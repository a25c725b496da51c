package launcher

import (
	"os/exec"
	"testing"
	"time"
)

// TestJVMLoad checks that a tracked process counts as busy while young and
// until it was measured twice, then only while it uses a core: a sleeping
// one waits, a spinning one does not, and an untracked one is not counted.
func TestJVMLoad(t *testing.T) {
	start := func(name string, args ...string) int {
		cmd := exec.Command(name, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	sleeper := start("sleep", "30")
	spinner := start("sh", "-c", "while :; do :; done")
	var l jvmLoad
	l.track(sleeper)
	l.track(spinner)
	if got := l.busy(); got != 2 {
		t.Fatalf("busy right after the start = %d, want 2", got)
	}
	time.Sleep(jvmSettle + 10*time.Millisecond)
	if got := l.busy(); got != 2 {
		t.Fatalf("busy at the first measurement = %d, want 2 (no verdict yet)", got)
	}
	time.Sleep(minLoadInterval + 50*time.Millisecond)
	if got := l.busy(); got != 1 {
		t.Fatalf("busy with one process sleeping and one spinning = %d, want 1", got)
	}
	if got := l.busy(); got != 1 {
		t.Fatalf("busy measured again at once = %d, want 1 (the verdicts kept)", got)
	}
	l.untrack(spinner)
	if got := l.busy(); got != 0 {
		t.Fatalf("busy after the spinner's untrack = %d, want 0", got)
	}
}
