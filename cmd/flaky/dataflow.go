package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/dataflow"
	"github.com/flakyhq/flaky/internal/od"
)

// strategyFlag picks how detect finds OD tests.
var strategyFlag = &cli.StringFlag{Name: "strategy", Value: dataflow.StrategyBoth,
	Usage: "dataflow (record which test wrote the shared state each test reads, then test those dependencies; PraDeT), orders (the order generators) or both (dataflow first, then the orders; a test both find keeps the orders' finding, which has cleaners)"}

// graphFlag names where detect writes the data-dependency graph.
var graphFlag = &cli.StringFlag{Name: "graph", Usage: "write the data-dependency graph as Graphviz DOT to `FILE` and as JSON to FILE.json (with --strategy dataflow or both)"}

// reverseFlag adds a reference run of the reversed order.
var reverseFlag = &cli.BoolFlag{Name: "dataflow-reverse", Usage: "also record data dependencies in a run of the reversed order (PraDeT's remedy when a test that resets shared state hides a polluter from the original order)"}

// checkStrategy validates --strategy.
func checkStrategy(c *cli.Context) error {
	if _, err := dataflow.ParseStrategy(c.String(strategyFlag.Name)); err != nil {
		return usageError("--strategy: %v", err)
	}
	return nil
}

// detectDataflow runs the data-dependency analysis when the strategy asks
// for it (nil otherwise) and writes its graph when --graph names a file.
func detectDataflow(ctx context.Context, c *cli.Context, l dataflow.Launcher, cfg od.Config) (*dataflow.Result, error) {
	if c.String(strategyFlag.Name) == dataflow.StrategyOrders {
		return nil, nil
	}
	dcfg := dataflow.Config{Tests: cfg.Tests, Confirmations: cfg.Confirmations, Logf: cfg.Logf, Fixtures: cfg.Fixtures, Reverse: c.Bool(reverseFlag.Name)}
	// Refinement starts no new round after the budget (without one, after
	// the longest budget the order generators would choose).
	dcfg.Deadline = time.Now().Add(od.MaxAutoBudget)
	if cfg.Budget > 0 {
		dcfg.Deadline = time.Now().Add(cfg.Budget)
	}
	cfg.Progress.Phase("data dependencies", 0, dcfg.Deadline)
	res, err := dataflow.Analyze(ctx, l, dcfg)
	if err != nil {
		return nil, err
	}
	cfg.Progress.Found(len(res.Findings))
	if path := c.String(graphFlag.Name); path != "" {
		if err := res.Graph.Write(path); err != nil {
			return nil, err
		}
	}
	return res, nil
}
