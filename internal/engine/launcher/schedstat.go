package launcher

import (
	"strconv"
	"strings"
	"time"
)

// parseSchedstat reads the run-queue wait out of a thread's schedstat
// line ("on-CPU ns, waiting-for-a-core ns, time slices"; see the kernel's
// Documentation/scheduler/sched-stats.rst).
func parseSchedstat(line string) (time.Duration, bool) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || ns < 0 {
		return 0, false
	}
	return time.Duration(ns), true
}

// statState returns the state letter of a /proc/PID/task/TID/stat line
// ('R' running or waiting for a core, 'S' sleeping, ...), the field after
// the parenthesised command name, which may itself hold spaces and
// parentheses; 0 when there is none.
func statState(line string) byte {
	i := strings.LastIndexByte(line, ')')
	if i < 0 || i+2 >= len(line) {
		return 0
	}
	return line[i+2]
}

// busyState reports whether a thread in state st (statState) keeps its
// process busy: running or waiting for a core ('R'), or waiting for the
// disk ('D'), which is the machine's wait, not the test's.
func busyState(st byte) bool { return st == 'R' || st == 'D' }
