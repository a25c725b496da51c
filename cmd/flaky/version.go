package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/buildinfo"
)

// versionFlag is the global --version: flaky --version prints what
// flaky version does. (urfave/cli's own version flag takes -v, which is
// --debug's.)
var versionFlag = &cli.BoolFlag{Name: "version", Usage: "print flaky's version and commit, as flaky version does"}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print flaky's version, commit and commit time",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "maven",
			Usage: "print only the version of flaky's Maven artifacts, the flaky.version that flaky init writes"}},
		Action: func(c *cli.Context) error {
			if c.Bool("maven") {
				_, err := fmt.Fprintln(globalsOf(c).Stdout, buildinfo.MavenVersion())
				return err
			}
			return runVersion(globalsOf(c))
		},
	}
}

// runVersion prints flaky's version: "flaky v0.1.0 (commit 0123456789ab,
// 2026-01-02T03:04:05Z)" (see buildinfo.Info.String).
func runVersion(g globalOptions) error {
	_, err := fmt.Fprintf(g.Stdout, "flaky %s\n", buildinfo.Read())
	return err
}
