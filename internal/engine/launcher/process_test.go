package launcher

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
)

// The launcher tests below start this test binary as a fake "java": with
// FLAKY_FAKE_JVM set it answers -version, speaks the agent protocol like the
// real agent and runner would, and misbehaves as the scenario says.
const fakeEnv = "FLAKY_FAKE_JVM"

// leakEnv names a file where the fake JVM writes its pid and token, then
// waits for FILE.done: a stand-in for another local user who learns them.
const leakEnv = "FLAKY_FAKE_LEAK"

func TestMain(m *testing.M) {
	if scenario := os.Getenv(fakeEnv); scenario != "" {
		if order := os.Getenv(fakeDriverEnv); order != "" {
			os.Exit(fakeDriver(scenario, strings.Split(order, " ")))
		}
		os.Exit(fakeJVM(scenario, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeJVM plays one scenario and returns the exit status.
func fakeJVM(scenario string, args []string) int {
	if len(args) > 0 && args[len(args)-1] == "-version" { // the launcher's probe of the JVM
		fmt.Fprintln(os.Stderr, `openjdk version "17.0.15" 2025-04-15`)
		return 0
	}
	var port, chaos, orderFile, mode, tmpdir string
	var orderFiles []string
	standby := false
	token := os.Getenv(agent.TokenEnv)
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "-Djava.io.tmpdir="); ok {
			tmpdir = v
		}
		if opts, ok := strings.CutPrefix(a, "-javaagent:"); ok {
			_, opts, _ = strings.Cut(opts, "=")
			for _, kv := range strings.Split(opts, ",") {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "port":
					port = v
				case "token": // how drivers before the token moved to the environment passed it
					token = v
				case "chaos":
					chaos = v
				}
			}
		}
		if a == runnerMain && i+1 < len(args) {
			mode = args[i+1]
		}
		if a == "--standby" {
			standby = true
		}
		if a == "--order" && i+1 < len(args) {
			orderFile = args[i+1]
			orderFiles = append(orderFiles, orderFile)
		}
	}
	fmt.Println("fake JVM starting", scenario)
	if scenario == "impatient" {
		// Like the agent, which gives up waiting for its handshake's
		// answer after 10 s: this one gives up when its test says the
		// time ran out (SIGUSR1, see giveUp), never by itself, so that a
		// busy machine cannot make it give up.
		patience := make(chan os.Signal, 1)
		signal.Notify(patience, syscall.SIGUSR1)
		go func() {
			<-patience
			fmt.Fprintln(os.Stderr, "[flaky] no answer: gave up waiting for the driver")
			os.Exit(86)
		}()
	}
	if f := os.Getenv(pidFileEnv); f != "" {
		os.WriteFile(f+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o600)
		os.Rename(f+".tmp", f)
	}
	switch scenario {
	case "no-connect":
		fmt.Fprintln(os.Stderr, "Error: Could not find or load main class dev.flaky.runner.Main")
		return 1
	case "hang-before-connect":
		time.Sleep(time.Hour)
	case "wrong-token":
		token = "not-the-token"
	}
	conn, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Fprintln(os.Stderr, "[flaky] cannot connect:", err)
		return 86
	}
	var sending sync.Mutex
	send := func(m agent.Message) {
		sending.Lock()
		defer sending.Unlock()
		if err := agent.WriteMessage(conn, m); err != nil {
			panic(err)
		}
	}
	send(&agent.Hello{Protocol: agent.ProtocolVersion, Token: token, PID: int64(os.Getpid()), JavaVersion: "17"})
	if reply, err := agent.ReadMessage(conn); err != nil {
		fmt.Fprintln(os.Stderr, "[flaky] no answer:", err)
		return 86
	} else if r, ok := reply.(*agent.Reject); ok {
		fmt.Fprintln(os.Stderr, "[flaky] rejected:", r.Reason)
		return 86
	}
	if mode == "list" {
		send(&agent.Tests{Tests: []agent.TestDescriptor{{ID: "p.A#a", Class: "p.A", Method: "a", Engine: "junit4"}}})
		return 0
	}
	if mode == "warm" {
		return fakeWarm(scenario, send, orderFiles)
	}
	if standby {
		// Like the runner: a note as it loads the engines, then the
		// order file's path on a line of standard input.
		send(&agent.Log{Level: "info", Message: "standby " + chaos})
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil {
			return 0
		}
		orderFile = strings.TrimSuffix(line, "\n")
	}
	if scenario == "runner-fails" {
		send(&agent.Log{Level: "error", Message: "flaky runner failed: java.nio.charset.MalformedInputException: Input length = 1\n\tat Main.run\n"})
		send(&agent.Exit{Status: -1})
		return 1
	}
	f, err := os.Open(orderFile)
	if err != nil {
		panic(err)
	}
	var order []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			order = append(order, line)
		}
	}
	if leak := os.Getenv(leakEnv); leak != "" {
		// Tell the test who this JVM is and wait until its thief has tried.
		os.WriteFile(leak+".tmp", []byte(fmt.Sprintf("%d\n%s\n", os.Getpid(), token)), 0o600)
		os.Rename(leak+".tmp", leak)
		for _, err := os.Stat(leak + ".done"); err != nil; _, err = os.Stat(leak + ".done") {
			time.Sleep(50 * time.Millisecond)
		}
	}
	stopAt, asked := fakeHandoff(conn, order, send)
	send(&agent.RunStart{Count: len(order)})
	if scenario == "inject" {
		// The JVM's own connection reports a test that is not in the order.
		send(&agent.TestEnd{Test: "evil.Injected#test", Index: 0, Outcome: "pass"})
	}
	for i, test := range order {
		if stopAt(i) {
			send(&agent.RunEnd{Count: i})
			conn.Close()
			return 0
		}
		send(&agent.TestStart{Test: test, Index: i})
		_, method := testid.Split(test)
		switch {
		case method == "slow":
			time.Sleep(300 * time.Millisecond)
		case method == "handoff":
			<-asked // a test that runs until the driver asked for a handoff
		case method == "hang":
			time.Sleep(time.Hour)
		case method == "exit":
			send(&agent.Exit{Status: 3, Test: test, Class: testid.ClassOf(test), Stack: "at java.lang.System.exit(System.java:1)"})
			return 3
		case method == "oom":
			fmt.Fprintln(os.Stderr, "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space")
			return 1
		case method == "segv":
			fmt.Println("# A fatal error has been detected by the Java Runtime Environment")
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Hour)
		case method == "child":
			// A child that inherits stdout and would outlive the JVM.
			cmd := exec.Command("sleep", "3600")
			cmd.Stdout = os.Stdout
			if err := cmd.Start(); err != nil {
				panic(err)
			}
		case method == "setsid":
			// A daemon in its own session, out of the JVM's process group.
			cmd := exec.Command("sleep", "3600")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				panic(err)
			}
			os.WriteFile(os.Getenv(pidFileEnv)+".daemon", []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
		case method == "spawn":
			// A child in the JVM's process group, and a daemon that
			// double-forks into a session of its own with an empty
			// environment (out of reach of the group and the marker).
			child := exec.Command("sleep", "3600")
			if err := child.Start(); err != nil {
				panic(err)
			}
			daemon := exec.Command("/bin/sh", "-c", `sleep 3600 >/dev/null 2>&1 & printf %s $! >"$1"`, "sh", os.Getenv(pidFileEnv)+".daemon")
			daemon.Env = []string{}
			daemon.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := daemon.Run(); err != nil {
				panic(err)
			}
			os.WriteFile(os.Getenv(pidFileEnv)+".child", []byte(strconv.Itoa(child.Process.Pid)), 0o600)
		case method == "noisy":
			for j := 0; j < 10000; j++ {
				fmt.Printf("noise line %d\n", j)
			}
		}
		outcome, message := "pass", ""
		if method == "tempfiles" {
			// Like File.createTempFile, and a native tool using TMPDIR.
			for j, dir := range []string{tmpdir, os.Getenv("TMPDIR")} {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%d.tmp", j)), []byte("x"), 0o644); err != nil {
					outcome, message = "error", err.Error()
				}
			}
			if message == "" {
				message = tmpdir + "\n" + os.Getenv("TMPDIR")
			}
		}
		if log := os.Getenv(ranLogEnv); log != "" {
			f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				panic(err)
			}
			fmt.Fprintln(f, test)
			f.Close()
		}
		if method == "clash" {
			outcome, message = "error", "java.net.BindException: Address already in use"
		}
		if method == "escape" {
			message = fakeEscape(os.Getenv(escapeEnv))
		}
		if method == "perturbed" && chaos != "" {
			send(&agent.Perturbation{Test: test, Strategy: chaos, Group: "RANDOM", API: "java.util.Random#nextInt(int)", Class: testid.ClassOf(test), Method: method, File: "A.java", Line: 7})
			outcome = "fail"
		}
		send(&agent.TestEnd{Test: test, Index: i, Outcome: outcome, TimeMs: 1, Message: message})
		if method == "clash" {
			fakeClashWait(os.Getenv(ranLogEnv) + ".reported")
		}
		if scenario == "inject" {
			send(&agent.TestEnd{Test: test, Index: i, Outcome: "fail", TimeMs: 1})
		}
	}
	send(&agent.RunEnd{Count: len(order)})
	if scenario == "linger" {
		// A shutdown hook that never returns, or a non-daemon thread.
		time.Sleep(time.Hour)
	}
	conn.Close()
	return 0
}

