package main

import (
	"fmt"

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
	setup, err := mvn.Prepare(c.Context, c.String("module"), mvn.PrepareOptions{Mvn: c.String("mvn"), Log: c.App.ErrWriter, Debug: debugLog(c)})
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

// noArgs rejects positional arguments.
func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("%s takes no arguments, got %q", c.Command.Name, c.Args().Slice())
	}
	return nil
}
