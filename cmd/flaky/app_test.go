package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// runApp runs the CLI in-process and returns its exit status and output.
func runApp(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	app := newApp(&out, &errOut)
	err := app.RunContext(context.Background(), append([]string{"flaky"}, args...))
	code = exitCode(err, app.ErrWriter)
	return code, out.String(), errOut.String()
}

func TestUsage(t *testing.T) {
	emptyOrder := filepath.Join(t.TempDir(), "order.txt")
	if err := os.WriteFile(emptyOrder, []byte("# none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noPom := t.TempDir()
	order := filepath.Join(noPom, "order.txt")
	if err := os.WriteFile(order, []byte("a.B#c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: "flaky dev\n"},
		{name: "help", args: []string{"help"}, wantCode: 0, wantStdout: "run-order"},
		{name: "unknown command", args: []string{"bogus"}, wantCode: 2, wantStderr: `unknown command "bogus"`},
		{name: "unknown flag", args: []string{"list-tests", "--nope"}, wantCode: 2, wantStderr: "flag provided but not defined"},
		{name: "missing order", args: []string{"run-order"}, wantCode: 2, wantStderr: `Required flag "order" not set`},
		{name: "unreadable order", args: []string{"run-order", "--order", "/nonexistent/order.txt"}, wantCode: 2, wantStderr: "no such file"},
		{name: "empty order", args: []string{"run-order", "--order", emptyOrder}, wantCode: 2, wantStderr: "names no tests"},
		{name: "bad timeout", args: []string{"run-order", "--order", order, "--timeout", "0s"}, wantCode: 2, wantStderr: "--timeout must be positive"},
		{name: "bad workers", args: []string{"--workers", "0", "list-tests", "--module", noPom}, wantCode: 2, wantStderr: "--workers must be at least 1"},
		{name: "stray argument", args: []string{"list-tests", "extra"}, wantCode: 2, wantStderr: "takes no arguments"},
		{name: "no pom", args: []string{"list-tests", "--module", noPom}, wantCode: 2, wantStderr: "no pom.xml in " + noPom},
		{name: "no pom for run-order", args: []string{"run-order", "--module", noPom, "--order", order}, wantCode: 2, wantStderr: "no pom.xml in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runApp(tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout %q lacks %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestJavaPath(t *testing.T) {
	tests := []struct {
		name, flag, home, want string
	}{
		{"flag wins", "/opt/jdk/bin/java", "/usr/lib/jvm/x", "/opt/jdk/bin/java"},
		{"JAVA_HOME", "", "/usr/lib/jvm/x", "/usr/lib/jvm/x/bin/java"},
		{"PATH", "", "", "java"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("JAVA_HOME", tt.home)
			var got string
			app := newApp(&bytes.Buffer{}, &bytes.Buffer{})
			app.Commands = append(app.Commands, &cli.Command{Name: "probe", Action: func(c *cli.Context) error {
				got = globalsOf(c).java()
				return nil
			}})
			args := []string{"flaky"}
			if tt.flag != "" {
				args = append(args, "--java", tt.flag)
			}
			if err := app.Run(append(args, "probe")); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("java() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	exitErr := exec.Command("sh", "-c", "exit 1").Run()
	tests := []struct {
		name       string
		err        error
		want       int
		wantStderr string
	}{
		{"success", nil, 0, ""},
		{"tests failed", &exitStatus{code: exitTestsFailed}, 1, ""},
		{"usage", usageError("bad %s", "flag"), 2, "flaky: bad flag\n"},
		{"infrastructure", errors.New("mvn failed"), 2, "flaky: mvn failed\n"},
		{"a failed command's status is not flaky's", fmt.Errorf("prepare module: %w", exitErr), 2, "flaky: prepare module: exit status 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := exitCode(tt.err, &stderr); got != tt.want {
				t.Errorf("exitCode = %d, want %d", got, tt.want)
			}
			if stderr.String() != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

// An order file that is not valid UTF-8 is refused before anything runs.
func TestRunOrderInvalidUTF8(t *testing.T) {
	order := filepath.Join(t.TempDir(), "order.txt")
	if err := os.WriteFile(order, []byte("a.B#c\na.B#\xff\xfed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runApp("run-order", "--module", t.TempDir(), "--order", order)
	if want := "line 2: not valid UTF-8"; code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitError, want)
	}
}

// Control characters in what flaky prints (here a module path in an error)
// reach the terminal escaped.
func TestOutputEscapesControlCharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evil\x1b[2J\x00name")
	code, _, stderr := runApp("list-tests", "--module", dir)
	if code != exitError || strings.ContainsAny(stderr, "\x1b\x00") || !strings.Contains(stderr, `evil\u001b[2J\u0000name`) {
		t.Errorf("exit %d, stderr %q; want the path escaped", code, stderr)
	}
}

// -P, -D and the --mvn command's own -P and -D arguments all reach Maven.
func TestMavenOptions(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		wantCmd string
		want    string
		wantErr string
	}{
		{[]string{"flaky", "-P", "a,b", "-D", "x=1", "-D", "flag", "x"}, "", "-Pa,b -Dflag=true -Dx=1", ""},
		{[]string{"flaky", "--mvn", "/opt/mvn -Pmodern-jvm -Dskip=yes", "-P", "ci", "x"}, "/opt/mvn", "-Pci,modern-jvm -Dskip=yes", ""},
		{[]string{"flaky", "--mvn", "mvn clean", "x"}, "", "", "only -PPROFILE and -DKEY=VALUE may follow"},
		{[]string{"flaky", "-P", "a", "y", "-P", "b", "-P", "a", "-D", "k=v"}, "", "-Pa,b -Dk=v", ""}, // after the command too
	} {
		var gotCmd, got string
		var gotErr error
		app := newApp(io.Discard, io.Discard)
		action := func(c *cli.Context) error {
			cmd, args, err := globalsOf(c).mavenOptions()
			gotCmd, got, gotErr = cmd, strings.Join(args.Args(), " "), err
			return nil
		}
		app.Commands = []*cli.Command{{Name: "x", Action: action}, {Name: "y", Flags: []cli.Flag{mavenProfileFlag(), mavenPropertyFlag()}, Action: action}}
		if err := app.Run(tt.args); err != nil {
			t.Fatal(err)
		}
		if tt.wantErr != "" {
			if gotErr == nil || !strings.Contains(gotErr.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want %q", tt.args, gotErr, tt.wantErr)
			}
			continue
		}
		if gotErr != nil || gotCmd != tt.wantCmd || got != tt.want {
			t.Errorf("%q: %q %q %v, want %q %q", tt.args, gotCmd, got, gotErr, tt.wantCmd, tt.want)
		}
	}
}
