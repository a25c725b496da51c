package launcher

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// killMarked kills every process of this user whose environment holds
// marker (KEY=VALUE): the processes a test JVM started, also those that left
// its process group (setsid). It returns "pid (command)" for each.
func killMarked(marker string) []string {
	return killByEnv(func(value string) bool { return markerEnv+"="+value == marker })
}

// killOrphaned kills every process of this user that a test JVM of a
// driver that is no longer running started, by the driver's pid in its
// marker: what is left when a driver and its JVMs' supervisors were killed
// together. It returns "pid (command)" for each.
func killOrphaned() []string {
	return killByEnv(func(value string) bool {
		driver, _, _ := strings.Cut(value, "-")
		pid, err := strconv.Atoi(driver)
		return err == nil && pid > 0 && pid != os.Getpid() && !alive(pid)
	})
}

// killByEnv kills every process of this user whose environment has a
// markerEnv variable whose value match accepts.
func killByEnv(match func(value string) bool) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	key := []byte(markerEnv + "=")
	var killed []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, key) {
			continue
		}
		marked := false
		for _, kv := range bytes.Split(env, []byte{0}) {
			if value, ok := bytes.CutPrefix(kv, key); ok && match(string(value)) {
				marked = true
			}
		}
		if !marked || unix.Kill(pid, unix.SIGKILL) != nil {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		killed = append(killed, fmt.Sprintf("%d (%s)", pid, strings.TrimSpace(string(comm))))
	}
	return killed
}

// maxRSS is the peak resident memory of an ended process in bytes (Linux
// counts it in KiB).
func maxRSS(state *os.ProcessState) int64 {
	if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10
	}
	return 0
}

// AvailableMemory is the memory the kernel says new processes can use
// without swapping (MemAvailable), in bytes; 0 when unknown.
func AvailableMemory() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
