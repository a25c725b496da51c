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
			return installArtifacts(installArtifactsOptions{globalOptions: globalsOf(c), Repo: c.String("repo")})
		},
	}
}

// installArtifactsOptions are install-artifacts' flags.
type installArtifactsOptions struct {
	globalOptions
	Repo string // the local Maven repository
}

// installArtifacts writes the embedded provider and agent jars into o.Repo
// (a debug note says which it wrote).
func installArtifacts(o installArtifactsOptions) error {
	jars, err := agent.Contents()
	if err != nil {
		return err
	}
	wrote, err := mvn.InstallArtifacts(o.Repo, buildinfo.MavenVersion(), []mvn.Artifact{
		{ArtifactID: "flaky-surefire-provider", Jar: jars.Provider},
		{ArtifactID: "flaky-agent", Jar: jars.Agent},
	})
	if err != nil {
		return err
	}
	if len(wrote) > 0 {
		fmt.Fprintf(o.debugLog(), "flaky: installed %s in %s\n", strings.Join(wrote, ", "), o.Repo)
	}
	return nil
}
