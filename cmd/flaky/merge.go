package main

import (
	"context"
	"time"

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
			&cli.DurationFlag{Name: "budget", Usage: "wall-clock budget for confirming and minimising", DefaultText: "scaled to the suite, at least 5m"},
			&cli.IntFlag{Name: "confirmations", Value: od.DefaultConfirmations, Usage: "runs of an order that must agree before a finding is reported"},
			testTimeoutFlag("kill a JVM when one test runs longer than this"),
		},
		Action: func(c *cli.Context) error {
			return runMerge(c.Context, mergeOptions{
				globalOptions: globalsOf(c),
				Module:        c.String("module"),
				Root:          c.String("root"),
				Parts:         c.Args().Slice(),
				Budget:        c.Duration("budget"),
				BudgetSet:     c.IsSet("budget"),
				Confirmations: c.Int("confirmations"),
				TestTimeout:   c.Duration("test-timeout"),
			})
		},
	}
}

// mergeOptions are merge's flags and arguments.
type mergeOptions struct {
	globalOptions
	Module        string   // the module's directory
	Root          string   // the project's Maven root; "": the reactor root on disk
	Parts         []string // the shards' target/flaky directories
	Budget        time.Duration
	BudgetSet     bool // --budget was given (it must then be positive)
	Confirmations int
	TestTimeout   time.Duration
}

// runMerge checks o, reads the shards' partial reports and replays them
// in the detection pipeline, which confirms and minimises their candidates.
func runMerge(ctx context.Context, o mergeOptions) error {
	if len(o.Parts) == 0 {
		return usageError("merge needs the shards' target/flaky directories")
	}
	if o.Budget < 0 || (o.BudgetSet && o.Budget == 0) || o.Confirmations < 1 || o.TestTimeout < 0 {
		return usageError("--budget must be positive, --confirmations at least 1, --test-timeout not negative")
	}
	parts, err := od.ReadPartials(o.Parts)
	if err != nil {
		return &exitStatus{code: exitError, msg: "merge: " + err.Error()}
	}
	return analyseModule(ctx, o.globalOptions, "merge", analysedModule{Dir: o.Module, Root: o.Root, TestTimeout: o.TestTimeout},
		&pipeline.DetectOptions{Partials: parts, Budget: o.Budget, Confirmations: o.Confirmations})
}
