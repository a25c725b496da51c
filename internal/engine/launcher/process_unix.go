//go:build unix

package launcher

import (
	"bufio"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// jvmProcess is a started test JVM.
type jvmProcess struct {
	// pid is the JVM's, which leads its own process group.
	pid int
	// report, when set, reads what the JVM's supervisor reports (file).
	report *bufio.Reader
	file   *os.File
	// killed names the processes the supervisor killed after the JVM
	// exited; signal the signal that ended the JVM, where the supervisor
	// reports it (finish fills both in).
	killed []string
	signal string
}

// alive reports whether a process with this pid exists (of any user).
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// killGroup kills the process group led by pid.
func killGroup(pid int) {
	_ = unix.Kill(-pid, unix.SIGKILL)
}

// exitStatus returns the exit status and, when a signal ended the process, its name.
func exitStatus(state *os.ProcessState) (int, string) {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return state.ExitCode(), ""
}
