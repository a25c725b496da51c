//go:build unix

package launcher

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownProcessGroup makes the command the leader of a new process group so
// that killGroup reaches every process it starts.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