// clashWaitEnv is how long the fake JVM waits after a clash at most.
const clashWaitEnv = "FLAKY_FAKE_CLASH_WAIT"

// fakeClashWait plays the rest of a real suite's work after a clash, time
// for a driver that stops at clashes to kill the JVM: it ends once the
// driver reported the clash instead (the test then writes the file
// reported), or at the latest after the time clashWaitEnv gives.
func fakeClashWait(reported string) {
	wait, _ := time.ParseDuration(os.Getenv(clashWaitEnv))
	for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(reported); err == nil {
			return
		}
	}
}

// fakeHandoff answers the driver's handoff commands as the runner does (see
// agent/PROTOCOL.md): the first class run at or after the asked entry that
// it has not begun, else the last one, -1 when none is left. The returned
// function says, before entry i, whether the JVM stops there (and begins
// entry i's class run when it does not); the channel is closed once the
// first command is answered.
func fakeHandoff(conn net.Conn, order []string, send func(agent.Message)) (func(i int) bool, <-chan struct{}) {
	var mu sync.Mutex
	asked := make(chan struct{})
	var answered sync.Once
	begun, stop := -1, len(order)
	starts := func() []int {
		var out []int
		for i := 1; i < len(order); i++ {
			if testid.ClassOf(order[i]) != testid.ClassOf(order[i-1]) {
				out = append(out, i)
			}
		}
		return out
	}()
	go func() {
		for {
			m, err := agent.ReadMessage(conn)
			if err != nil {
				return
			}
			h, ok := m.(*agent.Handoff)
			if !ok {
				continue
			}
			mu.Lock()
			at := -1
			for _, s := range starts {
				if s > begun && s < stop {
					at = s
					if s >= h.Index {
						break
					}
				}
			}
			if at >= 0 {
				stop = at
			}
			mu.Unlock()
			send(&agent.HandoffAt{At: at})
			answered.Do(func() { close(asked) })
		}
	}()
	return func(i int) bool {
		mu.Lock()
		defer mu.Unlock()
		if i >= stop {
			return true
		}
		if slices.Contains(starts, i) {
			begun = i
		}
		return false
	}, asked
}

