package launcher

import (
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// minLoadInterval is the shortest time over which BusyJVMs measures a
// JVM's CPU use; a JVM measured more recently keeps its last verdict.
const minLoadInterval = 200 * time.Millisecond

// jvmSettle is how long a JVM counts as busy after its start: it keeps
// cores busy as it starts, whatever it does next.
const jvmSettle = 300 * time.Millisecond

// waitingCores is the CPU use, in cores, under which a JVM counts as
// waiting: a test that sleeps, a connect that times out.
const waitingCores = 0.25

// jvmLoad follows the CPU use of a launcher's running JVMs.
type jvmLoad struct {
	mu      sync.Mutex
	running map[int]*jvmUse // by pid
}

// jvmUse is what jvmLoad last measured of one JVM.
type jvmUse struct {
	start   time.Time
	at      time.Time     // of the last measurement; zero before the first
	cpu     time.Duration // the JVM's CPU time then
	waiting bool
}

// track follows the JVM with pid, started now, until untrack.
func (l *jvmLoad) track(pid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running == nil {
		l.running = map[int]*jvmUse{}
	}
	l.running[pid] = &jvmUse{start: time.Now()}
}

// untrack stops following the JVM with pid.
func (l *jvmLoad) untrack(pid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.running, pid)
}

// busy returns how many of the running JVMs keep a core busy: those that
// started less than jvmSettle ago, and those that used waitingCores or more
// since their last measurement (minLoadInterval or more ago; a younger one
// keeps its verdict). A JVM whose CPU time cannot be read (it is exiting,
// or the system does not say) counts as busy until it can.
func (l *jvmLoad) busy() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	now := time.Now()
	for pid, u := range l.running {
		if now.Sub(u.start) >= jvmSettle && (u.at.IsZero() || now.Sub(u.at) >= minLoadInterval) {
			if cpu, ok := cpuTime(pid); !ok {
				u.at, u.waiting = time.Time{}, false
			} else {
				if !u.at.IsZero() {
					u.waiting = float64(cpu-u.cpu) < waitingCores*float64(now.Sub(u.at))
				}
				u.at, u.cpu = now, cpu
			}
		}
		if !u.waiting {
			n++
		}
	}
	return n
}

// cpuTime returns the CPU time (user and system, all threads) of the
// process with pid so far.
func cpuTime(pid int) (time.Duration, bool) {
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return 0, false
	}
	t, err := p.Times()
	if err != nil {
		return 0, false
	}
	return time.Duration((t.User + t.System) * float64(time.Second)), true
}

// BusyJVMs returns how many of the launcher's running JVMs keep a core
// busy, the others waiting (see jvmLoad.busy): a caller that bounds its
// JVMs by the cores may start one more while fewer than its cores are busy.
func (l *Launcher) BusyJVMs() int { return l.load.busy() }
