package launcher

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// The token is not on the JVM's command line, and a second client that
// presents it anyway (stolen) is refused: its fake results are not kept.
func TestTokenNotOnCommandLineAndThiefRefused(t *testing.T) {
	leak := filepath.Join(t.TempDir(), "leak")
	t.Setenv(leakEnv, leak)
	l := fakeLauncher(t, "run", Options{})
	thief := make(chan string, 1)
	deadline := awaitBy(t)
	go func() {
		data, err := os.ReadFile(leak)
		for ; err != nil && time.Now().Before(deadline); data, err = os.ReadFile(leak) {
			time.Sleep(25 * time.Millisecond)
		}
		defer os.WriteFile(leak+".done", nil, 0o600)
		pid, token, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
		cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err == nil && bytes.Contains(cmdline, []byte(token)) {
			thief <- "the token is on the JVM's command line"
			return
		}
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", l.server.Port()))
		if err != nil {
			thief <- err.Error()
			return
		}
		defer conn.Close()
		agent.WriteMessage(conn, &agent.Hello{Protocol: agent.ProtocolVersion, Token: token, PID: 1})
		reply, err := agent.ReadMessage(conn)
		if _, ok := reply.(*agent.Reject); !ok {
			agent.WriteMessage(conn, &agent.TestEnd{Test: "evil.Injected#test", Outcome: "pass"})
			agent.WriteMessage(conn, &agent.TestEnd{Test: "p.A#a", Index: 0, Outcome: "fail"})
			thief <- fmt.Sprintf("the second client was answered %#v (%v)", reply, err)
			return
		}
		thief <- ""
	}()
	r, err := l.Run(context.Background(), []string{"p.A#a", "p.B#b"})
	if err != nil {
		t.Fatal(err)
	}
	if msg := <-thief; msg != "" {
		t.Error(msg)
	}
	if got := outcomes(r); got != "p.A#a=pass p.B#b=pass" {
		t.Errorf("outcomes %q, want only the launched JVM's results", got)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "refused a connection") {
		t.Errorf("notes %q, want the refused connection", r.Notes)
	}
}

// Results for tests that are not in the order, and second results for one
// position, are ignored and noted, even from the JVM's own connection.
func TestResultsOutsideTheOrderIgnored(t *testing.T) {
	var mu sync.Mutex
	var told []string
	l := fakeLauncher(t, "inject", Options{Notef: func(n string) { mu.Lock(); told = append(told, n); mu.Unlock() }})
	r, err := l.Run(context.Background(), []string{"p.A#a", "p.B#b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(r); got != "p.A#a=pass p.B#b=pass" {
		t.Errorf("outcomes %q, want each order position once", got)
	}
	want := []string{
		`ignored a result for "evil.Injected#test", which is not in the order`,
		`ignored a second result for "p.A#a" at position 0 of the order`,
		`ignored a second result for "p.B#b" at position 1 of the order`,
	}
	if strings.Join(r.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(r.Notes, "\n"), strings.Join(want, "\n"))
	}
	// Commands that print no per-run result (detect, chaos, verify) hear them through Notef.
	if !slices.Equal(told, r.Notes) {
		t.Errorf("Notef got %q, want the run's notes %q", told, r.Notes)
	}
}

// When the JVM ends abnormally, the runner's own log events are shown.
func TestRunnerLogsKeptOnAbnormalEnd(t *testing.T) {
	l := fakeLauncher(t, "runner-fails", Options{})
	r, err := l.Run(context.Background(), []string{"p.A#a"})
	if err != nil {
		t.Fatal(err)
	}
	want := "runner error: flaky runner failed: java.nio.charset.MalformedInputException: Input length = 1\n\tat Main.run"
	if len(r.Notes) != 1 || r.Notes[0] != want {
		t.Errorf("notes %q, want %q", r.Notes, want)
	}
}