// fakeWarm plays a warm JVM running the order files one after another: a
// test named exit ends it, one named fail fails; scenario warm-unfit stops
// after the first order as if that order left state it cannot reset.
func fakeWarm(scenario string, send func(agent.Message), files []string) int {
	ran := 0
	for k, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			panic(err)
		}
		order := strings.Fields(string(data))
		send(&agent.RunStart{Count: len(order)})
		for i, test := range order {
			send(&agent.TestStart{Test: test, Index: i})
			outcome := "pass"
			switch _, method := testid.Split(test); method {
			case "exit":
				send(&agent.Exit{Status: 3, Test: test, Class: testid.ClassOf(test)})
				return 3
			case "fail":
				outcome = "fail"
			}
			send(&agent.TestEnd{Test: test, Index: i, Outcome: outcome, TimeMs: 1})
		}
		send(&agent.RunEnd{Count: len(order)})
		ran++
		send(&agent.Log{Level: "info", Message: fmt.Sprintf("warm: after order %d of %d, reset system properties [p]", k+1, len(files))})
		if scenario == "warm-unfit" {
			send(&agent.Log{Level: "warn", Message: fmt.Sprintf("warm: done: 1 of %d orders ran; stopped after order 1 of %d, the file x changed; 0 of 1 order class loaders still reachable", len(files), len(files))})
			return 0
		}
	}
	send(&agent.Log{Level: "info", Message: fmt.Sprintf("warm: done: %d of %d orders ran; 0 of %d order class loaders still reachable", ran, len(files), ran)})
	return 0
}

