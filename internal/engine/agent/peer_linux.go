package agent

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// checkPeer verifies that the client end of conn is open in the launched
// process, or in the process the hello claims when that one belongs to the
// launched process's group (a java wrapper). It passes when /proc cannot tell.
func checkPeer(conn net.Conn, launched int, claimed int64) error {
	server, ok1 := conn.LocalAddr().(*net.TCPAddr)
	client, ok2 := conn.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return nil
	}
	inodes := socketInodes(client.Port, server.Port)
	if len(inodes) == 0 {
		return nil // /proc/net is not readable here: nothing to check against
	}
	pid := launched
	if claimed > 0 && int(claimed) != launched {
		if pgid, err := unix.Getpgid(int(claimed)); err == nil && pgid == launched {
			pid = int(claimed)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return fmt.Errorf("the launched JVM (pid %d) is gone", launched)
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name()))
		if err != nil {
			continue
		}
		if inode, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
			return nil
		}
	}
	return fmt.Errorf("the connecting process is not the JVM flaky launched (pid %d)", launched)
}

// socketInodes returns the inodes of the TCP sockets whose local port is
// local and remote port remote, from /proc/net/tcp and tcp6.
func socketInodes(local, remote int) map[string]bool {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || hexPort(fields[1]) != local || hexPort(fields[2]) != remote {
				continue
			}
			inodes[fields[9]] = true
		}
		f.Close()
	}
	return inodes
}

// hexPort returns the port of a /proc/net/tcp address ("0100007F:1F90"), or -1.
func hexPort(addr string) int {
	_, port, ok := strings.Cut(addr, ":")
	if !ok {
		return -1
	}
	n, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return -1
	}
	return int(n)
}
