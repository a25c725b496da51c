package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/dataflow"
	"github.com/flakyhq/flaky/internal/invariants"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/od"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/state"
)

// detectCommand finds a module's order-dependent flaky tests outside Maven's verify phase.
func detectCommand() *cli.Command {
	return &cli.Command{
		Name:  "detect",
		Usage: "find a module's order-dependent flaky tests (victims, brittles, NIO, NOD) and the shared state behind each victim and brittle, and write target/flaky/report.json; exits 1 when it finds some",
		Flags: []cli.Flag{
			moduleFlag,
			mavenProfileFlag(),
			mavenPropertyFlag(),
			&cli.StringFlag{Name: "root", Usage: "the project's Maven root, for -pl in the reproduce commands (default: the root of the reactor on disk that builds the module)"},
			&cli.IntFlag{Name: "rounds", Usage: "exploration orders to run; 0 for none (default: enough to put every pair of classes next to each other, plus a few random orders)"},
			&cli.DurationFlag{Name: "budget", Usage: "wall-clock budget; the analysis stops cleanly when it is spent (default: scaled to the suite's measured run time, at least 5m; the report says what it chose)"},
			&cli.Int64Flag{Name: "seed", Usage: "seed for the generated orders (default: a random one, recorded in the report)"},
			&cli.IntFlag{Name: "confirmations", Value: od.DefaultConfirmations, Usage: "runs of an order that must agree before a finding is reported"},
			&cli.DurationFlag{Name: "test-timeout", Usage: "kill a JVM when one test runs longer than this (0: off)"},
			noStateFlag,
			&cli.BoolFlag{Name: "warm", Usage: fmt.Sprintf("run the exploration orders up to %d at a time in one JVM, each in a fresh class loader with the JDK state reset between them; every candidate is still confirmed and minimised in fresh JVMs", od.DefaultWarmOrders)},
			&cli.StringFlag{Name: "shard", Usage: "I/N: run only the I-th of N disjoint shares of the exploration orders (needs --seed) and write a partial report, target/flaky/shard-I-of-N.json, for flaky merge"},
			noInvariantsFlag,
			strategyFlag,
			graphFlag,
			reverseFlag,
		},
		Action: detect,
	}
}

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
	return analyseModule(c, "merge", func(cfg *od.Config, tests []string) error {
		if !slices.Equal(tests, parts[0].Tests) {
			return &exitStatus{code: exitError, msg: fmt.Sprintf("merge: the module's %d tests are not the %d tests the shards ran", len(tests), len(parts[0].Tests))}
		}
		cfg.Seed, cfg.Rounds, cfg.Recorded = parts[0].Seed, parts[0].Rounds, od.MergeRuns(parts)
		return nil
	})
}

func detect(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if c.Duration("budget") < 0 || (c.IsSet("budget") && c.Duration("budget") == 0) || c.Int("confirmations") < 1 || c.Int("rounds") < 0 || c.Duration("test-timeout") < 0 {
		return usageError("--budget must be positive, --confirmations at least 1, --rounds and --test-timeout not negative")
	}
	if err := checkStrategy(c); err != nil {
		return err
	}
	var shard od.Shard
	if s := c.String("shard"); s != "" {
		var err error
		if shard, err = od.ParseShard(s); err != nil {
			return usageError("--shard: %v", err)
		}
		if !c.IsSet("seed") {
			return usageError("--shard needs --seed: every shard must plan the same orders")
		}
	}
	return analyseModule(c, "detect", func(cfg *od.Config, _ []string) error {
		cfg.Seed, cfg.Rounds, cfg.Shard = c.Int64("seed"), c.Int("rounds"), shard
		if c.Bool("warm") {
			cfg.Warm = od.DefaultWarmOrders
		}
		if !c.IsSet("seed") {
			cfg.Seed = rand.Int64()
		}
		if c.IsSet("rounds") && cfg.Rounds == 0 {
			cfg.Rounds = -1
		}
		return nil
	})
}

