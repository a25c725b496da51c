package launcher

import (
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestJVMVerdicts checks how jvmLoad judges a JVM from two samples on a
// fake clock: by what it demanded (CPU time plus time waiting for a core),
// so that a JVM that computes on a machine whose cores other processes keep
// busy is busy, and only one blocked in sleeps or I/O waits.
func TestJVMVerdicts(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	sample := func(cpu time.Duration, delays ...time.Duration) schedSample {
		s := schedSample{cpu: cpu, delay: map[int]time.Duration{}}
		for i, d := range delays {
			s.delay[100+i] = d
		}
		return s
	}
	busy := func(s schedSample) schedSample { s.busy = 1; return s }
	tests := []struct {
		name        string
		first, then schedSample
		ok          bool // the second sample could be read
		gap         time.Duration
		waiting     bool
	}{
		{"sleeping", sample(ms(500), ms(10)), sample(ms(502), ms(10)), true, ms(200), true},
		{"computing on a quiet machine", sample(ms(500), 0), sample(ms(700), ms(1)), true, ms(200), false},
		{"computing while 16 processes spin", sample(ms(500), ms(10)), sample(ms(512), ms(198)), true, ms(200), false},
		{"a new thread that waits for a core", sample(ms(500), ms(10)), sample(ms(510), ms(10), ms(60)), true, ms(200), false},
		{"a thread gone", sample(ms(500), ms(10), ms(300)), sample(ms(502), ms(10)), true, ms(200), true},
		{"unreadable", sample(ms(500), ms(10)), schedSample{}, false, ms(200), false},
		{"too soon to judge", sample(ms(500), ms(10)), sample(ms(500), ms(10)), true, ms(20), false},
		{"a thread waiting for a core since before the interval", sample(ms(500), ms(10)), busy(sample(ms(500), ms(10))), true, ms(200), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &jvmUse{known: true, delay: map[int]time.Duration{}}
			at := time.Unix(1000, 0)
			u.observe(tt.first, true, at)
			if u.waiting {
				t.Fatal("waiting after one sample, want no verdict")
			}
			u.observe(tt.then, tt.ok, at.Add(tt.gap))
			if u.waiting {
				t.Fatal("waiting after one interval, want no verdict before two in a row")
			}
			// A second interval like the first gives the verdict.
			again := schedSample{cpu: 2*tt.then.cpu - tt.first.cpu, delay: map[int]time.Duration{}, busy: tt.then.busy}
			for tid, d := range tt.then.delay {
				again.delay[tid] = 2*d - tt.first.delay[tid]
			}
			u.observe(again, tt.ok, at.Add(2*tt.gap))
			if u.waiting != tt.waiting {
				t.Errorf("waiting = %v, want %v", u.waiting, tt.waiting)
			}
		})
	}
}

// TestJVMStallIsNotWaiting follows a JVM that computes, stalls for one
// interval (a page fault, a slow disk), computes, and stalls again: it
// never counts as waiting, since no two intervals in a row were under
// waitingCores; two stalled intervals in a row make it wait.
func TestJVMStallIsNotWaiting(t *testing.T) {
	u := &jvmUse{known: true, delay: map[int]time.Duration{}}
	at := time.Unix(1000, 0)
	cpu := time.Duration(0)
	step := func(used time.Duration) bool {
		cpu += used
		at = at.Add(loadInterval)
		u.observe(schedSample{cpu: cpu, delay: map[int]time.Duration{}}, true, at)
		return u.waiting
	}
	step(0)
	for i, used := range []time.Duration{loadInterval, 0, loadInterval, 0, loadInterval} {
		if step(used) {
			t.Fatalf("interval %d: waiting after a one-interval stall", i+1)
		}
	}
	step(0)
	if !step(0) {
		t.Error("not waiting after two stalled intervals in a row")
	}
}

