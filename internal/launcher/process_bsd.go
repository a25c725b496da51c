//go:build unix && !linux

package launcher

import (
	"os"
	"syscall"
)

// dieWithParent does nothing where there is no parent-death signal; the
// agent ends the JVM when its connection to the driver closes.
func dieWithParent(*syscall.SysProcAttr) {}

// killMarked finds no processes without /proc; killing the JVM's process
// group remains.
func killMarked(string) []string { return nil }

// maxRSS is the peak resident memory of an ended process in bytes.
func maxRSS(state *os.ProcessState) int64 {
	if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// AvailableMemory is unknown without /proc: 0.
func AvailableMemory() int64 { return 0 }
