package launcher

// The supervisor's side of the confinement: it runs as root of its new
// user namespace, the only process of its new PID namespace, with a mount
// namespace and a network namespace of its own, and before it starts the
// JVM it makes every mount read-only but the writable directories, mounts
// a /proc that shows only the sandbox's processes (so that no
// /proc/PID/root of the user's other processes leads outside), hides the
// Unix sockets of the system's services under /run and the user's
// credentials, brings its loopback up and relays the agent's connection to
// the driver.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// confineSupervised sets up the sandbox of the spec given (JSON) in this
// supervisor and makes jvm start in a nested user namespace as the user:
// without capabilities over the sandbox's mount and network namespaces,
// which belong to the supervisor's, it cannot undo them.
//
// It returns the driver's /proc, opened before the sandbox's covers it,
// for hostPIDIn (the caller closes it), and drain, which the caller calls
// once the JVM has exited: it waits until the relay has handed the
// driver everything the JVM sent (see relayAgent). The JVM, the same user but in a
// nested user namespace without capabilities, can neither trace the
// supervisor nor open its files through /proc/1 (that /proc above all):
// the kernel wants capabilities over the supervisor's namespace for both.
// The supervisor also makes itself non-dumpable, which forbids them even
// where that rule did not hold.
func confineSupervised(specJSON string, jvm *exec.Cmd) (hostProc *os.File, drain func(), err error) {
	var spec confineSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return nil, nil, fmt.Errorf("read the sandbox's spec: %w", err)
	}
	hostProc, err = os.Open("/proc")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		hostProc.Close()
		return nil, nil, fmt.Errorf("sandbox: make the supervisor non-dumpable: %w", err)
	}
	drain = func() {}
	err = spec.mountSandbox()
	if err == nil {
		err = loopbackUp()
	}
	if err == nil && spec.Port > 0 {
		drain, err = relayAgent(spec.Port, os.NewFile(4, "relay"))
	}
	if err != nil {
		hostProc.Close()
		return nil, nil, err
	}
	jvm.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
	jvm.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: spec.UID, HostID: 0, Size: 1}}
	jvm.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: spec.GID, HostID: 0, Size: 1}}
	jvm.SysProcAttr.GidMappingsEnableSetgroups = false
	return hostProc, drain, nil
}

// hostPIDIn finds, in the driver's /proc (hostProc), the pid of this
// process's child whose pid here, in the sandbox's PID namespace, is nsPID.
func hostPIDIn(hostProc *os.File, nsPID int) (int, error) {
	buf := make([]byte, 32)
	n, err := unix.Readlinkat(int(hostProc.Fd()), "self", buf)
	if err != nil {
		return 0, fmt.Errorf("sandbox: find the JVM's pid: %w", err)
	}
	self, err := strconv.Atoi(string(buf[:n]))
	if err != nil {
		return 0, fmt.Errorf("sandbox: find the JVM's pid: /proc/self is %q", buf[:n])
	}
	entries, err := hostProc.ReadDir(-1)
	if err != nil {
		return 0, fmt.Errorf("sandbox: find the JVM's pid: %w", err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, nspids := procStatus(hostProc, e.Name())
		if ppid == strconv.Itoa(self) && len(nspids) > 1 && nspids[len(nspids)-1] == strconv.Itoa(nsPID) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("sandbox: find the JVM's pid: no child of the supervisor (pid %d) is pid %d in the sandbox", self, nsPID)
}

// procStatus reads the parent pid and the pids in each namespace (NSpid)
// of a process from its status file in a /proc.
func procStatus(proc *os.File, pid string) (ppid string, nspids []string) {
	fd, err := unix.Openat(int(proc.Fd()), pid+"/status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil
	}
	f := os.NewFile(uintptr(fd), "status")
	defer f.Close()
	// The kernel writes it; a status file is a few KiB.
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			ppid = strings.TrimSpace(v)
		} else if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			nspids = strings.Fields(v)
		}
	}
	return ppid, nspids
}

// mountSandbox makes this mount namespace the sandbox's: a /proc of its
// own PID namespace, the writable directories bound onto themselves, the
// read-only ones inside them bound read-only, every other mount read-only,
// /run and the hidden files covered, and the working directory entered
// again (the old one is on a mount now read-only).
func (s confineSpec) mountSandbox() error {
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("sandbox: make the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("sandbox: mount a /proc of its own: %w", err)
	}
	for _, d := range s.Writable {
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("sandbox: bind %s: %w", d, err)
		}
	}
	for _, d := range s.ReadOnly {
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("sandbox: bind %s: %w", d, err)
		}
		if err := remountReadOnly(d, 0); err != nil {
			return fmt.Errorf("sandbox: make %s read-only: %w", d, err)
		}
	}
	if err := s.readOnlyElsewhere(); err != nil {
		return err
	}
	if err := s.hideRun(); err != nil {
		return err
	}
	if err := s.hideSecrets(); err != nil {
		return err
	}
	if err := os.Chdir(cwd); err != nil {
		return fmt.Errorf("sandbox: enter %s again: %w", cwd, err)
	}
	return nil
}

