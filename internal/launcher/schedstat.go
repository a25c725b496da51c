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
