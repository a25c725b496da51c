package main

import (
	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/dataflow"
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
