package e2e

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// portWaitingJava is a java wrapper: a JVM started with the flaky agent
// writes the driver's port to $FLAKY_E2E_PORT and waits for
// $FLAKY_E2E_PORT.flooded before it starts, so that it connects amid the
// test's flood (up to 10 minutes, which only a test that is gone without
// writing it leaves to run out); every other invocation is plain java.
const portWaitingJava = `#!/bin/sh
port=
for a in "$@"; do
	case "$a" in -javaagent:*port=*) port=$(printf '%s' "$a" | sed 's/.*port=\([0-9]*\).*/\1/') ;; esac
done
if [ -n "$port" ]; then
	printf '%s\n' "$port" >"$FLAKY_E2E_PORT.tmp" && mv "$FLAKY_E2E_PORT.tmp" "$FLAKY_E2E_PORT"
	i=0
	while [ ! -e "$FLAKY_E2E_PORT.flooded" ] && [ $i -lt 6000 ]; do sleep 0.1; i=$((i+1)); done
fi
exec "$REAL_JAVA" "$@"
`

// TestRunOrderUnderConnectionFlood runs an order while 400 idle connections
// to flaky's port (more than it keeps pending), each dialed again whenever
// flaky closes it, wait for their handshake (another local user, or a test
// that scans ports): the JVM gets in at its first launch and the results
// are the undisturbed ones.
func TestRunOrderUnderConnectionFlood(t *testing.T) {
	t.Parallel()
	p, bin, orderFile, real, wrapper := victimOrderWithJava(t, portWaitingJava)
	portFile := filepath.Join(t.TempDir(), "port")
	runOrder := func(java string, during func()) (string, string) {
		cmd := exec.Command(bin, "--java", java, "run-order", "--module", p.dir, "--order", orderFile, "--json")
		cmd.Env = append(os.Environ(), "REAL_JAVA="+real, "FLAKY_E2E_PORT="+portFile)
		return runOrderJSON(t, cmd, during)
	}
	start := time.Now()
	want, _ := runOrder(real, nil)
	undisturbed := time.Since(start)
	stop := func() int { return 0 }
	var flooded time.Time
	// Bounds that only a run that never gets there reaches: the
	// undisturbed run above, start to end, five times over (at least a
	// minute) for a JVM to start, and for 400 local connections to be made.
	bound := max(time.Minute, 5*undisturbed)
	release := func() {
		if err := os.WriteFile(portFile+".flooded", nil, 0o644); err != nil {
			t.Error(err)
		}
	}
	got, stderr := runOrder(wrapper, func() {
		defer release() // a failing test lets the JVM go on, too
		var port []byte
		for deadline := time.Now().Add(bound); ; time.Sleep(20 * time.Millisecond) {
			if port, _ = os.ReadFile(portFile); len(port) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no JVM with the flaky agent started within %s", bound.Round(time.Second))
			}
		}
		var connected <-chan struct{}
		stop, connected = floodIdle("127.0.0.1:"+strings.TrimSpace(string(port)), 400)
		t.Cleanup(func() { stop() })
		select { // the flood is in place: 400 connections made, more than flaky keeps pending
		case <-connected:
		case <-time.After(bound):
			t.Fatalf("the flood did not make its 400 connections within %s", bound.Round(time.Second))
		}
		flooded = time.Now()
	})
	t.Logf("undisturbed run %s; under the flood, %s from the JVM's start", undisturbed.Round(time.Millisecond), time.Since(flooded).Round(time.Millisecond))
	if got != want {
		t.Errorf("under the flood: %s; undisturbed: %s", got, want)
	}
	if strings.Contains(stderr, "did not connect") {
		t.Errorf("a JVM had to be relaunched under the flood:\n%s", stderr)
	}
	t.Logf("the flood dialed %d connections", stop())
}

// floodIdle keeps n idle connections to addr open, dialing each again 20 ms
// after the server closes it; the function it returns ends the flood and
// returns how many connections it opened, and the channel is closed once
// n connections were made.
func floodIdle(addr string, n int) (func() int, <-chan struct{}) {
	done, connected := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var wg sync.WaitGroup
	dialed := 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if c, err := net.Dial("tcp", addr); err == nil {
					mu.Lock()
					dialed++
					if dialed == n {
						close(connected)
					}
					mu.Unlock()
					closed := make(chan struct{})
					go func() {
						select {
						case <-done:
						case <-closed:
						}
						c.Close()
					}()
					io.Copy(io.Discard, c) // until the server closes it
					close(closed)
				}
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
	}
	var once sync.Once
	return func() int {
		once.Do(func() { close(done); wg.Wait() })
		mu.Lock()
		defer mu.Unlock()
		return dialed
	}, connected
}
