package launcher

import (
	"sync"
	"time"
)

// loadInterval is how often jvmLoad samples the running JVMs, and the
// shortest time over which it judges one.
const loadInterval = 200 * time.Millisecond

// waitingCores is the demand, in cores, under which a JVM counts as
// waiting: a test that sleeps, a connect that times out.
const waitingCores = 0.25

// waitingIntervals is how many intervals in a row a JVM's demand must stay
// under waitingCores before it counts as waiting: a JVM that waits (a
// sleep made longer, a connect made slow) does so for seconds, while one
// that computes can stall for a moment on a busy machine (a page fault, a
// write the disk is slow to take, a reply from flaky itself) and must not
// make room for another.
const waitingIntervals = 2

// jvmLoad follows what a launcher's running JVMs demand of the cores: the
// CPU time their threads used plus the time they were ready to run but
// waited for a core (the run queue). That sum does not shrink when other
// processes keep the cores busy: a JVM that computes demands a core
// whether it gets one or not, and only one blocked in a sleep, a timed
// wait or I/O demands less. Where the system does not say how long
// threads waited for a core, no JVM ever counts as waiting.
type jvmLoad struct {
	// read samples a process (readSched; tests replace it), and now is
	// the clock (time.Now).
	read func(pid int) (schedSample, bool)
	now  func() time.Time

	mu       sync.Mutex
	running  map[int]*jvmUse // by pid
	sampling bool            // the sampling goroutine runs
	started  int             // JVMs tracked so far
	peak     int             // most JVMs running an order at once since the last mark
}

// schedSample is what the system says of one process at one moment.
type schedSample struct {
	cpu   time.Duration         // CPU time of the process so far, ended threads included
	delay map[int]time.Duration // by thread: time spent ready to run but waiting for a core
	// busy is how many threads run, wait for a core or wait for the
	// disk now: a wait for a core still going on is not in delay yet, and
	// a wait for the disk is the machine's, not the test's.
	busy int
}

// jvmUse is what jvmLoad saw of one JVM.
type jvmUse struct {
	last    schedSample
	at      time.Time // of last; zero before the first sample
	known   bool      // every sample so far could be read
	waiting bool      // the verdict: the last waitingIntervals intervals were all under waitingCores
	below   int       // intervals in a row, up to the last, under waitingCores
	judged  int       // intervals judged so far
	delay   map[int]time.Duration
	standby bool // started ahead of its run, which has not taken it yet
	tests   int  // tests it runs now: started, not yet ended
}

// clock returns l's clock.
func (l *jvmLoad) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// track follows the JVM with pid until untrack, sampling it every
// loadInterval; standby says it waits for its run (see claim).
func (l *jvmLoad) track(pid int, standby bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running == nil {
		l.running = map[int]*jvmUse{}
	}
	l.running[pid] = &jvmUse{known: true, delay: map[int]time.Duration{}, standby: standby}
	l.started++
	l.notePeak()
	if !l.sampling {
		l.sampling = true
		go l.sampleWhileRunning()
	}
}

// claim notes that a run took the standby JVM with pid, which counts as
// busy until two samples of its run judge it.
func (l *jvmLoad) claim(pid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u := l.running[pid]; u != nil {
		// Its wait for the run says nothing of the run: judged anew.
		u.standby, u.waiting, u.below, u.at = false, false, 0, time.Time{}
		l.notePeak()
	}
}

// testBoundary notes that the JVM with pid started a test (started) or
// ended one: a JVM counts as waiting only in the middle of a test, judged
// anew from each boundary, since what it did before says nothing of the
// test now running.
func (l *jvmLoad) testBoundary(pid int, started bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.running[pid]
	if u == nil {
		return
	}
	if started {
		u.tests++
	} else {
		u.tests = max(u.tests-1, 0)
	}
	u.waiting, u.below, u.at = false, 0, time.Time{}
}

// notePeak updates the most JVMs running an order at once; l.mu is held.
func (l *jvmLoad) notePeak() {
	n := 0
	for _, u := range l.running {
		if !u.standby {
			n++
		}
	}
	l.peak = max(l.peak, n)
}

