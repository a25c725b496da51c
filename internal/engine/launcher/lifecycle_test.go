package launcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/testkit/testdeadline"
)

// pidFileEnv names a file where the fake JVM writes its pid (and the
// "setsid" test writes its daemon's pid to FILE.daemon).
const pidFileEnv = "FLAKY_FAKE_PIDFILE"

// ranLogEnv names a file where the fake JVM appends each test it starts.
const ranLogEnv = "FLAKY_FAKE_RANLOG"

// fakeDriverEnv makes the test binary a driver that runs the order it holds
// (space-separated) in a fake JVM, as flaky would.
const fakeDriverEnv = "FLAKY_FAKE_DRIVER"

func fakeDriver(scenario string, order []string) int {
	exe, err := os.Executable()
	if err != nil {
		return 2
	}
	os.Unsetenv(fakeDriverEnv)
	l, err := New(Env{Java: exe}, agent.Jars{Agent: "/x/agent.jar", Runner: "/x/runner.jar"}, Options{})
	if err != nil {
		return 2
	}
	defer l.Close()
	if _, err := l.Run(context.Background(), order); err != nil {
		return 2
	}
	return 0
}

// gone reports whether pid has ended (a zombie counts as ended).
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(rest, "Z")
}

// awaitBy is when a test stops waiting for something that must happen
// (testdeadline.AwaitBy).
func awaitBy(t *testing.T) time.Time { return testdeadline.AwaitBy(t) }

// waitFor waits until cond holds, failing at awaitBy.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := awaitBy(t); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not by the test's deadline", what)
		}
	}
}

// slack is how many times the cost of the same work on this machine a
// bound on time in these tests allows.
const slack = 20

// costOfARun is the control for the bounds on time in these tests: what a
// fake JVM costs here now, under the machine's load, from its launch
// through a two-test order to its end.
func costOfARun(t *testing.T) time.Duration {
	t.Helper()
	l := fakeLauncher(t, "run", Options{})
	began := time.Now()
	if _, err := l.Run(context.Background(), []string{"p.A#a", "p.B#b"}); err != nil {
		t.Fatal(err)
	}
	return time.Since(began)
}

// ample is a bound on time for work that costs at most cost here: slack
// times cost, or floor when that is more. A machine slow or busy enough to
// cut the work makes the control slow too, and the bound with it; it is
// rounded to 10 ms for messages that read well.
func ample(floor, cost time.Duration) time.Duration {
	return max(floor, (slack * cost).Round(10*time.Millisecond))
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	var pid int
	waitFor(t, "pid file "+filepath.Base(file), func() bool {
		data, err := os.ReadFile(file)
		pid, _ = strconv.Atoi(string(data))
		return err == nil && pid > 0
	})
	return pid
}

// A JVM that does not exit after reporting the end of its order is killed
// after a short grace period; its results are kept and the kill is noted.
func TestLingeringJVMKilledAfterRunEnd(t *testing.T) {
	// The run timeout is far beyond the exit grace and the run's work, as
	// measured here: a run cut by it (TimedOut) is one that waited for the
	// lingering JVM instead of killing it after the grace.
	runTimeout := exitGrace + ample(30*time.Second, costOfARun(t))
	l := fakeLauncher(t, "linger", Options{RunTimeout: runTimeout})
	r, err := l.Run(context.Background(), []string{"p.A#a", "p.B#b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(r); got != "p.A#a=pass p.B#b=pass" || r.TimedOut {
		t.Errorf("outcomes %q (timed out %v), want both passed and no timeout", got, r.TimedOut)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "did not exit within 2s after its last test") {
		t.Errorf("notes %q, want the kill explained", r.Notes)
	}
}

// A process a test starts in its own session (setsid) does not survive the
// JVM: the driver finds it by its environment, kills it and says so.
func TestSetsidDescendantKilled(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(pidFileEnv, pidFile)
	l := fakeLauncher(t, "run", Options{})
	r, err := l.Run(context.Background(), []string{"p.A#setsid"})
	if err != nil {
		t.Fatal(err)
	}
	daemon := readPid(t, pidFile+".daemon")
	t.Cleanup(func() { syscall.Kill(daemon, syscall.SIGKILL) })
	waitFor(t, "the setsid daemon to end", func() bool { return gone(daemon) })
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], strconv.Itoa(daemon)+" (sleep)") {
		t.Errorf("notes %q, want the killed daemon named", r.Notes)
	}
}

