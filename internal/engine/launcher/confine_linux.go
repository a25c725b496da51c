package launcher

// The driver's side of the confinement. A confined JVM's supervisor starts
// in new user, mount, network and PID namespaces (root in the user
// namespace, the user outside it), sets up the sandbox there (see
// confine_setup_linux.go) and starts the JVM in a nested user namespace as
// the user, without the capabilities that could undo the sandbox. The
// JVM's agent connects to the usual loopback port, which inside its network
// namespace is the supervisor's: the supervisor relays the connection over
// a socket pair to the driver, whose agent server serves it like any
// other. The kernel's unprivileged user namespaces are all it needs (what
// bubblewrap uses too, when it is not setuid); where the kernel refuses
// them, ConfinementAvailable says why.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// confineEnv, in a supervisor's environment, is the confineSpec it sets up.
const confineEnv = "FLAKY_CONFINE"

// confineCheckEnv, in the environment of a copy of this program, makes it
// the probe's check inside a sandbox (see confineCheck); its value is a
// confineCheck as JSON.
const confineCheckEnv = "FLAKY_CONFINE_CHECK"

func init() {
	// The supervisor, which has the variable too, starts the check.
	if _, supervisor := os.LookupEnv(superviseEnv); supervisor {
		return
	}
	if v, ok := os.LookupEnv(confineCheckEnv); ok {
		os.Exit(runConfineCheck(v))
	}
}

var probed struct {
	once sync.Once
	err  error
}

// ConfinementAvailable reports whether this machine can confine test JVMs
// (Options.Confine), and if not, why: once per process it starts a
// sandbox with a check inside that must write its own directory, fail to
// write another and fail to reach a port of this process.
func ConfinementAvailable() error {
	probed.once.Do(func() { probed.err = probeConfinement() })
	return probed.err
}

// confineCheck is what the probe's check inside the sandbox does.
type confineCheck struct {
	Inside  string `json:"inside"`  // a file it must be able to write
	Outside string `json:"outside"` // a file it must not be able to write
	Addr    string `json:"addr"`    // a TCP address of the driver it must not reach
}

// probeConfinement runs the probe once.
func probeConfinement() error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	in, err := os.MkdirTemp("", tempPrefix+"confine-in-")
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	defer os.RemoveAll(in)
	out, err := os.MkdirTemp("", tempPrefix+"confine-out-")
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	defer os.RemoveAll(out)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	defer ln.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			reached <- struct{}{}
		}
	}()
	check := confineCheck{Inside: filepath.Join(in, "inside"), Outside: filepath.Join(out, "outside"), Addr: ln.Addr().String()}
	data, _ := json.Marshal(check)
	spec, err := confineSpecOf(&Confinement{Writable: []string{in}}, in, 0)
	if err != nil {
		return err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), confineCheckEnv+"="+string(data))
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	jvm, err := startJVM(cmd, &jail{spec: *spec})
	if err != nil {
		return fmt.Errorf("no sandbox: the kernel refused the namespaces or mounts it needs: %w", err)
	}
	err = cmd.Wait()
	jvm.finish()
	if err != nil {
		return fmt.Errorf("no sandbox: its check failed (%v): %s", err, strings.TrimSpace(output.String()))
	}
	select {
	case <-reached:
		return errors.New("no sandbox: a process inside it reached the driver's loopback port")
	default:
	}
	if _, err := os.Lstat(check.Outside); err == nil {
		return errors.New("no sandbox: a process inside it wrote outside its directories")
	}
	return nil
}

// runConfineCheck is the probe's check inside the sandbox: exit status 0
// when the sandbox holds.
func runConfineCheck(v string) int {
	var c confineCheck
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		fmt.Fprintln(os.Stderr, "confine check:", err)
		return 2
	}
	if err := os.WriteFile(c.Inside, []byte("in\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "cannot write its own directory:", err)
		return 1
	}
	if err := os.WriteFile(c.Outside, []byte("out\n"), 0o644); err == nil {
		fmt.Fprintln(os.Stderr, "wrote outside its directories:", c.Outside)
		return 1
	}
	if conn, err := net.DialTimeout("tcp", c.Addr, time.Second); err == nil {
		conn.Close()
		fmt.Fprintln(os.Stderr, "reached the driver's port", c.Addr)
		return 1
	}
	return 0
}

// newJail makes the socket pair of one confined launch; the agent server
// serves the driver's end once the JVM has connected.
func (l *Launcher) newJail() (*jail, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("confine the test JVM: %w", err)
	}
	driver := os.NewFile(uintptr(fds[0]), "relay")
	conn, err := net.FileConn(driver)
	driver.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, fmt.Errorf("confine the test JVM: %w", err)
	}
	j := &jail{spec: *l.confine, child: os.NewFile(uintptr(fds[1]), "relay"), conn: conn}
	go l.serveRelay(j)
	return j, nil
}

// prepare makes cmd, the supervisor's command, start in the jail's new
// namespaces with its spec and its end of the relay (file descriptor 4,
// after the report's 3).
func (j *jail) prepare(cmd *exec.Cmd) error {
	data, err := json.Marshal(j.spec)
	if err != nil {
		return fmt.Errorf("confine the test JVM: %w", err)
	}
	cmd.Env = append(cmd.Env, confineEnv+"="+string(data))
	if j.child != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, j.child)
	}
	attr := cmd.SysProcAttr
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: j.spec.UID, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: j.spec.GID, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	return nil
}