// readOnlyElsewhere remounts read-only every mount that is not the new
// /proc, a writable directory or inside one. A mount its path no longer
// reaches (covered by another, or behind a directory the user cannot
// enter) is left: the JVM cannot reach it either.
func (s confineSpec) readOnlyElsewhere() error {
	// The kernel writes mountinfo; it is not a file someone else wrote.
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("sandbox: read the mounts: %w", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 6 {
			continue
		}
		point, opts := unescapeMount(fields[4]), strings.Split(fields[5], ",")
		if point == "/proc" || strings.HasPrefix(point, "/proc/") || s.inWritable(point) || slices.Contains(opts, "ro") {
			continue
		}
		err := remountReadOnly(point, mountFlags(opts))
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINVAL) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sandbox: make %s read-only: %w", point, err)
		}
	}
	return nil
}

// hideRun mounts an empty read-only file system on /run, where the system's
// services keep their Unix sockets (Docker's, D-Bus's, the user's session
// bus), unless a writable directory is inside it.
func (s confineSpec) hideRun() error {
	for _, w := range s.Writable {
		if w == "/run" || strings.HasPrefix(w, "/run/") {
			return nil
		}
	}
	if fi, err := os.Lstat("/run"); err != nil || !fi.IsDir() {
		return nil
	}
	if err := unix.Mount("tmpfs", "/run", "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=755"); err != nil {
		return fmt.Errorf("sandbox: hide /run: %w", err)
	}
	return nil
}

// hideSecrets covers each hidden directory with an empty read-only file
// system and each hidden file with /dev/null, read-only.
func (s confineSpec) hideSecrets() error {
	for _, h := range s.Hidden {
		fi, err := os.Lstat(h)
		switch {
		case err != nil:
			continue // behind a directory hidden already, or gone
		case fi.IsDir():
			err = unix.Mount("tmpfs", h, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=700")
		default:
			err = unix.Mount("/dev/null", h, "", unix.MS_BIND, "")
			if err == nil {
				err = remountReadOnly(h, unix.MS_NOSUID|unix.MS_NOEXEC)
			}
		}
		if err != nil {
			return fmt.Errorf("sandbox: hide %s: %w", h, err)
		}
	}
	return nil
}

// inWritable reports whether a path is a writable directory or inside one.
func (s confineSpec) inWritable(p string) bool {
	for _, w := range s.Writable {
		if p == w || strings.HasPrefix(p, w+"/") {
			return true
		}
	}
	return false
}

// remountReadOnly makes the mount at point read-only, keeping flags (those
// a user namespace may not drop).
func remountReadOnly(point string, flags uintptr) error {
	return unix.Mount("", point, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|flags, "")
}

// mountFlags are the mount flags of mountinfo's per-mount options that a
// remount must keep.
func mountFlags(opts []string) uintptr {
	var flags uintptr
	for _, o := range opts {
		switch o {
		case "nosuid":
			flags |= unix.MS_NOSUID
		case "nodev":
			flags |= unix.MS_NODEV
		case "noexec":
			flags |= unix.MS_NOEXEC
		case "noatime":
			flags |= unix.MS_NOATIME
		case "nodiratime":
			flags |= unix.MS_NODIRATIME
		case "relatime":
			flags |= unix.MS_RELATIME
		case "strictatime":
			flags |= unix.MS_STRICTATIME
		}
	}
	return flags
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// loopbackUp brings up the loopback interface of this network namespace,
// which starts down.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("sandbox: loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("sandbox: loopback: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("sandbox: bring the loopback up: %w", err)
	}
	return nil
}

// relayAgent accepts the JVM's agent connection on the agent server's port
// inside the sandbox and relays it over up (the socket pair's end the
// driver passed) until either side closes; later connections are closed.
// drain, called once the JVM has exited, stops accepting and waits until
// the relay has copied what the JVM sent before its end (the JVM's side
// is closed, so the copy ends at what is left in the socket), within
// drainLimit: the supervisor's exit would otherwise cut the copy short and
// the driver would miss the JVM's last messages.
func relayAgent(port int, up *os.File) (drain func(), err error) {
	syscall.CloseOnExec(int(up.Fd()))
	driver, err := net.FileConn(up)
	up.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox: the agent's relay: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		driver.Close()
		return nil, fmt.Errorf("sandbox: the agent's relay: %w", err)
	}
	relayed := make(chan struct{})
	drain = func() {
		ln.Close()
		select {
		case <-relayed:
		case <-time.After(drainLimit):
		}
	}
	go func() {
		defer close(relayed)
		jvm, err := ln.Accept()
		if err != nil {
			driver.Close()
			return
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		pipe(jvm, driver)
	}()
	return drain, nil
}

// drainLimit bounds how long drain waits for the relay after the JVM's
// exit: the copy of what is left in a closed socket takes milliseconds;
// only a descendant the sweep missed, holding the JVM's socket open, could
// keep it going, and the driver then gets what came before.
const drainLimit = 10 * time.Second

// pipe copies a to b and b to a until either ends, then closes both.
func pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(a, b)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(b, a)
		done <- struct{}{}
	}()
	<-done
	a.Close()
	b.Close()
}