// untrack stops following the JVM with pid and returns how long its
// threads waited for a core in all, as far as the samples saw; known is
// false when the system did not say.
func (l *jvmLoad) untrack(pid int) (delay time.Duration, known bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.running[pid]
	if !ok {
		return 0, false
	}
	delete(l.running, pid)
	for _, d := range u.delay {
		delay += d
	}
	return delay, u.known && !u.at.IsZero()
}

// sampleWhileRunning samples the tracked JVMs every loadInterval until
// none is tracked.
func (l *jvmLoad) sampleWhileRunning() {
	t := time.NewTicker(loadInterval)
	defer t.Stop()
	for range t.C {
		if !l.sample() {
			return
		}
	}
}

// sample reads every tracked JVM once and judges those sampled before;
// it reports whether any is tracked (false ends the sampling).
func (l *jvmLoad) sample() bool {
	l.mu.Lock()
	pids := make([]int, 0, len(l.running))
	for pid := range l.running {
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		l.sampling = false
	}
	l.mu.Unlock()
	if len(pids) == 0 {
		return false
	}
	read := l.read
	if read == nil {
		read = readSched
	}
	for _, pid := range pids {
		s, ok := read(pid)
		now := l.clock()
		l.mu.Lock()
		if u := l.running[pid]; u != nil {
			u.observe(s, ok, now)
		}
		l.mu.Unlock()
	}
	return true
}

// observe takes sample s of the JVM (ok: it could be read) taken at now.
func (u *jvmUse) observe(s schedSample, ok bool, now time.Time) {
	if !ok {
		// Exiting, or the system does not say: no verdict until it can.
		u.known, u.waiting, u.below = u.known && !u.at.IsZero(), false, 0
		return
	}
	if !u.at.IsZero() {
		if now.Sub(u.at) < loadInterval/2 {
			return // too soon after the last one to judge
		}
		u.below++
		if s.busy > 0 || demand(u.last, s) >= waitingCores*float64(now.Sub(u.at)) {
			u.below = 0
		}
		u.waiting = u.below >= waitingIntervals
		u.judged++
	}
	for tid, d := range s.delay {
		u.delay[tid] = d
	}
	u.last, u.at = s, now
}

// demand returns the CPU time the process used between samples from and
// to plus the time its threads waited for a core meanwhile, in
// nanoseconds. A thread new in to waited only since from.
func demand(from, to schedSample) float64 {
	d := to.cpu - from.cpu
	for tid, delay := range to.delay {
		d += delay - from.delay[tid]
	}
	return float64(d)
}

// waiting returns how many of the JVMs running orders provably wait: in
// the middle of a test, their demand over each of the last
// waitingIntervals intervals was under waitingCores. A JVM being started,
// between tests, or sampled too few times since it started, a run took it
// or its test began, does not.
func (l *jvmLoad) waiting() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, u := range l.running {
		if u.waiting && !u.standby && u.tests > 0 {
			n++
		}
	}
	return n
}

// WaitingJVMs returns how many of the launcher's JVMs running orders
// provably wait, blocked in sleeps, timed waits or I/O (see jvmLoad): a
// caller that bounds its busy JVMs by the cores may start one more while
// its JVMs less those waiting are fewer than the cores. Other processes'
// load does not change it; where the system cannot say, it is 0.
func (l *Launcher) WaitingJVMs() int { return l.load.waiting() }

// JVMMark is a point in a launcher's life that JVMsSince counts from.
type JVMMark struct{ started int }

// MarkJVMs returns a mark for JVMsSince, and from now on counts the most
// JVMs running at once anew. A standby JVM already started and waiting for
// a run counts as started after the mark: the run that takes it is the
// marked work's.
func (l *Launcher) MarkJVMs() JVMMark {
	l.load.mu.Lock()
	defer l.load.mu.Unlock()
	l.load.peak = 0
	l.load.notePeak()
	standby := 0
	for _, u := range l.load.running {
		if u.standby {
			standby++
		}
	}
	return JVMMark{started: l.load.started - standby}
}

// JVMsSince returns how many test JVMs the launcher started since mark
// (standby JVMs, resumptions and handoffs included) and the most that ran
// orders at once meanwhile (a standby JVM counts once a run takes it):
// figures that other processes' load must not change.
func (l *Launcher) JVMsSince(mark JVMMark) (started, peak int) {
	l.load.mu.Lock()
	defer l.load.mu.Unlock()
	return l.load.started - mark.started, l.load.peak
}