// TestJVMLoadBesideSpinners follows a sleeping and a spinning process while
// eight more processes per core spin untracked: the tracked spinner gets
// a small share of a core, yet does not count as waiting; the sleeper does.
// It waits for verdicts (events), not for a time: the deadline only ends a
// broken run, and on a machine too slow to sample three times a minute the
// test fails saying so.
func TestJVMLoadBesideSpinners(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux says how long a thread waited for a core")
	}
	start := func(name string, args ...string) int {
		cmd := exec.Command(name, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	for range 8 * runtime.NumCPU() {
		start("sh", "-c", "while :; do :; done")
	}
	sleeper := start("sleep", "120")
	spinner := start("sh", "-c", "while :; do :; done")
	var l jvmLoad
	l.track(sleeper, false)
	l.track(spinner, false)
	l.testBoundary(sleeper, true) // both in the middle of a test
	l.testBoundary(spinner, true)
	deadline := time.Now().Add(time.Minute)
	for !(judgedTimes(&l, sleeper) >= 3 && judgedTimes(&l, spinner) >= 3) {
		if time.Now().After(deadline) {
			t.Fatal("fewer than three verdicts each in a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := l.waiting(); got != 1 {
		t.Fatalf("waiting with one process sleeping and one spinning among spinners = %d, want 1", got)
	}
	if _, known := l.untrack(spinner); !known {
		t.Error("the spinner's run-queue wait is unknown")
	}
	l.untrack(sleeper)
	if got := l.waiting(); got != 0 {
		t.Fatalf("waiting after the untracks = %d, want 0", got)
	}
}

// judgedTimes is how many intervals l has judged of the JVM with pid.
func judgedTimes(l *jvmLoad, pid int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u := l.running[pid]; u != nil {
		return u.judged
	}
	return 0
}

// TestStatState reads a thread's state from its stat line, whose command
// name may hold spaces and parentheses.
func TestStatState(t *testing.T) {
	tests := []struct {
		line string
		want byte
	}{
		{"2127 (java) R 1 2127 ...", 'R'},
		{"2131 (C2 CompilerThre) S 1 2131 ...", 'S'},
		{"7 (a) b) (c) D 1", 'D'},
		{"7 (java)", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := statState(tt.line); got != tt.want {
			t.Errorf("statState(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestBusyState: a thread running, waiting for a core or waiting for the
// disk keeps its JVM busy; one sleeping, stopped or a zombie does not.
func TestBusyState(t *testing.T) {
	for st, want := range map[byte]bool{'R': true, 'D': true, 'S': false, 'T': false, 'Z': false, 0: false} {
		if got := busyState(st); got != want {
			t.Errorf("busyState(%q) = %v, want %v", st, got, want)
		}
	}
}

// TestWaitingOnlyInATest follows a JVM that demands nothing, on a fake
// clock: starting, or between two tests (waiting for the disk, for flaky's
// driver, for its exit), it never counts as waiting; in the middle of a
// test it does after waitingIntervals intervals, judged anew from the
// test's start, and no longer from the test's end.
func TestWaitingOnlyInATest(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	tick := func(l *jvmLoad) {
		mu.Lock()
		now = now.Add(loadInterval)
		mu.Unlock()
		l.sample()
	}
	l := &jvmLoad{now: clock, read: func(int) (schedSample, bool) {
		return schedSample{cpu: time.Second, delay: map[int]time.Duration{1: 0}}, true
	}}
	l.track(7, false)
	for range 2 * waitingIntervals {
		tick(l)
	}
	if got := l.waiting(); got != 0 {
		t.Fatalf("before its first test: waiting %d, want 0", got)
	}
	l.testBoundary(7, true)
	for i := range waitingIntervals {
		if got := l.waiting(); got != 0 {
			t.Fatalf("%d interval(s) into its test: waiting %d, want 0 (judged anew from the test's start)", i, got)
		}
		tick(l)
	}
	tick(l)
	if got := l.waiting(); got != 1 {
		t.Fatalf("idle in the middle of a test: waiting %d, want 1", got)
	}
	l.testBoundary(7, false)
	for range 2 * waitingIntervals {
		if got := l.waiting(); got != 0 {
			t.Fatalf("between tests: waiting %d, want 0", got)
		}
		tick(l)
	}
	l.untrack(7)
}

// TestParseSchedstat reads the run-queue wait, the second field, of a
// thread's schedstat line.
func TestParseSchedstat(t *testing.T) {
	tests := []struct {
		line string
		want time.Duration
		ok   bool
	}{
		{"1019589307 264814 8\n", 264814, true},
		{"0 0 1", 0, true},
		{"1019589307", 0, false},
		{"1 -5 2", 0, false},
		{"a b c", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseSchedstat(tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseSchedstat(%q) = %v, %v; want %v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

// TestJVMCounts counts the JVMs a launcher started since a mark and the
// most that ran orders at once: a standby JVM counts once a run takes it.
func TestJVMCounts(t *testing.T) {
	l := &Launcher{}
	l.load.read = func(int) (schedSample, bool) { return schedSample{}, false }
	l.load.track(1, false)
	mark := l.MarkJVMs()
	l.load.track(2, true) // a standby JVM
	l.load.track(3, false)
	if started, peak := l.JVMsSince(mark); started != 2 || peak != 2 {
		t.Errorf("with a standby JVM waiting: started %d, peak %d; want 2, 2", started, peak)
	}
	l.load.mu.Lock()
	l.load.running[2].waiting = true // judged while it waited for its run
	l.load.mu.Unlock()
	if got := l.WaitingJVMs(); got != 0 {
		t.Errorf("waiting with a standby JVM waiting = %d, want 0 (it runs no order)", got)
	}
	l.load.claim(2)
	if _, peak := l.JVMsSince(mark); peak != 3 {
		t.Errorf("once a run took the standby JVM: peak %d, want 3", peak)
	}
	if got := l.WaitingJVMs(); got != 0 {
		t.Errorf("waiting once a run took the standby JVM = %d, want 0 (its wait for the run is no verdict on the run)", got)
	}
	for _, pid := range []int{1, 2, 3} {
		l.load.untrack(pid)
	}
	l.load.track(4, false)
	if started, peak := l.JVMsSince(l.MarkJVMs()); started != 0 || peak != 1 {
		t.Errorf("after a new mark: started %d, peak %d; want 0, 1", started, peak)
	}
	// A standby JVM started before a mark and taken by a run after it is
	// the marked work's (TestChaosBesideSpinners: 12 runs in 11 JVMs).
	l.load.track(5, true)
	mark = l.MarkJVMs()
	l.load.claim(5)
	if started, _ := l.JVMsSince(mark); started != 1 {
		t.Errorf("a standby JVM from before the mark, taken after it: started %d, want 1", started)
	}
}
