package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/hostile"
	"github.com/flakyhq/flaky/internal/safewrite"
)

// mainEnv makes the test binary run flaky's main with its arguments.
const mainEnv = "FLAKY_TEST_MAIN"

func TestMain(m *testing.M) {
	hostile.Main()
	if os.Getenv(mainEnv) != "" {
		os.Args = append([]string{"flaky"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// startBlocked starts flaky with an order file that is a FIFO nobody writes
// to: reading it blocks in a system call that no context reaches. It returns
// once flaky has opened the FIFO (its signal handling is set up by then).
func startBlocked(t *testing.T) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "order.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd := exec.Command(exe, "run-order", "--module", t.TempDir(), "--order", fifo)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	// Opening the FIFO for writing blocks until flaky opens it for reading;
	// holding it open without writing keeps flaky's read blocked.
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			w = nil
		}
		opened <- w
	}()
	select {
	case w := <-opened:
		if w == nil {
			t.Fatal("cannot open the FIFO for writing")
		}
		t.Cleanup(func() { w.Close() })
	case <-time.After(time.Minute):
		t.Fatalf("flaky did not open its order file within a minute; stderr:\n%s", stderr)
	}
	return cmd, stderr
}

// lockedBuffer is a child process's output that a test may read while the
// process still writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits up to limit for the output to contain s.
func (b *lockedBuffer) waitFor(t *testing.T, s string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); !strings.Contains(b.String(), s); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %s; stderr:\n%s", s, limit, b)
		}
	}
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
// even one blocked where no cancellation reaches: not before the grace, and
// then at once (the upper bound leaves room for a loaded machine).
func TestFirstSignalStopsWithinASecond(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stderr := startBlocked(t)
			start := time.Now()
			cmd.Process.Signal(sig)
			state := waitExit(t, cmd, stopGrace+10*time.Second)
			if state.ExitCode() != exitInterrupted || time.Since(start) < stopGrace/2 {
				t.Errorf("exit %v after %s, want status %d after the grace; stderr:\n%s", state, time.Since(start), exitInterrupted, stderr)
			}
		})
	}
}

// A second signal ends flaky at once, by the signal's default action (not
// by the first signal's grace ending, which exits with exitInterrupted).
func TestSecondSignalEndsAtOnce(t *testing.T) {
	cmd, stderr := startBlocked(t)
	cmd.Process.Signal(syscall.SIGINT)
	// flaky says so once it has restored the default handling.
	stderr.waitFor(t, "a second signal ends flaky at once", 30*time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	state := waitExit(t, cmd, stopGrace+10*time.Second)
	ws, _ := state.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("ended %v, want killed by SIGTERM; stderr:\n%s", state, stderr)
	}
}

// A command that stops early on the signal with an error of its own (here
// detect, whose Maven the cancellation kills) still exits 130.
func TestSignalDuringDetectExits130(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "mvn-started")
	mvn := filepath.Join(dir, "mvn")
	os.WriteFile(mvn, []byte("#!/bin/sh\ntouch \""+mark+"\"\nexec sleep 30\n"), 0o755)
	module := filepath.Join(dir, "module")
	os.MkdirAll(module, 0o755)
	os.WriteFile(filepath.Join(module, "pom.xml"), []byte("<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>"), 0o644)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd := exec.Command(exe, "--mvn", mvn, "detect", "--module", module)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Maven did not start; stderr:\n%s", stderr)
		}
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	state := waitExit(t, cmd, stopGrace+10*time.Second)
	if state.ExitCode() != exitInterrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", state.ExitCode(), exitInterrupted, stderr)
	}
	if strings.Contains(stderr.String(), "failed") || time.Since(start) > stopGrace {
		t.Errorf("stopped after %s, stderr:\n%s\nwant a prompt stop without Maven's error", time.Since(start), stderr)
	}
}

// TestSignalGraceRemovesTemps: when the grace after a SIGTERM ends, the
// temporary files of writes still under way (a rename that takes longer
// than the grace) are removed before flaky exits (item 12 of #53: a
// .A2PolluterTest.java.tmpNNN was left in the sources).
func TestSignalGraceRemovesTemps(t *testing.T) {
	dir := t.TempDir()
	tmp, err := safewrite.CreateTemp(dir, ".A2PolluterTest.java.tmp*")
	if err != nil {
		t.Fatal(err)
	}
	tmp.Close()
	exited := make(chan int, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopOnSignal(cancel, io.Discard, func(code int) { exited <- code })
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	// The grace is a second; a minute only ends a handler that never exits.
	select {
	case code := <-exited:
		if code != exitInterrupted {
			t.Errorf("exit %d, want %d", code, exitInterrupted)
		}
	case <-time.After(time.Minute):
		t.Fatal("no exit within a minute of the signal")
	}
	if ctx.Err() == nil {
		t.Error("the commands' context was not cancelled")
	}
	if _, err := os.Stat(tmp.Name()); !os.IsNotExist(err) {
		t.Errorf("%s after the exit: %v, want it removed", tmp.Name(), err)
	}
}