// When the driver is killed (SIGKILL, no cleanup), its test JVM ends too,
// and the next launcher removes the dead driver's temporary directory.
func TestDriverKilledEndsJVMAndTempDirRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(pidFileEnv, pidFile)
	t.Setenv(fakeEnv, "run")
	t.Setenv(fakeDriverEnv, "p.A#hang")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	driver := exec.Command(exe)
	if err := driver.Start(); err != nil {
		t.Fatal(err)
	}
	jvm := readPid(t, pidFile)
	t.Cleanup(func() { syscall.Kill(jvm, syscall.SIGKILL) })
	stale, _ := filepath.Glob(filepath.Join(tmp, tempPrefix+"*"))
	driver.Process.Kill()
	driver.Wait()
	waitFor(t, "the JVM of the killed driver to end", func() bool { return gone(jvm) })
	if len(stale) != 1 || !strings.Contains(stale[0], tempPrefix+strconv.Itoa(driver.Process.Pid)+"-") {
		t.Fatalf("launcher temp dirs %q, want one named after the driver's pid", stale)
	}

	t.Setenv(fakeDriverEnv, "")
	l := fakeLauncher(t, "run", Options{})
	if _, err := os.Stat(stale[0]); !os.IsNotExist(err) {
		t.Errorf("the killed driver's temp dir %s is still there (%v)", stale[0], err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, tempPrefix+"*")); len(left) != 1 || left[0] != l.tmp {
		t.Errorf("temp dirs %q, want only the new launcher's %s", left, l.tmp)
	}
}

// When the driver is killed (SIGKILL, no cleanup) while a test JVM runs,
// every process the JVM started ends too: a plain child, and a daemon that
// double-forked into its own session with an empty environment.
func TestDriverKilledEndsJVMChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has a parent-death signal and child subreapers")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(pidFileEnv, pidFile)
	t.Setenv(fakeEnv, "run")
	t.Setenv(fakeDriverEnv, "p.A#spawn p.A#hang")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	driver := exec.Command(exe)
	if err := driver.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { driver.Process.Kill(); driver.Wait() })
	pids := map[string]int{"the JVM": readPid(t, pidFile)}
	pids["its child"] = readPid(t, pidFile+".child")
	pids["its double-forked daemon"] = readPid(t, pidFile+".daemon")
	for _, pid := range pids {
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	for what, pid := range pids {
		if gone(pid) {
			t.Fatalf("%s (pid %d) ended before the driver was killed", what, pid)
		}
	}
	driver.Process.Kill()
	driver.Wait()
	for what, pid := range pids {
		waitFor(t, what+" of the killed driver to end", func() bool { return gone(pid) })
	}
}

// A new launcher kills what test JVMs of drivers that are no longer
// running left behind (a driver killed together with its JVMs'
// supervisors), found by their marker; processes of running drivers stay.
func TestNewLauncherKillsOrphans(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	start := func(driver int) *exec.Cmd {
		cmd := exec.Command("sleep", "3600")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d-1", markerEnv, driver))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	orphan, kept := start(dead.Process.Pid), start(os.Getpid())
	ended := make(chan struct{})
	go func() { orphan.Wait(); close(ended) }()
	fakeLauncher(t, "run", Options{})
	select {
	case <-ended:
	case <-time.After(time.Until(awaitBy(t))):
		t.Fatal("the orphan of a dead driver is still running")
	}
	if gone(kept.Process.Pid) {
		t.Error("a process of a running driver was killed")
	}
}

// An agent jar whose path holds '=' (a cache directory named so) is linked
// to a path that -javaagent can take; the JVM would otherwise cut the jar
// path at the '=' and fail to open it.
func TestAgentJarPathWithEquals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache=x,y")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(dir, "flaky-agent.jar")
	if err := os.WriteFile(jar, []byte("jar"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, "run")
	exe, _ := os.Executable()
	l, err := New(Env{Java: exe}, agent.Jars{Agent: jar, Runner: "/x/runner.jar"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var javaagent string
	args, err := l.command(1, agent.Options{Chaos: agent.ChaosOptions{Strategies: []string{"LOCALE"}}}, nil, "/tmp")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "-javaagent:"); ok {
			javaagent = v
		}
	}
	path, opts, _ := strings.Cut(javaagent, "=")
	if data, err := os.ReadFile(path); err != nil || string(data) != "jar" {
		t.Errorf("-javaagent:%s: the JVM would open %q (%v)", javaagent, path, err)
	}
	if opts != "port=1,chaos=LOCALE" {
		t.Errorf("agent options %q", opts)
	}
}
