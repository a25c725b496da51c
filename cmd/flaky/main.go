// Command flaky finds and explains flaky tests in Java Maven projects.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/flakyhq/flaky/internal/base/safewrite"
)

// stopGrace is how long flaky may take to stop and clean up after the first
// SIGINT or SIGTERM before it exits regardless (a test may set another).
var stopGrace = time.Second

// exitInterrupted is the exit status after a SIGINT or SIGTERM.
const exitInterrupted = 130

func main() {
	app := newApp(os.Stdout, os.Stderr)
	ctx, cancel := context.WithCancel(context.Background())
	signalled := stopOnSignal(cancel, app.ErrWriter, os.Exit)
	err := app.RunContext(ctx, os.Args)
	cancel()
	if signalled.Load() {
		// The command stopped because of the signal: what it says about
		// its cut work (a killed Maven, no order completed) would mislead.
		os.Exit(exitInterrupted)
	}
	os.Exit(exitCode(err, app.ErrWriter))
}

// stopOnSignal cancels the commands' context on the first SIGINT or SIGTERM;
// a command that has not returned within stopGrace is ended then through
// exit, and a second signal ends flaky at once by its default action.
// Either way the temporary files of writes the signal cut short are
// removed first (see removeTemps); deferred calls do not run then. Test
// JVMs end with flaky (their agent loses its connection) and the next run
// removes temporary directories left behind. The flag it returns is set
// once a signal came.
func stopOnSignal(cancel context.CancelFunc, stderr io.Writer, exit func(int)) *atomic.Bool {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	var signalled atomic.Bool
	go func() {
		sig := <-signals
		signalled.Store(true)
		fmt.Fprintf(stderr, "flaky: %s: stopping (a second signal ends flaky at once)\n", sig)
		cancel()
		select {
		case again := <-signals:
			removeTemps()
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Signal(again)
			}
		case <-time.After(stopGrace):
			fmt.Fprintf(stderr, "flaky: not stopped %s after %s; exiting\n", stopGrace, sig)
			removeTemps()
			exit(exitInterrupted)
		}
	}()
	return &signalled
}

// removeTemps removes the temporary files of writes a signal cut short
// (safewrite.RemoveTemps), waiting for it at most stopGrace: a file system
// slow enough to hold up a rename may hold up the removal too.
func removeTemps() {
	done := make(chan struct{})
	go func() {
		safewrite.RemoveTemps()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopGrace):
	}
}
