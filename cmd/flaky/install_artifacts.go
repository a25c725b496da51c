package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/buildinfo"
	"github.com/flakyhq/flaky/mvn"
)

func installArtifactsCommand() *cli.Command {
	return &cli.Command{
		Name:  "install-artifacts",
		Usage: "write flaky's Surefire provider and agent into a local Maven repository (the flaky profile runs this)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Required: true, Usage: "the local Maven repository (${settings.localRepository})"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			jars, err := agent.Contents()
			if err != nil {
				return err
			}
			repo := c.String("repo")
			wrote, err := mvn.InstallArtifacts(repo, buildinfo.MavenVersion(), []mvn.Artifact{
				{ArtifactID: "flaky-surefire-provider", Jar: jars.Provider},
				{ArtifactID: "flaky-agent", Jar: jars.Agent},
			})
			if err != nil {
				return err
			}
			if len(wrote) > 0 {
				fmt.Fprintf(debugLog(c), "flaky: installed %s in %s\n", strings.Join(wrote, ", "), repo)
			}
			return nil
		},
	}
}
