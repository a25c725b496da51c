package launcher

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// superviseEnv, in the environment of a copy of this program, makes it the
// supervisor of one test JVM (see supervise); its value is the JVM's
// executable.
const superviseEnv = "FLAKY_SUPERVISE_JVM"

// supervisorName is the supervisor's command name (at most 15 bytes).
const supervisorName = "flaky-supervise"

// reportTimeout bounds the wait for the supervisor to report the JVM's pid.
const reportTimeout = 30 * time.Second

func init() {
	if path, ok := os.LookupEnv(superviseEnv); ok {
		os.Exit(supervise(path))
	}
}

// startJVM starts cmd through a supervisor, a copy of this program that
// starts the JVM as the leader of a new process group and is the child
// subreaper of everything the JVM starts: whatever of it is left when the
// JVM exits, or when flaky dies (the supervisor gets a parent-death
// signal), it kills, also processes that left the JVM's process group or
// session. The supervisor exits with the JVM's status.
//
// With a jail, the supervisor starts in the jail's namespaces and confines
// the JVM (see confine_linux.go); the pid it reports is the JVM's in this
// process's namespace all the same.
func startJVM(cmd *exec.Cmd, jl *jail) (*jvmProcess, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create the supervisor's pipe: %w", err)
	}
	defer pw.Close()
	cmd.Env = append(cmd.Env, superviseEnv+"="+cmd.Path)
	cmd.Path = "/proc/self/exe"
	cmd.ExtraFiles = []*os.File{pw}
	// Its own process group keeps the terminal's signals away from it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if jl != nil {
		if err := jl.prepare(cmd); err != nil {
			pr.Close()
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		pr.Close()
		return nil, err
	}
	pw.Close()
	j := &jvmProcess{report: bufio.NewReader(pr), file: pr}
	_ = pr.SetReadDeadline(time.Now().Add(reportTimeout))
	line, err := j.report.ReadString('\n')
	kind, value, _ := strings.Cut(strings.TrimSpace(line), " ")
	if pid, perr := strconv.Atoi(value); kind == "pid" && perr == nil {
		j.pid = pid
		return j, nil
	}
	pr.Close()
	if kind != "error" {
		_ = cmd.Process.Kill()
		value = fmt.Sprintf("the test JVM's supervisor reported %q (%v)", line, err)
	}
	_ = cmd.Wait()
	return nil, errors.New(value)
}

// finish reads what the supervisor reported after the JVM exited: the
// processes it killed, and the signal that ended the JVM.
func (j *jvmProcess) finish() {
	if j.file == nil {
		return
	}
	defer j.file.Close()
	_ = j.file.SetReadDeadline(time.Now().Add(outputGrace))
	for {
		line, err := j.report.ReadString('\n')
		kind, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch kind {
		case "killed":
			j.killed = append(j.killed, value)
		case "signal":
			if n, err := strconv.Atoi(value); err == nil {
				j.signal = unix.SignalName(syscall.Signal(n))
			}
		}
		if err != nil {
			return
		}
	}
}

// supervise runs the JVM at path with this process's arguments and
// reports to file descriptor 3: "pid N" once it started (or "error ..."),
// then "killed PID (COMMAND)" for each process it left that the supervisor
// killed, and "signal N" when a signal ended it. It returns the JVM's exit
// status. When the parent dies first, it kills the JVM and all it started.
func supervise(path string) int {
	// The JVM's parent-death signal follows the thread that started it.
	runtime.LockOSThread()
	report := os.NewFile(3, "report")
	syscall.CloseOnExec(3)
	os.Unsetenv(superviseEnv)
	if name, err := unix.BytePtrFromString(supervisorName); err == nil {
		_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(name)), 0, 0, 0)
	}
	// Orphans among the JVM's descendants become this process's children.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	parentGone := make(chan os.Signal, 1)
	signal.Notify(parentGone, syscall.SIGTERM)
	parent := os.Getppid()

	jvm := &exec.Cmd{
		Path: path, Args: os.Args,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	var hostProc *os.File // the driver's /proc, in a sandbox
	drain := func() {}    // waits for the agent's relay, in a sandbox
	if spec, ok := os.LookupEnv(confineEnv); ok {
		os.Unsetenv(confineEnv)
		var err error
		if hostProc, drain, err = confineSupervised(spec, jvm); err != nil {
			fmt.Fprintf(report, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			return 127
		}
		defer hostProc.Close()
	}
	if err := jvm.Start(); err != nil {
		fmt.Fprintf(report, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return 127
	}
	pid := jvm.Process.Pid
	if hostProc != nil {
		// Before the JVM is reaped, so that it is still there to find.
		var err error
		if pid, err = hostPIDIn(hostProc, pid); err != nil {
			_ = jvm.Process.Kill()
			fmt.Fprintf(report, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			return 127
		}
		hostProc.Close()
	}
	fmt.Fprintf(report, "pid %d\n", pid)
	waited := make(chan struct{})
	go func() {
		_ = jvm.Wait()
		close(waited)
	}()
	select {
	case <-waited:
	case <-parentGone:
		sweep()
		return 1
	}
	killed := sweep()
	drain() // the JVM's last messages reach the driver before this process ends
	if os.Getppid() != parent {
		return 1
	}
	for _, k := range killed {
		fmt.Fprintf(report, "killed %s\n", k)
	}
	if ws, ok := jvm.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		fmt.Fprintf(report, "signal %d\n", int(ws.Signal()))
		return 128 + int(ws.Signal())
	}
	return jvm.ProcessState.ExitCode()
}

// sweep kills every descendant of this process, again until none is left
// (one may fork meanwhile), and reaps them; it returns "PID (COMMAND)" for
// each it killed.
func sweep() []string {
	var killed []string
	seen := map[int]bool{}
	for round := 0; round < 200; round++ {
		live := descendants(os.Getpid())
		if len(live) == 0 {
			break
		}
		for _, pid := range live {
			comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
			if unix.Kill(pid, unix.SIGKILL) == nil && !seen[pid] {
				seen[pid] = true
				killed = append(killed, fmt.Sprintf("%d (%s)", pid, strings.TrimSpace(string(comm))))
			}
		}
		for {
			pid, err := unix.Wait4(-1, nil, unix.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return killed
}

// descendants returns the live (not zombie) descendants of root, from /proc.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	zombie := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(fields[1])
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], pid)
		zombie[pid] = fields[0] == "Z"
	}
	var live []int
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			queue = append(queue, c)
			if !zombie[c] {
				live = append(live, c)
			}
		}
	}
	return live
}
