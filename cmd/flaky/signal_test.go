package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// mainEnv makes the test binary run flaky's main with its arguments.
const mainEnv = "FLAKY_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "" {
		os.Args = append([]string{"flaky"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// startBlocked starts flaky with an order file that is a FIFO nobody writes:
// reading it blocks in a system call that no context reaches.
func startBlocked(t *testing.T) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "order.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(exe, "run-order", "--module", t.TempDir(), "--order", fifo)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	time.Sleep(500 * time.Millisecond) // let it reach the blocking read
	return cmd, &stderr
}

// waitExit waits up to limit for cmd and returns its state, failing if it does not end.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) *os.ProcessState {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return cmd.ProcessState
	case <-time.After(limit):
		t.Fatalf("flaky did not end within %s", limit)
		return nil
	}
}

// The first SIGINT or SIGTERM stops every command within about a second,
// even one blocked where no cancellation reaches.
func TestFirstSignalStopsWithinASecond(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stderr := startBlocked(t)
			start := time.Now()
			cmd.Process.Signal(sig)
			state := waitExit(t, cmd, stopGrace+2*time.Second)
			if state.ExitCode() != exitInterrupted || time.Since(start) < stopGrace/2 {
				t.Errorf("exit %v after %s, want status %d after the grace; stderr:\n%s", state, time.Since(start), exitInterrupted, stderr)
			}
		})
	}
}

// A second signal ends flaky at once, by the signal's default action.
func TestSecondSignalEndsAtOnce(t *testing.T) {
	cmd, stderr := startBlocked(t)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	state := waitExit(t, cmd, stopGrace)
	ws, _ := state.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM || time.Since(start) > stopGrace/2 {
		t.Errorf("ended %v after %s, want killed by SIGTERM at once; stderr:\n%s", state, time.Since(start), stderr)
	}
}
