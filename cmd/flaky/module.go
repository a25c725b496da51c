package main

import (
	"fmt"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/mvn"
)

// moduleFlag is the --module flag of the commands that work on one module.
var moduleFlag = &cli.StringFlag{Name: "module", Value: ".", Usage: "Maven module directory (the one with the pom.xml)"}

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
// of -P, -D and the --mvn command's own -P and -D arguments.
func mavenOptions(c *cli.Context) (string, mvn.MavenArgs, error) {
	profiles, props := c.StringSlice("maven-profile"), c.StringSlice("maven-property")
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
