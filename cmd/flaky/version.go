package main

import (
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print flaky's version",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "flaky %s\n", currentVersion())
			return err
		},
	}
}

// currentVersion is the build-time version, else the module version Go recorded, else "dev".
func currentVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