// analyseModule runs the order-dependence analysis of the module that
// configure completes (detect and merge), then writes the report, or a
// shard's partial report.
func analyseModule(c *cli.Context, name string, configure func(cfg *od.Config, tests []string) error) error {
	opts := launcher.Options{TestTimeout: c.Duration("test-timeout")}
	setup, l, err := openModule(c, opts)
	if err != nil {
		return err
	}
	defer l.Close()
	infos, err := l.List(c.Context, launcher.Selection{TestClassesDir: setup.TestClassesDir, Includes: setup.Includes, Excludes: setup.Excludes})
	if err != nil {
		return fmt.Errorf("list tests: %w", err)
	}
	// The analysis runs in JVMs like l's that start faster.
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	prog := startProgress(c, name)
	defer prog.finish()
	opts.Workers = c.Int("workers")
	opts.Notef = noteOnce(c.App.ErrWriter, "flaky: "+name+": note: ")
	opts.Ran = prog.ran
	opts.CDSDir = launcher.CDSCache()
	env := launcher.Env{Java: javaPath(c), Classpath: setup.Classpath, JVMArgs: setup.ArgLine, SysProps: setup.SysProps, Dir: setup.ModuleDir}
	runner, err := launcher.New(launcher.FastStart(env), jars, opts)
	if err != nil {
		return err
	}
	defer runner.Close()
	tests := make([]string, len(infos))
	for i, ti := range infos {
		tests[i] = ti.ID
	}
	fixtures, unrepeatable := od.FixtureClasses(infos)
	cfg := od.Config{
		Tests:         tests,
		Fixtures:      fixtures,
		Unrepeatable:  unrepeatable,
		Budget:        c.Duration("budget"),
		Confirmations: c.Int("confirmations"),
		Workers:       c.Int("workers"),
		AutoWorkers:   !c.IsSet("workers"),
		Logf:          prog.logf("flaky: " + name + ": "),
		Progress:      prog.tracker,
	}
	if err := configure(&cfg, tests); err != nil {
		return err
	}
	// Data dependencies are detect's (a shard runs only its share of the
	// order generators' plan, and a merge replays those).
	var df *dataflow.Result
	if name == "detect" && cfg.Shard.N == 0 {
		if df, err = detectDataflow(c.Context, c, runner, cfg); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	res := &od.Result{Coverage: od.Coverage{Seed: cfg.Seed, Tests: len(tests), Pairs: len(tests) * (len(tests) - 1), Generators: map[string]int{}}}
	if c.String(strategyFlag.Name) != dataflow.StrategyDataflow {
		if res, err = od.Analyze(c.Context, runner, cfg); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	var fromDataflow map[string]bool
	if df != nil {
		fromDataflow = dataflow.Merge(res, df)
	}
	if err := ranOrders(len(tests), res.Coverage); err != nil {
		return err
	}
	flakyDir := filepath.Join(filepath.Dir(setup.TestClassesDir), "flaky")
	if cfg.Shard.N > 0 {
		path, err := od.WritePartial(flakyDir, od.NewPartial(cfg, res))
		if err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "shard %s of %d tests: %d orders (seed %d), %s\npartial report: %s\n",
			cfg.Shard, len(tests), res.Coverage.Orders, cfg.Seed, res.Coverage.Duration.Round(100*time.Millisecond), path)
		return nil
	}

	root := setup.ReactorRoot
	if r := c.String("root"); r != "" {
		if root, err = filepath.Abs(r); err != nil {
			return err
		}
	}
	module := relModule(root, setup.ModuleDir)
	findings, err := od.ReportFindings(res.Findings, od.ReportOptions{OrderDir: filepath.Join(flakyDir, "orders"), ModuleDir: setup.ModuleDir, Module: module})
	if err != nil {
		return err
	}
	if df != nil {
		dataflow.WithState(findings, df, fromDataflow)
	}
	if err := withInitStep(findings, setup.ModuleDir, root); err != nil {
		return err
	}
	if !c.Bool(noStateFlag.Name) {
		if _, err := state.Annotate(c.Context, runner, findings, nil, cfg.Logf); err != nil {
			return fmt.Errorf("detect: %w", err)
		}
	}
	if !c.Bool(noInvariantsFlag.Name) {
		if err := invariants.Annotate(c.Context, runner, findings, tests, cfg.Logf); err != nil {
			return fmt.Errorf("detect: %w", err)
		}
	}
	rep := &report.Report{
		Module:   module,
		Findings: findings,
		Runs:     res.Coverage.Orders,
		Stats: report.Stats{
			Tests: len(tests), Orders: res.Coverage.Orders,
			DurationMs: res.Coverage.Duration.Milliseconds(), Coverage: res.Coverage.Report(),
		},
	}
	if df != nil {
		rep.Stats.Dataflow = dataflow.Stats(nil, df)
	}
	rep.Sort()
	path, err := publishReport(c, rep, root, setup.ModuleDir, flakyDir)
	if err != nil {
		return err
	}
	printFindings(c.App.Writer, rep, res.Coverage)
	fmt.Fprintf(c.App.Writer, "report: %s (and index.html, summary.md, flaky.sarif)\n", path)
	if len(findings) > 0 {
		return &exitStatus{code: exitTestsFailed}
	}
	return nil
}

// relModule is the module's path from the root ("." for the root itself).
func relModule(root, module string) string {
	rel, err := filepath.Rel(root, module)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.Base(module)
	}
	return filepath.ToSlash(rel)
}

