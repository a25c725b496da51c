package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/buildinfo"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:   "version",
		Usage:  "print flaky's version",
		Action: func(c *cli.Context) error { return runVersion(globalsOf(c)) },
	}
}

// runVersion prints flaky's version.
func runVersion(g globalOptions) error {
	_, err := fmt.Fprintf(g.Stdout, "flaky %s\n", buildinfo.Version())
	return err
}
