package launcher

import (
	"runtime"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
)

// IdleMeter measures the machine's idle cores: how many of its cores no
// process kept busy since a mark. JVMs that wait (a test that sleeps, a
// connect that times out) leave cores idle that another JVM can use; the
// machine's count sees every process, flaky's JVMs and others alike.
type IdleMeter struct {
	mu    sync.Mutex
	at    time.Time // of the mark
	idle  float64   // the mark's idle seconds, all cores
	total float64   // and its seconds, all cores
}

// MinIdleInterval is the shortest time after a mark over which IdleCores
// measures.
const MinIdleInterval = 200 * time.Millisecond

// Mark starts a measurement now: IdleCores measures from here.
func (m *IdleMeter) Mark() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.at, m.idle, m.total = time.Time{}, 0, 0
	if idle, total, ok := cpuTimes(); ok {
		m.at, m.idle, m.total = time.Now(), idle, total
	}
}

// IdleCores returns the cores that were idle since the mark, and marks
// again; false, and no new mark, when the mark is younger than
// MinIdleInterval, there is none, or the machine does not say.
func (m *IdleMeter) IdleCores() (float64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.at.IsZero() || time.Since(m.at) < MinIdleInterval {
		return 0, false
	}
	idle, total, ok := cpuTimes()
	if !ok || total <= m.total {
		return 0, false
	}
	cores := (idle - m.idle) / (total - m.total) * float64(runtime.NumCPU())
	m.at, m.idle, m.total = time.Now(), idle, total
	return cores, true
}

// cpuTimes returns the machine's idle and total CPU seconds, all cores.
func cpuTimes() (idle, total float64, ok bool) {
	times, err := cpu.Times(false)
	if err != nil || len(times) == 0 {
		return 0, 0, false
	}
	t := times[0]
	return t.Idle + t.Iowait, t.Total(), true
}
