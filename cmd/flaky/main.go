// Command flaky finds and explains flaky tests in Java Maven projects.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	app := newApp(os.Stdout, os.Stderr)
	err := app.RunContext(ctx, os.Args)
	stop()
	os.Exit(exitCode(err, app.ErrWriter))
}
