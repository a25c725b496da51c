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
)

// stopGrace is how long flaky may take to stop and clean up after the first
// SIGINT or SIGTERM before it exits regardless (a test may set another).
var stopGrace = time.Second

// exitInterrupted is the exit status after a SIGINT or SIGTERM.
const exitInterrupted = 130

func main() {
	app := newApp(os.Stdout, os.Stderr)
	ctx, cancel := context.WithCancel(context.Background())
	signalled := stopOnSignal(cancel, app.ErrWriter)
	err := app.RunContext(ctx, os.Args)
	cancel()
	if signalled.Load() {
		// The command stopped because of the signal: what it says about
		// its cut work (a killed Maven, no order completed) would mislead.
		os.Exit(exitInterrupted)
	}
	os.Exit(exitCode(err, app.ErrWriter))
}

// stopOnSignal cancels the commands' context on the first SIGINT or SIGTERM
// and restores the default handling, so that a second signal ends flaky at
// once; a command that has not returned within stopGrace is ended then.
// Test JVMs end with flaky (their agent loses its connection) and the next
// run removes temporary directories left behind. The flag it returns is set
// once a signal came.
func stopOnSignal(cancel context.CancelFunc, stderr io.Writer) *atomic.Bool {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	var signalled atomic.Bool
	go func() {
		sig := <-signals
		signalled.Store(true)
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		fmt.Fprintf(stderr, "flaky: %s: stopping (a second signal ends flaky at once)\n", sig)
		cancel()
		time.Sleep(stopGrace)
		fmt.Fprintf(stderr, "flaky: not stopped %s after %s; exiting\n", stopGrace, sig)
		os.Exit(exitInterrupted)
	}()
	return &signalled
}
