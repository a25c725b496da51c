package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/buildinfo"
	"github.com/flakyhq/flaky/internal/base/console"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// runCommand runs `mvn -Pflaky verify` on a project and shows live progress
// from the Surefire forks' agents.
func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run mvn -Pflaky verify on a project (./mvnw when present) with live progress",
		ArgsUsage: "[DIR] [-- MAVEN ARGS...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "init", Usage: "add or update the flaky profile first when it is absent or stale"},
			&cli.StringFlag{Name: "junit-platform-version", Usage: "with --init: the JUnit Platform version, when the poms do not tell"},
		},
		Action: func(c *cli.Context) error {
			o := runProjectOptions{
				globalOptions:        globalsOf(c),
				Dir:                  ".",
				Init:                 c.Bool("init"),
				JUnitPlatformVersion: c.String("junit-platform-version"),
			}
			args := c.Args().Slice()
			if len(args) > 0 && args[0] != "--" {
				o.Dir, args = args[0], args[1:]
			}
			if len(args) > 0 && args[0] == "--" {
				args = args[1:]
			}
			o.MavenArgs = args
			return runProject(c.Context, o)
		},
	}
}

// runProjectOptions are run's flags and arguments.
type runProjectOptions struct {
	globalOptions
	Dir                  string   // the project's directory
	MavenArgs            []string // the arguments after the directory (and --), for Maven
	Init                 bool
	JUnitPlatformVersion string
}

// runProject runs mvn -Pflaky verify on the project in o.Dir (adding the
// profile first with o.Init) and shows the forks' progress.
func runProject(ctx context.Context, o runProjectOptions) error {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	opts := mvn.ProfileOptions{Version: buildinfo.MavenVersion(), JUnitPlatformVersion: o.JUnitPlatformVersion, Log: o.Stderr}
	state, err := mvn.CheckProfile(dir, opts)
	if err != nil {
		return err
	}
	if status := state.Status(); status != mvn.ProfileCurrent {
		if !o.Init {
			return &exitStatus{code: exitError, msg: fmt.Sprintf("%s: the flaky profile is %s; run `flaky init %s` or `flaky run --init`", dir, status, dir)}
		}
		state, err := mvn.InitProfile(dir, opts)
		if err != nil {
			return err
		}
		for _, check := range state.Poms {
			if check.Backup != "" {
				fmt.Fprintf(o.Stderr, "flaky: added the flaky profile to %s (previous version: %s)\n", check.Pom, check.Backup)
			}
		}
	}

	if err := installArtifacts(installArtifactsOptions{globalOptions: o.globalOptions}); err != nil {
		return fmt.Errorf("install the flaky Maven plugin: %w", err)
	}
	server, err := agent.NewServer()
	if err != nil {
		return err
	}
	defer server.Close()
	run, err := server.Register()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locating the flaky binary: %w", err)
	}
	mvnCmd, extra, err := o.mavenOptions()
	if err != nil {
		return err
	}
	mavenArgs := append([]string{"-Pflaky", "verify",
		"-Dflaky.port=" + strconv.Itoa(server.Port()),
		"-Dflaky.bin=" + self,
	}, append(extra.Args(), o.MavenArgs...)...)
	cmd := exec.CommandContext(ctx, mvn.FindMaven(mvnCmd, dir), mavenArgs...)
	cmd.Dir = dir
	// The forks inherit Maven's environment; the agent reads its token there
	// (the profile's token property stays empty, off every command line).
	cmd.Env = append(os.Environ(), agent.TokenEnv+"="+run.Token)
	cmd.Stdout, cmd.Stderr = console.Unwrap(o.Stdout), console.Unwrap(o.Stderr) // Maven's own output, colors and all

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		showProgress(o.Stderr, run.Events(), stop)
	}()
	err = cmd.Run()
	close(stop)
	wg.Wait()
	run.Close()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return &exitStatus{code: exitTestsFailed, msg: fmt.Sprintf("mvn -Pflaky verify failed (exit status %d)", exitErr.ExitCode())}
	}
	if err != nil {
		return fmt.Errorf("running Maven: %w", err)
	}
	return nil
}

// showProgress prints the forks' progress until stop is closed (Maven ended);
// the run's event channel itself stays open.
func showProgress(w io.Writer, events <-chan agent.Event, stop <-chan struct{}) {
	done, failed := map[int]int{}, map[int]int{}
	for {
		var ev agent.Event
		select {
		case ev = <-events:
		case <-stop:
			return
		}
		switch m := ev.Message.(type) {
		case *agent.RunStart:
			fmt.Fprintf(w, "[flaky] fork %d: running %d tests\n", ev.Conn, m.Count)
		case *agent.TestEnd:
			done[ev.Conn]++
			if m.Outcome == "fail" || m.Outcome == "error" {
				failed[ev.Conn]++
				fmt.Fprintf(w, "[flaky] %-5s %s\n", m.Outcome, m.Test)
			}
		case *agent.RunEnd:
			fmt.Fprintf(w, "[flaky] fork %d: %d tests done, %d failed\n", ev.Conn, done[ev.Conn], failed[ev.Conn])
		}
	}
}
