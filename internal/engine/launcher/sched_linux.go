package launcher

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// readSched samples the process with pid: its CPU time (user and system,
// ended threads included) and, from each thread's
// /proc/PID/task/TID/schedstat, how long it was ready to run but waited
// for a core. It reports false when either cannot be read (the process is
// exiting, or the kernel keeps no scheduler statistics).
func readSched(pid int) (schedSample, bool) {
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return schedSample{}, false
	}
	t, err := p.Times()
	if err != nil {
		return schedSample{}, false
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return schedSample{}, false
	}
	s := schedSample{cpu: time.Duration((t.User + t.System) * float64(time.Second)), delay: make(map[int]time.Duration, len(tasks))}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/schedstat", pid, tid))
		if err != nil {
			continue // the thread ended meanwhile
		}
		if d, ok := parseSchedstat(string(data)); ok {
			s.delay[tid] = d
		}
		// The kernel adds a wait for a core to the thread's schedstat only
		// once the thread gets one: a thread waiting now shows as runnable
		// ('R'); one waiting for the disk ('D') waits for the machine.
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid)); err == nil {
			if busyState(statState(string(stat))) {
				s.busy++
			}
		}
	}
	return s, len(s.delay) > 0
}
