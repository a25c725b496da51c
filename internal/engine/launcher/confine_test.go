//go:build linux

package launcher

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// escapeEnv gives the fake JVM's test "escape" what to try, separated by
// "|": a directory outside its sandbox, a class directory inside it that
// is read-only, the driver's TCP address and the driver's pid.
const escapeEnv = "FLAKY_FAKE_ESCAPE"

// fakeEscape tries what a test written by someone else might: write its
// working directory, a directory outside it and the class directory,
// reach the driver's network, see the driver's process, open the
// supervisor's files, list /run, read the user's credentials and the
// environment's. It
// says how each went, one "name=result" a line.
func fakeEscape(spec string) string {
	parts := strings.Split(spec, "|")
	if len(parts) != 4 {
		return "bad spec " + spec
	}
	outside, classes, addr, driver := parts[0], parts[1], parts[2], parts[3]
	result := func(err error) string {
		if err != nil {
			return "refused"
		}
		return "ok"
	}
	var lines []string
	lines = append(lines, "inside="+result(os.WriteFile("inside.txt", []byte("x"), 0o644)))
	lines = append(lines, "outside="+result(os.WriteFile(filepath.Join(outside, "escaped.txt"), []byte("x"), 0o644)))
	lines = append(lines, "classes="+result(os.WriteFile(filepath.Join(classes, "Planted.class"), []byte("x"), 0o644)))
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		conn.Close()
	}
	lines = append(lines, "network="+result(err))
	_, err = os.Stat(filepath.Join("/proc", driver, "root"))
	lines = append(lines, "driver="+result(err))
	// The supervisor, pid 1 here, is the same user but not dumpable.
	_, err = os.Readlink("/proc/1/root")
	lines = append(lines, "supervisor="+result(err))
	run, _ := os.ReadDir("/run")
	lines = append(lines, fmt.Sprintf("run=%d", len(run)))
	keys, _ := os.ReadDir(filepath.Join(outside, ".ssh"))
	netrc, _ := os.ReadFile(filepath.Join(outside, ".netrc"))
	lines = append(lines, fmt.Sprintf("secrets=%d+%d", len(keys), len(netrc)))
	lines = append(lines, fmt.Sprintf("env=%q %q %q", os.Getenv("FLAKY_LLM_API_KEY"), os.Getenv("CI_DEPLOY_TOKEN"), os.Getenv("FLAKY_CONFINED_PLAIN")))
	return strings.Join(lines, "\n")
}

// TestConfinedJVM runs the fake JVM confined: its agent connection reaches
// the driver through the relay, it writes its working directory (the
// sandbox) and its temporary directory, and it can write nowhere else (not
// the sandbox's read-only class directory either), reach no port of the
// driver's network, see no process outside the sandbox, open nothing of
// its supervisor's, nor see the system's sockets under /run or the user's
// credentials, in files or in the environment. On a kernel without unprivileged user namespaces,
// New says there is no sandbox.
func TestConfinedJVM(t *testing.T) {
	if n, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err != nil || strings.TrimSpace(string(n)) == "0" {
		if _, err := New(Env{Java: "java"}, agent.Jars{}, Options{Confine: &Confinement{}}); err == nil || !strings.Contains(err.Error(), "no sandbox") {
			t.Fatalf("New without user namespaces: %v, want no sandbox", err)
		}
		t.Skip("no user namespaces here")
	}
	sandbox, outside := t.TempDir(), t.TempDir()
	classes := filepath.Join(sandbox, "target", "test-classes")
	os.MkdirAll(classes, 0o755)
	// outside plays the user's home too: its credentials are hidden.
	os.MkdirAll(filepath.Join(outside, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(outside, ".ssh", "id_ed25519"), []byte("key"), 0o600)
	os.WriteFile(filepath.Join(outside, ".netrc"), []byte("machine example login me password secret"), 0o600)
	secrets := Secrets(outside)
	if len(secrets) != 2 {
		t.Fatalf("Secrets(%s) = %q, want .ssh and .netrc", outside, secrets)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			reached <- struct{}{}
		}
	}()
	t.Setenv(fakeEnv, "run")
	t.Setenv("FLAKY_LLM_API_KEY", "sk-secret")
	t.Setenv("CI_DEPLOY_TOKEN", "t0ken")
	t.Setenv("FLAKY_CONFINED_PLAIN", "kept")
	t.Setenv(escapeEnv, strings.Join([]string{outside, classes, ln.Addr().String(), strconv.Itoa(os.Getpid())}, "|"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Env{Java: exe, Dir: sandbox, Classpath: []string{classes}}, agent.Jars{Agent: "/x/agent.jar", Runner: "/x/runner.jar"},
		Options{Confine: &Confinement{Writable: []string{sandbox}, ReadOnly: []string{classes}, Hidden: secrets}})
	if err != nil {
		t.Fatalf("New with a confinement on a machine with user namespaces: %v", err)
	}
	defer l.Close()
	r, err := l.Run(context.Background(), []string{"p.A#escape", "p.A#tempfiles"})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(r); got != "p.A#escape=pass p.A#tempfiles=pass" {
		t.Fatalf("outcomes %s, want both passed through the relay\n%s", got, r.Output)
	}
	want := "inside=ok\noutside=refused\nclasses=refused\nnetwork=refused\ndriver=refused\nsupervisor=refused\nrun=0\nsecrets=0+0\nenv=\"\" \"\" \"kept\""
	if got := r.Tests[0].Message; got != want {
		t.Errorf("the confined JVM's attempts:\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(sandbox, "inside.txt")); err != nil {
		t.Errorf("the write inside the sandbox is not there: %v", err)
	}
	if left, _ := os.ReadDir(outside); len(left) != 2 {
		t.Errorf("the confined JVM wrote outside its sandbox: %v", left)
	}
	select {
	case <-reached:
		t.Error("the confined JVM reached the driver's port")
	default:
	}
}
