package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/mvn"
)

// moduleFlag is the --module flag of the commands that work on one module.
var moduleFlag = &cli.StringFlag{Name: "module", Value: ".", Usage: "Maven module directory (the one with the pom.xml)"}

// mavenProfileFlag and mavenPropertyFlag are -P and -D, accepted before the
// command (global) and after it by the commands that work on one module.
func mavenProfileFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "maven-profile", Aliases: []string{"P"}, Usage: "Maven profile(s) to activate in every Maven call and in the Surefire configuration flaky reads, e.g. -P modern-jvm (repeatable, or comma-separated)"}
}

func mavenPropertyFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "maven-property", Aliases: []string{"D"}, Usage: "Maven user property key=value for every Maven call and the poms flaky reads (repeatable)"}
}

// openModule prepares the module named by --module and starts a launcher
// for it; the caller closes the launcher.
func openModule(c *cli.Context, opts launcher.Options) (*mvn.TestSetup, *launcher.Launcher, error) {
	workers := c.Int("workers")
	if workers < 1 {
		return nil, nil, usageError("--workers must be at least 1, not %d", workers)
	}
	opts.Workers = workers
	mvnCmd, mavenArgs, err := mavenOptions(c)
	if err != nil {
		return nil, nil, err
	}
	setup, err := mvn.Prepare(c.Context, c.String("module"), mvn.PrepareOptions{Mvn: mvnCmd, Log: c.App.ErrWriter, Debug: debugLog(c), Maven: mavenArgs})
	if err != nil {
		return nil, nil, fmt.Errorf("prepare module: %w", err)
	}
	jars, err := agent.Extract()
	if err != nil {
		return nil, nil, err
	}
	env := launcher.Env{
		Java:      javaPath(c),
		Classpath: setup.Classpath,
		JVMArgs:   setup.ArgLine,
		SysProps:  setup.SysProps,
		Dir:       setup.ModuleDir,
	}
	l, err := launcher.New(env, jars, opts)
	if err != nil {
		return nil, nil, err
	}
	return setup, l, nil
}

// mavenOptions returns the Maven command and the profiles and properties
// of -P and -D (before and after the command) and of the --mvn command's
// own -P and -D arguments.
func mavenOptions(c *cli.Context) (string, mvn.MavenArgs, error) {
	// Each context answers with its own flags, or its parent's: gather all,
	// the global ones first (a property given twice: the later wins).
	var profiles, props []string
	lineage := c.Lineage()
	for i := len(lineage) - 1; i >= 0; i-- {
		for _, p := range lineage[i].StringSlice("maven-profile") {
			if !slices.Contains(profiles, p) {
				profiles = append(profiles, p)
			}
		}
		props = append(props, lineage[i].StringSlice("maven-property")...)
	}
	cmd := c.String("mvn")
	if strings.ContainsAny(cmd, " \t") {
		words, err := shellquote.Split(cmd)
		if err != nil || len(words) == 0 {
			return "", mvn.MavenArgs{}, usageError("--mvn %q: %v", cmd, err)
		}
		cmd = words[0]
		for _, w := range words[1:] {
			switch {
			case strings.HasPrefix(w, "-P") && len(w) > 2:
				profiles = append(profiles, w[2:])
			case strings.HasPrefix(w, "-D") && len(w) > 2:
				props = append(props, w[2:])
			default:
				return "", mvn.MavenArgs{}, usageError("--mvn %q: only -PPROFILE and -DKEY=VALUE may follow the command, not %q", c.String("mvn"), w)
			}
		}
	}
	args, err := mvn.ParseMavenArgs(profiles, props)
	if err != nil {
		return "", mvn.MavenArgs{}, usageError("%v", err)
	}
	return cmd, args, nil
}

// noArgs rejects positional arguments.
func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("%s takes no arguments, got %q", c.Command.Name, c.Args().Slice())
	}
	return nil
}
