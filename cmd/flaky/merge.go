package main

import (
	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/od"
	"github.com/flakyhq/flaky/internal/pipeline"
)

// mergeCommand combines the partial reports of detect's shards.
func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the partial reports of flaky detect --shard I/N runs, confirm and minimise their candidates in the module and write target/flaky/report.json; exits 1 when it finds flaky tests",
		ArgsUsage: "PART...  (each a shard's target/flaky directory)",
		Flags: []cli.Flag{
			moduleFlag,
			&cli.StringFlag{Name: "root", Usage: "the project's Maven root, for -pl in the reproduce commands (default: the root of the reactor on disk that builds the module)"},
			&cli.DurationFlag{Name: "budget", Usage: "wall-clock budget for confirming and minimising (default: scaled to the suite, at least 5m)"},
			&cli.IntFlag{Name: "confirmations", Value: od.DefaultConfirmations, Usage: "runs of an order that must agree before a finding is reported"},
			&cli.DurationFlag{Name: "test-timeout", Usage: "kill a JVM when one test runs longer than this (0: off)"},
		},
		Action: merge,
	}
}

func merge(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageError("merge needs the shards' target/flaky directories")
	}
	if c.Duration("budget") < 0 || (c.IsSet("budget") && c.Duration("budget") == 0) || c.Int("confirmations") < 1 || c.Duration("test-timeout") < 0 {
		return usageError("--budget must be positive, --confirmations at least 1, --test-timeout not negative")
	}
	parts, err := od.ReadPartials(c.Args().Slice())
	if err != nil {
		return &exitStatus{code: exitError, msg: "merge: " + err.Error()}
	}
	return analyseModule(c, "merge", &pipeline.DetectOptions{Partials: parts})
}
