package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/buildinfo"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

func installArtifactsCommand() *cli.Command {
	return &cli.Command{
		Name:  "install-artifacts",
		Usage: "write flaky's Surefire provider, agent and Maven plugin into a local Maven repository (flaky init and the flaky profile run this)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Usage: "the local Maven repository to write into (the flaky profile passes Maven's ${settings.localRepository})",
				DefaultText: "-D maven.repo.local when given, else the localRepository of ~/.m2/settings.xml, else ~/.m2/repository"},
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

// installArtifacts writes the embedded provider and agent jars and the
// Maven plugin (its descriptor naming this binary's version) into o.Repo,
// else the default repository (see defaultRepo; a debug note says which it
// wrote).
func installArtifacts(o installArtifactsOptions) error {
	if o.Repo == "" {
		o.Repo = defaultRepo(o.globalOptions)
	}
	if o.Repo == "" {
		return usageError("no home directory for ~/.m2/repository: pass --repo")
	}
	jars, err := agent.Contents()
	if err != nil {
		return err
	}
	version := buildinfo.MavenVersion()
	plugin, err := mvn.PluginJar(jars.Plugin, version)
	if err != nil {
		return err
	}
	wrote, err := mvn.InstallArtifacts(o.Repo, version, []mvn.Artifact{
		{ArtifactID: "flaky-surefire-provider", Jar: jars.Provider},
		{ArtifactID: "flaky-agent", Jar: jars.Agent},
		{ArtifactID: mvn.PluginArtifactID, Jar: plugin, Packaging: "maven-plugin"},
	})
	if err != nil {
		return err
	}
	if len(wrote) > 0 {
		fmt.Fprintf(o.debugLog(), "flaky: installed %s in %s\n", strings.Join(wrote, ", "), o.Repo)
	}
	return nil
}

// defaultRepo is the local repository Maven would use without settings of
// the build's own: the last -D maven.repo.local given to flaky, else
// mvn.LocalRepository; "" when neither is known.
func defaultRepo(g globalOptions) string {
	repo := ""
	for _, p := range g.Properties {
		if v, ok := strings.CutPrefix(p, "maven.repo.local="); ok {
			repo = v
		}
	}
	if repo != "" {
		return repo
	}
	return mvn.LocalRepository()
}
