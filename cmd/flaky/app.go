package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/console"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// Exit statuses.
const (
	exitOK          = 0
	exitTestsFailed = 1 // some test did not pass or skip
	exitError       = 2 // usage or infrastructure error
)

// newApp builds the command line interface writing to stdout and stderr;
// both escape control characters, since much of what flaky prints comes from
// the tests it runs.
func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "flaky",
		Usage:     "find and explain flaky tests in Java Maven projects",
		Writer:    console.NewWriter(stdout),
		ErrWriter: console.NewWriter(stderr),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "java", Usage: "java executable (default: $JAVA_HOME/bin/java, else java on PATH)"},
			&cli.StringFlag{Name: "mvn", Usage: "Maven command, optionally with -P and -D arguments (default: the build's ./mvnw, else mvn)"},
			&cli.IntFlag{Name: "workers", Value: runtime.NumCPU(), Usage: "test JVMs to run at once (without it, detect and merge size them by the suite's JVMs, and chaos runs more while its JVMs wait)"},
			quietFlag,
			&cli.BoolFlag{Name: "debug", Aliases: []string{"v"}, EnvVars: []string{"FLAKY_DEBUG"}, Usage: "also print debug notes (parents not read, artifacts installed, Maven commands)"},
			mavenProfileFlag(),
			mavenPropertyFlag(),
			versionFlag,
		},
		Commands: []*cli.Command{
			initCommand(),
			installArtifactsCommand(),
			listTestsCommand(),
			runOrderCommand(),
			detectCommand(),
			pollutionCommand(),
			explainCommand(),
			mergeCommand(),
			chaosCommand(),
			verifyCommand(),
			repairCommand(),
			runCommand(),
			baselineCommand(),
			reportCommand(),
			versionCommand(),
		},
		// --version prints the version instead of running a command.
		Before: func(c *cli.Context) error {
			if !c.Bool(versionFlag.Name) {
				return nil
			}
			if err := runVersion(globalsOf(c)); err != nil {
				return err
			}
			return &exitStatus{code: exitOK}
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("unknown command %q (see flaky help)", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError("%v", err)
		},
		// exitCode reports errors; urfave/cli must not exit by itself.
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

// exitStatus is an error that ends flaky with a given exit status; its
// message, when not empty, goes to stderr.
type exitStatus struct {
	code int
	msg  string
}

func (e *exitStatus) Error() string { return e.msg }

// usageError is an error that exits with exitError.
func usageError(format string, args ...any) error {
	return &exitStatus{code: exitError, msg: fmt.Sprintf(format, args...)}
}

// exitCode reports err on stderr and returns the process exit status:
// an exitStatus's code, else exitError.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	code := exitError
	var es *exitStatus
	if errors.As(err, &es) {
		code = es.code
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(stderr, "flaky:", msg)
	}
	return code
}

// noteOnce returns a launcher note printer that writes each distinct note
// once to w, after prefix.
func noteOnce(w io.Writer, prefix string) func(string) {
	return launcher.Distinct(func(note string) { fmt.Fprintln(w, prefix+note) })
}
