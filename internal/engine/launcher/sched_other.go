//go:build !linux

package launcher

// readSched reports false: only Linux says how long a process's threads
// waited for a core, so elsewhere no JVM counts as waiting (jvmLoad).
func readSched(pid int) (schedSample, bool) { return schedSample{}, false }
