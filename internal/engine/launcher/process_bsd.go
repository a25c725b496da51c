//go:build unix && !linux

package launcher

import (
	"os"
	"os/exec"
	"syscall"
)

// startJVM starts cmd as the leader of a new process group, so that
// killGroup reaches every process it starts that stays in the group. There
// is no parent-death signal nor child subreaper here: the agent ends the JVM
// when its connection to the driver closes, but what the JVM started
// outlives a driver that was killed.
func startJVM(cmd *exec.Cmd, jl *jail) (*jvmProcess, error) {
	if jl != nil {
		return nil, errNoConfinement
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &jvmProcess{pid: cmd.Process.Pid}, nil
}

// finish has nothing to read without a supervisor.
func (*jvmProcess) finish() {}

// killMarked finds no processes without /proc; killing the JVM's process
// group remains.
func killMarked(string) []string { return nil }

// killOrphaned finds no processes without /proc.
func killOrphaned() []string { return nil }

// maxRSS is the peak resident memory of an ended process in bytes.
func maxRSS(state *os.ProcessState) int64 {
	if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// AvailableMemory is unknown without /proc: 0.
func AvailableMemory() int64 { return 0 }
