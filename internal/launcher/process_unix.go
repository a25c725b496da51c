//go:build unix

package launcher

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownProcessGroup makes the command the leader of a new process group so
// that killGroup reaches every process it starts, and ends it with its parent
// where the platform allows.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// alive reports whether a process with this pid exists (of any user).
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// killGroup kills the process group led by p.
func killGroup(p *os.Process) {
	_ = unix.Kill(-p.Pid, unix.SIGKILL)
}

// exitStatus returns the exit status and, when a signal ended the process, its name.
func exitStatus(state *os.ProcessState) (int, string) {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return state.ExitCode(), ""
}
