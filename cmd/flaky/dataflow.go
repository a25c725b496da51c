package main

import (
	"context"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/dataflow"
	"github.com/flakyhq/flaky/internal/od"
	"github.com/flakyhq/flaky/internal/report"
)

// Detection strategies of detect's --strategy.
const (
	strategyDataflow = "dataflow"
	strategyOrders   = "orders"
	strategyBoth     = "both"
)

// strategyFlag picks how detect finds OD tests.
var strategyFlag = &cli.StringFlag{Name: "strategy", Value: strategyBoth,
	Usage: "dataflow (record which test wrote the shared state each test reads, then test those dependencies; PraDeT), orders (the order generators) or both (dataflow first, then the orders; a test both find keeps the orders' finding, which has cleaners)"}

// graphFlag names where detect writes the data-dependency graph.
var graphFlag = &cli.StringFlag{Name: "graph", Usage: "write the data-dependency graph as Graphviz DOT to `FILE` and as JSON to FILE.json (with --strategy dataflow or both)"}

// reverseFlag adds a reference run of the reversed order.
var reverseFlag = &cli.BoolFlag{Name: "dataflow-reverse", Usage: "also record data dependencies in a run of the reversed order (PraDeT's remedy when a test that resets shared state hides a polluter from the original order)"}

// checkStrategy validates --strategy.
func checkStrategy(c *cli.Context) error {
	switch c.String(strategyFlag.Name) {
	case strategyDataflow, strategyOrders, strategyBoth:
		return nil
	}
	return usageError("--strategy must be dataflow, orders or both")
}

// detectDataflow runs the data-dependency analysis when the strategy asks
// for it (nil otherwise) and writes its graph when --graph names a file.
func detectDataflow(ctx context.Context, c *cli.Context, l dataflow.Launcher, cfg od.Config) (*dataflow.Result, error) {
	if c.String(strategyFlag.Name) == strategyOrders {
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

// dataflowStats summarises a data-dependency analysis for the report.
func dataflowStats(res *dataflow.Result) *report.DataflowStats {
	g := res.Graph
	s := &report.DataflowStats{
		Dependencies: len(g.Edges), Manifest: g.Count(dataflow.Manifest), TestedBenign: g.Count(dataflow.Benign),
		Untested: g.Count(dataflow.Untested), Runs: res.Runs, ReferenceRuns: res.ReferenceRuns,
		RefinementRuns: res.RefinementRuns, ConfirmationRuns: res.ConfirmationRuns, DurationMs: res.Duration.Milliseconds(),
	}
	for _, e := range g.Edges {
		d := report.DataflowDepend{Reader: e.Reader, Writer: e.Writer}
		for _, r := range e.Roots {
			d.Roots = append(d.Roots, r.Name)
		}
		switch e.Status {
		case dataflow.Benign:
			s.Benign = append(s.Benign, d)
		case dataflow.Untested:
			s.UntestedDeps = append(s.UntestedDeps, d)
		}
	}
	return s
}

// mergeDataflow adds the data-dependency analysis' runs to the coverage
// and its findings to the order generators' (which keep theirs for a test
// both found: they carry minimised cleaners too); it returns the tests
// whose findings it added.
func mergeDataflow(res *od.Result, df *dataflow.Result) map[string]bool {
	added := map[string]bool{}
	res.Coverage.Orders += df.Runs
	if res.Coverage.Generators == nil {
		res.Coverage.Generators = map[string]int{}
	}
	res.Coverage.Generators[strategyDataflow] = df.Runs
	res.Coverage.Duration += df.Duration
	for _, f := range dataflow.ODFindings(df.Findings) {
		if !slices.ContainsFunc(res.Findings, func(o od.Finding) bool { return o.Test == f.Test }) {
			res.Findings = append(res.Findings, f)
			added[f.Test] = true
		}
	}
	return added
}

// withDataflowState gives the report findings of tests (the findings that
// came from the data-dependency analysis) their roots as unconfirmed polluted state (the root-cause step confirms
// or replaces them).
func withDataflowState(findings []report.Finding, res *dataflow.Result, tests map[string]bool) {
	for i := range findings {
		if !tests[findings[i].Test] {
			continue
		}
		for _, f := range res.Findings {
			if f.Test == findings[i].Test && f.Kind == findings[i].Kind {
				findings[i].PollutedState = f.PollutedState()
			}
		}
	}
}