// printFindings prints one line per finding, grouped by kind, then the coverage.
func printFindings(w io.Writer, rep *report.Report, cov od.Coverage) {
	if cov.BudgetExhausted {
		fmt.Fprintf(w, "the budget of %s ended the analysis early: below is what it confirmed, and no test is known stable\n", cov.Budget)
	}
	if len(cov.Unconfirmed) > 0 {
		why := "the reruns of their orders confirmed no finding"
		if cov.BudgetExhausted {
			why = "the budget ended before they were confirmed"
		}
		fmt.Fprintf(w, "unconfirmed (their outcome changed, but %s): %s\n", why, strings.Join(cov.Unconfirmed, ", "))
	}
	for _, kind := range []report.Kind{report.ODVictim, report.ODBrittle, report.NIO, report.NOD} {
		for _, f := range rep.Findings {
			if f.Kind != kind {
				continue
			}
			var details []string
			for _, g := range []struct {
				name   string
				groups [][]string
			}{{"polluters", f.Polluters}, {"setters", f.Setters}, {"cleaners", f.Cleaners}} {
				if len(g.groups) > 0 {
					details = append(details, g.name+" "+formatGroups(g.groups))
				}
			}
			if kind == report.NOD || len(details) == 0 {
				details = append(details, report.FirstLine(f.Message))
			}
			if roots := state.Confirmed(f.PollutedState); len(roots) > 0 {
				details = append(details, "state "+strings.Join(roots, ", "))
			}
			fmt.Fprintf(w, "%-10s %s  %s\n", kind, f.Test, strings.Join(details, "; "))
		}
	}
	stop := ""
	if cov.BudgetExhausted {
		stop = fmt.Sprintf(", stopped at the budget of %s", cov.Budget)
	}
	unconfirmed := ""
	if n := len(cov.Unconfirmed); n > 0 {
		unconfirmed = fmt.Sprintf(", %d unconfirmed", n)
	}
	workers := ""
	if cov.Workers > 0 && cov.Duration > 0 {
		workers = fmt.Sprintf(" on %d workers, %.0f%% busy, %.1f CPU cores used", cov.Workers, 100*cov.Efficiency, float64(cov.JVMCPU)/float64(cov.Duration))
	}
	explored := fmt.Sprintf("%d exploration", cov.Rounds)
	if cov.WarmOrders > 0 {
		explored += fmt.Sprintf(", %d of them in %d warm JVMs", cov.WarmOrders, cov.WarmJVMs)
	}
	fmt.Fprintf(w, "%d flaky of %d tests: %d orders (%s, seed %d), %d of %d pairs adjacent, %d tests alone%s%s, %s%s\n",
		len(rep.Findings), cov.Tests, cov.Orders, explored, cov.Seed, cov.PairsCovered, cov.Pairs, cov.TestsAlone,
		unconfirmed, stop, cov.Duration.Round(100*time.Millisecond), workers)
}

// formatGroups prints groups as "[a + b], [c]".
func formatGroups(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "[" + strings.Join(g, " + ") + "]"
	}
	return strings.Join(parts, ", ")
}

// ranOrders refuses to report an analysis that completed none of its orders
// as clean: "0 flaky" would only mean that nothing ran.
func ranOrders(tests int, cov od.Coverage) error {
	if tests == 0 || cov.Orders > 0 {
		return nil
	}
	why := "no order completed"
	if cov.BudgetExhausted {
		why += fmt.Sprintf(" within the budget of %s (raise --budget, or check for tests that hang)", cov.Budget)
	}
	return &exitStatus{code: exitError, msg: fmt.Sprintf("detect: %s; no result for the %d tests", why, tests)}
}
