package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/testkit/hostile"
	"github.com/flakyhq/flaky/internal/testkit/testdeadline"
)

// mainEnv makes the test binary run flaky's main with its arguments.
const mainEnv = "FLAKY_TEST_MAIN"

// stopGraceEnv, with mainEnv, sets stopGrace for that run of main.
const stopGraceEnv = "FLAKY_TEST_STOP_GRACE"

func TestMain(m *testing.M) {
	hostile.Main()
	if os.Getenv(mainEnv) != "" {
		if grace, err := time.ParseDuration(os.Getenv(stopGraceEnv)); err == nil {
			stopGrace = grace
		}
		os.Args = append([]string{"flaky"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// awaitBy is when a test stops waiting for something that must happen
// (testdeadline.AwaitBy).
func awaitBy(t *testing.T) time.Time { return testdeadline.AwaitBy(t) }

// slack is how many times the cost of the same work on this machine a
// bound on time in these tests allows.
const slack = 20

// startBlocked starts flaky with an order file that is a FIFO nobody writes
// to: reading it blocks in a system call that no context reaches. It returns
// once flaky has opened the FIFO (its signal handling is set up by then),
// and how long that took: what starting flaky costs here now.
func startBlocked(t *testing.T) (*exec.Cmd, *lockedBuffer, time.Duration) {
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
	began := time.Now()
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
	case <-time.After(time.Until(awaitBy(t))):
		t.Fatalf("flaky did not open its order file; stderr:\n%s", stderr)
	}
	return cmd, stderr, time.Since(began)
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

// waitFor waits for the output to contain s, failing at awaitBy.
func (b *lockedBuffer) waitFor(t *testing.T, s string) {
	t.Helper()
	for deadline := awaitBy(t); !strings.Contains(b.String(), s); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q; stderr:\n%s", s, b)
		}
	}
}

// waitExit waits for cmd and returns its state and how long it took,
// failing if it does not end by awaitBy.
func waitExit(t *testing.T, cmd *exec.Cmd) (*os.ProcessState, time.Duration) {
	t.Helper()
	began := time.Now()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return cmd.ProcessState, time.Since(began)
	case <-time.After(time.Until(awaitBy(t))):
		t.Fatal("flaky did not end")
		return nil, 0
	}
}

// The first SIGINT or SIGTERM stops every command within about a second,
// even one blocked where no cancellation reaches: not before the grace, and
// then at once. At once is within 10 s or, when more, slack times what
// starting flaky just cost: ending it is less work than starting it, so a
// slow or busy machine stretches the bound as much as the exit.
func TestFirstSignalStopsWithinASecond(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stderr, start := startBlocked(t)
			cmd.Process.Signal(sig)
			state, took := waitExit(t, cmd)
			if limit := stopGrace + max(10*time.Second, slack*start); state.ExitCode() != exitInterrupted || took < stopGrace/2 || took > limit {
				t.Errorf("exit %v after %s, want status %d after the grace and by %s; stderr:\n%s", state, took, exitInterrupted, limit, stderr)
			}
		})
	}
}

// A second signal ends flaky at once, by the signal's default action (not
// by the first signal's grace ending, which exits with exitInterrupted).
func TestSecondSignalEndsAtOnce(t *testing.T) {
	cmd, stderr, _ := startBlocked(t)
	cmd.Process.Signal(syscall.SIGINT)
	// flaky says so once it has restored the default handling.
	stderr.waitFor(t, "a second signal ends flaky at once")
	cmd.Process.Signal(syscall.SIGTERM)
	state, _ := waitExit(t, cmd)
	ws, _ := state.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("ended %v, want killed by SIGTERM; stderr:\n%s", state, stderr)
	}
}

// A command that stops early on the signal with an error of its own (here
// detect, whose Maven the cancellation kills) still exits 130, promptly:
// before the grace ends it. The grace here is slack times what starting
// flaky just cost, or 1 s when more: stopping detect and its Maven is less
// work, and a slow or busy machine slows the control as much.
func TestSignalDuringDetectExits130(t *testing.T) {
	control, _, cost := startBlocked(t)
	control.Process.Kill()
	grace := max(time.Second, slack*cost)
	dir := t.TempDir()
	mark := filepath.Join(dir, "mvn-started")
	mvn := filepath.Join(dir, "mvn")
	// Maven writes its pid to mark and sleeps, until the cancellation or
	// the test's end kills it.
	os.WriteFile(mvn, []byte("#!/bin/sh\necho $$ >\""+mark+"\"\nexec sleep 3600\n"), 0o755)
	t.Cleanup(func() {
		if data, err := os.ReadFile(mark); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	module := filepath.Join(dir, "module")
	os.MkdirAll(module, 0o755)
	os.WriteFile(filepath.Join(module, "pom.xml"), []byte("<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>"), 0o644)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd := exec.Command(exe, "--mvn", mvn, "detect", "--module", module)
	cmd.Env = append(os.Environ(), mainEnv+"=1", stopGraceEnv+"="+grace.String())
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := awaitBy(t); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Maven did not start; stderr:\n%s", stderr)
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	state, took := waitExit(t, cmd)
	if state.ExitCode() != exitInterrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", state.ExitCode(), exitInterrupted, stderr)
	}
	if strings.Contains(stderr.String(), "failed") || strings.Contains(stderr.String(), "not stopped") {
		t.Errorf("stopped after %s, stderr:\n%s\nwant a prompt stop, before the grace of %s, without Maven's error", took, stderr, grace)
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