func fakeLauncher(t *testing.T, scenario string, opts Options) *Launcher {
	t.Helper()
	t.Setenv(fakeEnv, scenario)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Env{Java: exe, Classpath: []string{"/nonexistent/test-classes"}}, agent.Jars{Agent: "/x/agent.jar", Runner: "/x/runner.jar"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func outcomes(r *Result) string {
	var parts []string
	for _, tr := range r.Tests {
		parts = append(parts, tr.Test+"="+string(tr.Outcome))
	}
	return strings.Join(parts, " ")
}

// TestRunWithFakeJVM plays each way a JVM can end. Its timeouts, and the
// bounds on a run that must not wait for a fake test's or stray child's
// hour, are the original ones or, when more, ample for the cost of a run
// measured here first: the work a timeout must let through (a fake JVM's
// start and p.A#a) is part of that run, so a busy machine that slows the
// work slows the control too.
func TestRunWithFakeJVM(t *testing.T) {
	cost := costOfARun(t)
	testTimeout, runTimeout := ample(500*time.Millisecond, cost), ample(3*time.Second, cost)
	tests := []struct {
		name     string
		order    []string
		opts     Options
		want     string
		wantMsg  string // in the message of the test that did not pass
		timedOut bool
		exit     Exit
		bounded  bool // the run ends within its timeouts and ample(20 s, cost): it did not wait for the hour a hung fake test sleeps
	}{
		{
			name:  "clean run",
			order: []string{"p.A#a", "p.B#b"},
			want:  "p.A#a=pass p.B#b=pass",
		},
		{
			name:     "test timeout",
			order:    []string{"p.A#a", "p.A#hang", "p.A#c"},
			opts:     Options{TestTimeout: testTimeout},
			want:     "p.A#a=pass p.A#hang=timeout p.A#c=not-run",
			wantMsg:  fmt.Sprintf("timed out after %s", testTimeout),
			timedOut: true,
			exit:     Exit{Status: -1, Signal: "SIGKILL"},
			bounded:  true,
		},
		{
			name:     "run timeout",
			order:    []string{"p.A#a", "p.A#hang"},
			opts:     Options{RunTimeout: runTimeout}, // time for the fake JVM to start and pass p.A#a
			want:     "p.A#a=pass p.A#hang=timeout",
			wantMsg:  fmt.Sprintf("the run timed out after %s", runTimeout),
			timedOut: true,
			exit:     Exit{Status: -1, Signal: "SIGKILL"},
			bounded:  true,
		},
		{
			name:    "System.exit",
			order:   []string{"p.A#a", "p.A#exit", "p.B#b"},
			want:    "p.A#a=pass p.A#exit=crash p.B#b=not-run",
			wantMsg: "System.exit(3) was called",
			exit:    Exit{Status: 3, SystemExit: true, Stack: "at java.lang.System.exit(System.java:1)"},
		},
		{
			name:    "JVM dies with output",
			order:   []string{"p.A#oom", "p.B#b"},
			want:    "p.A#oom=crash p.B#b=not-run",
			wantMsg: "the JVM died (exit status 1); output tail:\nfake JVM starting",
			exit:    Exit{Status: 1},
		},
		{
			name:    "JVM killed by a signal",
			order:   []string{"p.A#segv"},
			want:    "p.A#segv=crash",
			wantMsg: "killed by SIGKILL",
			exit:    Exit{Status: -1, Signal: "SIGKILL"},
		},
		{
			name:    "stray child holding the output does not block",
			order:   []string{"p.A#child", "p.A#b"},
			want:    "p.A#child=pass p.A#b=pass",
			bounded: true,
		},
		{
			name:  "output is bounded",
			order: []string{"p.A#noisy"},
			opts:  Options{OutputLimit: 1000},
			want:  "p.A#noisy=pass",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fakeLauncher(t, "run", tt.opts)
			began := time.Now()
			r, err := l.Run(context.Background(), tt.order)
			if err != nil {
				t.Fatal(err)
			}
			if got := outcomes(r); got != tt.want {
				t.Errorf("outcomes = %s, want %s\noutput:\n%s", got, tt.want, r.Output)
			}
			if tt.wantMsg != "" {
				found := false
				for _, tr := range r.Tests {
					found = found || strings.Contains(tr.Message, tt.wantMsg)
				}
				if !found {
					t.Errorf("no message contains %q: %+v", tt.wantMsg, r.Tests)
				}
			}
			if r.TimedOut != tt.timedOut {
				t.Errorf("TimedOut = %v, want %v", r.TimedOut, tt.timedOut)
			}
			if r.Exit != tt.exit {
				t.Errorf("Exit = %+v, want %+v", r.Exit, tt.exit)
			}
			if limit := tt.opts.TestTimeout + tt.opts.RunTimeout + ample(20*time.Second, cost); tt.bounded && time.Since(began) > limit {
				t.Errorf("took %s, want under %s", time.Since(began), limit)
			}
			if len(r.Output) > max(tt.opts.OutputLimit, DefaultOutputLimit)+100 {
				t.Errorf("output of %d bytes exceeds the limit", len(r.Output))
			}
			if !strings.Contains(r.Output, "fake JVM starting") {
				t.Errorf("output lacks the head: %q", r.Output)
			}
			if r.Duration <= 0 || !slices.Equal(r.Order, tt.order) {
				t.Errorf("Duration %s, Order %v", r.Duration, r.Order)
			}
		})
	}
}

func TestRunInfrastructureErrors(t *testing.T) {
	tests := []struct {
		scenario string
		opts     Options
		wantErr  []string
	}{
		{"no-connect", Options{}, []string{"never connected", "exit status 1", "Could not find or load main class"}},
		{"wrong-token", Options{}, []string{"never connected", "exit status 86", "[flaky] rejected: unknown token"}},
		// The fake JVM never connects: no timeout is too short for it.
		{"hang-before-connect", Options{RunTimeout: 500 * time.Millisecond}, []string{"never connected", "the run timed out after 500ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			attempts := countAttempts(t, nil)
			l := fakeLauncher(t, tt.scenario, tt.opts)
			_, err := l.Run(context.Background(), []string{"p.A#a"})
			if !errors.Is(err, errNotConnected) {
				t.Fatalf("err = %v, want errNotConnected", err)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			// A JVM flaky killed before it connected is not relaunched;
			// others are, up to connectAttempts JVMs in all.
			want := connectAttempts
			if tt.opts.RunTimeout > 0 {
				want = 1
			}
			if *attempts != want {
				t.Errorf("%d JVMs launched, want %d", *attempts, want)
			}
			if want > 1 && !strings.Contains(err.Error(), fmt.Sprintf("the last of %d JVMs in a row that did not connect", want)) {
				t.Errorf("error %q does not say how many JVMs failed", err)
			}
		})
	}
}

// countAttempts sets startedHook for the test: it counts the JVMs launched
// and calls slow, when not nil, with each attempt number and JVM.
func countAttempts(t *testing.T, slow func(attempt, pid int)) *int {
	t.Helper()
	var mu sync.Mutex
	n := new(int)
	startedHook = func(attempt, pid int) {
		mu.Lock()
		*n++
		mu.Unlock()
		if slow != nil {
			slow(attempt, pid)
		}
	}
	t.Cleanup(func() { startedHook = nil })
	return n
}

// giveUp plays a driver too slow to record the JVM of a first attempt: that
// JVM (scenario impatient), once ready, is told its patience ran out, and
// the driver gets to it only after it gave up waiting for its handshake's
// answer and exited. It writes its pid to the file of pidFileEnv, which
// the test sets. The hook runs on the test's goroutine.
func giveUp(t *testing.T) func(attempt, pid int) {
	pidFile := os.Getenv(pidFileEnv)
	return func(attempt, pid int) {
		if attempt != 1 {
			return
		}
		waitFor(t, "the impatient JVM ready", func() bool {
			data, _ := os.ReadFile(pidFile)
			return string(data) == strconv.Itoa(pid)
		})
		syscall.Kill(pid, syscall.SIGUSR1)
		waitFor(t, "the impatient JVM to give up", func() bool { return gone(pid) })
	}
}

// TestRelaunchUnderSlowDriver runs an order while the driver is too slow to
// record the first JVM it launches (the JVM gives up waiting for its
// handshake's answer and exits with the agent's failure status): the JVM is
// relaunched and the run has the results of an undisturbed one, plus a note.
func TestRelaunchUnderSlowDriver(t *testing.T) {
	t.Setenv(pidFileEnv, filepath.Join(t.TempDir(), "pid"))
	order := []string{"p.A#a", "p.A#perturbed", "p.B#b"}
	run := func(slow func(int, int)) (*Result, int) {
		attempts := countAttempts(t, slow)
		l := fakeLauncher(t, "impatient", Options{})
		r, err := l.RunWith(context.Background(), order, RunOptions{AgentOptions: agent.Options{Chaos: agent.ChaosOptions{Strategies: []string{"RANDOM_MAX"}}}})
		if err != nil {
			t.Fatal(err)
		}
		return r, *attempts
	}
	want, n := run(nil)
	if n != 1 {
		t.Fatalf("an undisturbed run launched %d JVMs", n)
	}
	got, n := run(giveUp(t))
	if n != 2 {
		t.Errorf("the slowed run launched %d JVMs, want 2", n)
	}
	if outcomes(got) != outcomes(want) || len(got.Perturbations) != len(want.Perturbations) || got.Exit != want.Exit {
		t.Errorf("slowed run: %s, %d perturbations, exit %+v; undisturbed: %s, %d, %+v",
			outcomes(got), len(got.Perturbations), got.Exit, outcomes(want), len(want.Perturbations), want.Exit)
	}
	if !slices.ContainsFunc(got.Notes, func(n string) bool {
		return strings.Contains(n, "did not connect") && strings.Contains(n, "exit status 86") && strings.Contains(n, "relaunched it (attempt 2 of 3)")
	}) {
		t.Errorf("no note of the relaunch: %q", got.Notes)
	}
}

// TestRelaunchedListAndWarm checks that listing and warm runs relaunch too.
func TestRelaunchedListAndWarm(t *testing.T) {
	t.Setenv(pidFileEnv, filepath.Join(t.TempDir(), "pid"))
	attempts := countAttempts(t, giveUp(t))
	l := fakeLauncher(t, "impatient", Options{})
	if tests, err := l.List(context.Background(), Selection{TestClassesDir: "/x"}); err != nil || len(tests) != 1 {
		t.Fatalf("List = %v, %v", tests, err)
	}
	if *attempts != 2 {
		t.Errorf("List launched %d JVMs, want 2", *attempts)
	}
	*attempts = 0
	results, err := l.RunWarm(context.Background(), [][]string{{"p.A#a"}, {"p.B#fail"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(results[0]) + " " + outcomes(results[1]); got != "p.A#a=pass p.B#fail=fail" || !results[0].Warm {
		t.Errorf("warm results = %s (warm %v)", got, results[0].Warm)
	}
	if *attempts != 2 {
		t.Errorf("RunWarm launched %d JVMs, want 2", *attempts)
	}
}

// A cancelled run ends at once: it does not wait for the hour its hung test
// sleeps. At once is within ample(20 s) of what a whole run costs here now.
func TestRunCancelled(t *testing.T) {
	cost := costOfARun(t)
	l := fakeLauncher(t, "run", Options{})
	const after = 500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), after)
	defer cancel()
	began := time.Now()
	_, err := l.Run(ctx, []string{"p.A#hang"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's error", err)
	}
	if d, limit := time.Since(began), after+ample(20*time.Second, cost); d > limit {
		t.Errorf("cancelled run took %s, want under %s", d, limit)
	}
}

func TestRunAllKeepsInputOrder(t *testing.T) {
	l := fakeLauncher(t, "run", Options{Workers: 3})
	var orders [][]string
	for i := 0; i < 7; i++ {
		orders = append(orders, []string{fmt.Sprintf("p.C%d#a", i), fmt.Sprintf("p.C%d#b", i)})
	}
	results, err := l.RunAll(context.Background(), orders)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		want := fmt.Sprintf("p.C%d#a=pass p.C%d#b=pass", i, i)
		if got := outcomes(r); got != want {
			t.Errorf("result %d = %s, want %s", i, got, want)
		}
	}
}

func TestRunAllStopsOnError(t *testing.T) {
	l := fakeLauncher(t, "no-connect", Options{Workers: 2})
	_, err := l.RunAll(context.Background(), [][]string{{"p.A#a"}, {"p.A#b"}, {"p.A#c"}})
	if !errors.Is(err, errNotConnected) {
		t.Errorf("err = %v, want errNotConnected", err)
	}
}

func TestList(t *testing.T) {
	l := fakeLauncher(t, "run", Options{})
	got, err := l.List(context.Background(), Selection{TestClassesDir: "/x", Includes: []string{"**/*IT.java"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []TestInfo{{ID: "p.A#a", Class: "p.A", Method: "a", Engine: "junit4"}}; !slices.Equal(got, want) {
		t.Errorf("List = %+v, want %+v", got, want)
	}
}

func TestCommand(t *testing.T) {
	l := &Launcher{
		env: Env{
			JVMArgs:  []string{"-Xmx256m", "--add-opens=java.base/java.lang=ALL-UNNAMED"},
			SysProps: map[string]string{"b": "2", "a": "x y"},
		},
		jars:   agent.Jars{Agent: "/c/flaky-agent.jar", Runner: "/c/flaky-runner.jar"},
		cpArgs: []string{"-cp", "/p/test-classes:/c/flaky-runner.jar"},
	}
	opts := agent.Options{Chaos: agent.ChaosOptions{Strategies: []string{"RANDOM_MAX", "LOCALE"}, Params: []agent.Param{{Key: "chaos.seed", Value: "3"}}}}
	got, err := l.command(4321, opts, []string{"run", "--order", "/tmp/o.txt"}, "/r/jvm-1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"-Xmx256m", "--add-opens=java.base/java.lang=ALL-UNNAMED",
		"-Da=x y", "-Db=2", "-Djava.io.tmpdir=/r/jvm-1",
		"-javaagent:/c/flaky-agent.jar=port=4321,chaos=RANDOM_MAX+LOCALE,chaos.seed=3",
		"-cp", "/p/test-classes:/c/flaky-runner.jar",
		"dev.flaky.runner.Main", "run", "--order", "/tmp/o.txt",
	}
	if !slices.Equal(got, want) {
		t.Errorf("command:\n got %q\nwant %q", got, want)
	}
	if got, _ := l.command(4321, opts, []string{"list", "--test-classes", "/p/test-classes"}, "/r/jvm-1"); !slices.Contains(got, fastStartArg) {
		t.Errorf("a JVM that only lists tests starts without %s: %q", fastStartArg, got)
	}
	l.env.SysProps["java.io.tmpdir"] = "/module/tmp"
	if got, _ := l.command(4321, agent.Options{}, nil, "/r/jvm-1"); slices.Contains(got, "-Djava.io.tmpdir=/r/jvm-1") {
		t.Errorf("overrides the module's java.io.tmpdir: %q", got)
	}
}

// TestTempFilesRemoved checks that each JVM gets its own java.io.tmpdir and
// TMPDIR under Options.TmpDir, removed after the run unless kept.
func TestTempFilesRemoved(t *testing.T) {
	root := t.TempDir()
	l := fakeLauncher(t, "run", Options{TmpDir: root})
	r, err := l.Run(context.Background(), []string{"p.A#tempfiles"})
	if err != nil {
		t.Fatal(err)
	}
	dirs := strings.Split(r.Tests[0].Message, "\n")
	if r.Tests[0].Outcome != Pass || len(dirs) != 2 || dirs[0] != dirs[1] || filepath.Dir(dirs[0]) != root {
		t.Fatalf("the test wrote its temp files to %q (%s), want one directory under %s", dirs, r.Tests[0].Outcome, root)
	}
	if left, _ := os.ReadDir(root); len(left) != 0 || r.TmpDir != "" {
		t.Errorf("left behind %v (TmpDir %q)", left, r.TmpDir)
	}

	r, err = l.RunWith(context.Background(), []string{"p.A#tempfiles"}, RunOptions{KeepTmp: true})
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := os.ReadDir(r.TmpDir)
	if r.TmpDir != strings.Split(r.Tests[0].Message, "\n")[0] || len(kept) != 2 {
		t.Errorf("kept %q with %d files, want the JVM's temp dir with its 2 files", r.TmpDir, len(kept))
	}
}

func TestRunJobsAgentOptions(t *testing.T) {
	l := fakeLauncher(t, "run", Options{Workers: 2})
	order := []string{"p.A#a", "p.A#perturbed"}
	res, err := l.RunJobs(context.Background(), []Job{
		{Order: order},
		{Order: order, RunOptions: RunOptions{AgentOptions: agent.Options{Chaos: agent.ChaosOptions{Strategies: []string{"RANDOM_MAX"}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Tests[1].Outcome; got != Pass || len(res[0].Perturbations) != 0 {
		t.Errorf("unperturbed run: outcome %s, perturbations %v; want pass and none", got, res[0].Perturbations)
	}
	want := []agent.Perturbation{{Test: "p.A#perturbed", Strategy: "RANDOM_MAX", Group: "RANDOM", API: "java.util.Random#nextInt(int)", Class: "p.A", Method: "perturbed", File: "A.java", Line: 7}}
	if got := res[1].Tests[1].Outcome; got != Fail || !slices.Equal(res[1].Perturbations, want) {
		t.Errorf("perturbed run: outcome %s, perturbations %+v; want fail and %+v", got, res[1].Perturbations, want)
	}
}

func TestRunRejectsInvalidAgentOptions(t *testing.T) {
	l := fakeLauncher(t, "run", Options{})
	bad := agent.Options{Chaos: agent.ChaosOptions{Strategies: []string{"RANDOM_MAX"}, Params: []agent.Param{{Key: "chaos.a", Value: "1,b=2"}}}}
	if _, err := l.RunWith(context.Background(), []string{"p.A#a"}, RunOptions{AgentOptions: bad}); err == nil {
		t.Error("RunWith accepted an agent option value with a comma")
	}
}
