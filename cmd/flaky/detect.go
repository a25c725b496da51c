package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/analysis/state"
	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/gate/knowledge"
	"github.com/flakyhq/flaky/internal/output/publish"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// noStateFlag skips naming the polluted state of OD findings.
var noStateFlag = &cli.BoolFlag{Name: "no-state", Usage: "do not name and confirm the polluted state of each OD victim and brittle"}

// strategyFlag picks how detect finds OD tests.
var strategyFlag = &cli.StringFlag{Name: "strategy", Value: dataflow.StrategyBoth,
	Usage: "dataflow (record which test wrote the shared state each test reads, then test those dependencies; PraDeT), orders (the order generators) or both (dataflow first, then the orders; a test both find keeps the orders' finding, which has cleaners)"}

// graphFlag names where detect writes the data-dependency graph.
var graphFlag = &cli.StringFlag{Name: "graph", Usage: "write the data-dependency graph as Graphviz DOT to `FILE` and as JSON to FILE.json (with --strategy dataflow or both)"}

// knowledgeFlag names the knowledge folder a full analysis records what it learned in.
var knowledgeFlag = &cli.StringFlag{Name: "knowledge", Usage: "keep what the analysis learned about each test in the knowledge folder `DIR` (one store per module, safe to delete; default: under flaky's cache directory)"}

// reverseFlag adds a reference run of the reversed order.
var reverseFlag = &cli.BoolFlag{Name: "dataflow-reverse", Usage: "also record data dependencies in a run of the reversed order (PraDeT's remedy when a test that resets shared state hides a polluter from the original order)"}

// detectCommand finds a module's order-dependent flaky tests outside Maven's verify phase.
func detectCommand() *cli.Command {
	return &cli.Command{
		Name:  "detect",
		Usage: "find a module's order-dependent flaky tests (victims, brittles, NIO, NOD) and the shared state behind each victim and brittle, and write target/flaky/report.json; exits 1 when it finds some, or when tests did not run (crashed, timed out or got no result in every run)",
		Flags: []cli.Flag{
			moduleFlag,
			mavenProfileFlag(),
			mavenPropertyFlag(),
			&cli.StringFlag{Name: "root", Usage: "the project's Maven root, for -pl in the reproduce commands (default: the root of the reactor on disk that builds the module)"},
			&cli.IntFlag{Name: "rounds", Usage: "exploration orders to run; 0 for none", DefaultText: "enough to put every pair of classes next to each other, plus a few random orders"},
			&cli.DurationFlag{Name: "budget", Usage: "wall-clock budget; the analysis stops cleanly when it is spent", DefaultText: "scaled to the suite's measured run time, at least 5m; the report says what it chose"},
			&cli.Int64Flag{Name: "seed", Usage: "seed for the generated orders", DefaultText: "a random one, recorded in the report"},
			&cli.IntFlag{Name: "confirmations", Value: od.DefaultConfirmations, Usage: "runs of an order that must agree before a finding is reported"},
			testTimeoutFlag("kill a JVM when one test runs longer than this"),
			noStateFlag,
			&cli.BoolFlag{Name: "warm", Usage: fmt.Sprintf("run the exploration orders up to %d at a time in one JVM, each in a fresh class loader with the JDK state reset between them; every candidate is still confirmed and minimised in fresh JVMs", od.DefaultWarmOrders)},
			&cli.StringFlag{Name: "shard", Usage: "I/N: run only the I-th of N disjoint shares of the exploration orders (needs --seed) and write a partial report, target/flaky/shard-I-of-N.json, for flaky merge"},
			noInvariantsFlag,
			strategyFlag,
			graphFlag,
			reverseFlag,
			sinceFlag,
			knowledgeFlag,
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runDetect(c.Context, detectOptions{
				globalOptions: globalsOf(c),
				Module:        c.String("module"),
				Root:          c.String("root"),
				Rounds:        c.Int("rounds"),
				RoundsSet:     c.IsSet("rounds"),
				Budget:        c.Duration("budget"),
				BudgetSet:     c.IsSet("budget"),
				Seed:          c.Int64("seed"),
				SeedSet:       c.IsSet("seed"),
				Confirmations: c.Int("confirmations"),
				TestTimeout:   c.Duration("test-timeout"),
				NoState:       c.Bool(noStateFlag.Name),
				Warm:          c.Bool("warm"),
				Shard:         c.String("shard"),
				NoInvariants:  c.Bool(noInvariantsFlag.Name),
				Strategy:      c.String(strategyFlag.Name),
				Graph:         c.String(graphFlag.Name),
				Reverse:       c.Bool(reverseFlag.Name),
				Since:         c.String(sinceFlag.Name),
				Knowledge:     c.String(knowledgeFlag.Name),
			})
		},
	}
}

// detectOptions are detect's flags.
type detectOptions struct {
	globalOptions
	Module        string // the module's directory
	Root          string // the project's Maven root; "": the reactor root on disk
	Rounds        int
	RoundsSet     bool // --rounds was given (0 then means none)
	Budget        time.Duration
	BudgetSet     bool // --budget was given (it must then be positive)
	Seed          int64
	SeedSet       bool // --seed was given (else a random one)
	Confirmations int
	TestTimeout   time.Duration
	NoState       bool
	NoInvariants  bool
	Warm          bool
	Shard         string // "I/N", or "" for the whole analysis
	Strategy      string
	Graph         string
	Reverse       bool
	Since         string // --since: the base of the change to analyse; "" for all tests
	Knowledge     string // the knowledge folder; "": the default
}

// analysedModule names the module a detection analyses and how its
// launchers time tests out (detect's and merge's).
type analysedModule struct {
	Dir, Root   string
	TestTimeout time.Duration
	Knowledge   string // the knowledge folder (detect's --knowledge)
}

// runDetect checks o and runs the detection pipeline on the module.
func runDetect(ctx context.Context, o detectOptions) error {
	if o.Budget < 0 || (o.BudgetSet && o.Budget == 0) || o.Confirmations < 1 || o.Rounds < 0 || o.TestTimeout < 0 {
		return usageError("--budget must be positive, --confirmations at least 1, --rounds and --test-timeout not negative")
	}
	if _, err := dataflow.ParseStrategy(o.Strategy); err != nil {
		return usageError("--strategy: %v", err)
	}
	d := &pipeline.DetectOptions{
		Strategy:      o.Strategy,
		Seed:          o.Seed,
		Rounds:        o.Rounds,
		Budget:        o.Budget,
		Confirmations: o.Confirmations,
		Reverse:       o.Reverse,
		Graph:         o.Graph,
		NoState:       o.NoState,
		NoInvariants:  o.NoInvariants,
	}
	if o.Shard != "" {
		var err error
		if d.Shard, err = od.ParseShard(o.Shard); err != nil {
			return usageError("--shard: %v", err)
		}
		if !o.SeedSet {
			return usageError("--shard needs --seed: every shard must plan the same orders")
		}
	}
	if o.Warm {
		d.Warm = od.DefaultWarmOrders
	}
	if o.Since != "" {
		if o.Shard != "" {
			return usageError("--since and --shard cannot go together: a change's analysis is small")
		}
		var err error
		if d.Change, err = changeSince(o.Module, o.Since, o.Stderr, "flaky: detect: "); err != nil {
			return err
		}
	}
	switch {
	case o.SeedSet:
	case d.Change != nil:
		d.Seed = d.Change.Change.Seed()
	default:
		d.Seed = rand.Int64()
	}
	if o.RoundsSet && d.Rounds == 0 {
		d.Rounds = -1
	}
	return analyseModule(ctx, o.globalOptions, "detect", analysedModule{Dir: o.Module, Root: o.Root, TestTimeout: o.TestTimeout, Knowledge: o.Knowledge}, d)
}

// analyseModule runs the detection stages of the pipeline on the module
// (detect and merge), then writes the report, or a shard's partial report.
func analyseModule(ctx context.Context, g globalOptions, name string, am analysedModule, d *pipeline.DetectOptions) error {
	if d.Change != nil && d.Change.Inert() != "" {
		return reportInert(ctx, g, name, am, d)
	}
	opts := launcher.Options{TestTimeout: am.TestTimeout}
	setup, l, err := g.openModule(ctx, am.Dir, opts)
	if err != nil {
		return err
	}
	defer l.Close()
	root, err := projectRoot(setup, am.Root)
	if err != nil {
		return err
	}
	flakyDir := flakydir.ForTestClasses(setup.TestClassesDir).Path()
	if err := publish.CheckWritable(publish.Options{Root: root, ModuleDir: setup.ModuleDir, FlakyDir: flakyDir}); err != nil {
		return err
	}
	infos, tests, how, err := listModule(ctx, setup, l)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.debugLog(), "flaky: %s: default order: classes in %s\n", name, how)
	// The analysis runs in JVMs like l's that start faster.
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	prog := g.startProgress(name)
	defer prog.finish()
	opts.Workers = g.Workers
	opts.Notef = noteOnce(g.Stderr, "flaky: "+name+": note: ")
	opts.Ran = prog.ran
	runner, err := pipeline.NewFast(g.env(setup), jars, opts)
	if err != nil {
		return err
	}
	defer runner.Close()
	d.AutoWorkers, d.RequireOrders = !g.WorkersSet, true
	m := pipeline.NewModule(root, setup.ModuleDir, flakydir.Dir(flakyDir))
	m.Tests, m.Infos, m.Fast, m.ClassDirs = tests, infos, runner, []string{setup.ClassesDir, setup.TestClassesDir}
	popts := pipeline.Options{InitStep: true, MavenArgs: setup.Maven.Args(), Workers: g.Workers, Progress: prog.tracker, Detect: d}
	if popts.Knowledge, err = knowledge.Dir(am.Knowledge, m.Dir, m.Name); err != nil {
		return err
	}
	res, err := pipeline.Run(ctx, m, popts, prog.log(g, "flaky: "+name+": "))
	var none *pipeline.NoOrdersError
	switch {
	case errors.As(err, &none):
		return &exitStatus{code: exitError, msg: "detect: " + err.Error()}
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	}
	if d.Shard.N > 0 {
		fmt.Fprintf(g.Stdout, "shard %s of %d tests: %d orders (seed %d), %s\npartial report: %s\n",
			d.Shard, len(tests), res.OD.Coverage.Orders, d.Seed, res.OD.Coverage.Duration.Round(100*time.Millisecond), res.Partial)
		return nil
	}
	rep := res.Report
	path, err := g.publishReport(ctx, rep, root, setup.ModuleDir, m.FlakyDir)
	if err != nil {
		return err
	}
	if res.OD == nil { // a change that no test runs: nothing was judged
		printChange(g.Stdout, rep.Stats.Change)
		fmt.Fprintf(g.Stdout, "report: %s (and index.html, summary.md, flaky.sarif)\n", path)
		return nil
	}
	printMerge(g.Stdout, rep.Stats.Merge)
	printFindings(g.Stdout, rep, res.OD.Coverage)
	fmt.Fprintf(g.Stdout, "report: %s (and index.html, summary.md, flaky.sarif)\n", path)
	return verdict(name, rep, res.OD.Coverage)
}

// verdict is the exit status of a detection's report: 1 when it found
// flaky tests, when tests did not run (a count of flaky tests is no clean
// verdict for tests that never ran), or when a merge's clean verdict would
// rest on the shards' word (report.MergeStats.Unverified); else 0.
func verdict(name string, rep *report.Report, cov od.Coverage) error {
	if len(rep.Findings) > 0 {
		return &exitStatus{code: exitTestsFailed}
	}
	if n := len(cov.NeverRan); n > 0 {
		return &exitStatus{code: exitTestsFailed, msg: fmt.Sprintf("%s: %d of %d tests did not run in any order: no verdict for them", name, n, cov.Tests)}
	}
	if ms := rep.Stats.Merge; ms.Unverified() {
		n, runs := ms.Unchecked()
		return &exitStatus{code: exitTestsFailed, msg: fmt.Sprintf("%s: no flaky test found, but unverified: %d of the parts' %d runs were not rerun here (--verify all, or --trust-parts for parts from jobs as trusted as this one)", name, n, runs)}
	}
	return nil
}

// printChange says what a change's analysis analysed and why, and what
// it found of the tests known to be flaky before.
func printChange(w io.Writer, ch *report.ChangeStats) {
	if ch == nil {
		return
	}
	fmt.Fprintf(w, "change since %s: %s\n", change.QuoteRef(ch.Ref), ch.Summary)
	if len(ch.Known) > 0 {
		fmt.Fprintf(w, "known flaky before the change, still flaky: %s\n", strings.Join(ch.Known, ", "))
	}
	if len(ch.Settled) > 0 {
		fmt.Fprintf(w, "known victims kept as known (neither they nor their known polluters changed; no new polluter found): %d\n", len(ch.Settled))
	}
	if len(ch.PossiblyFixed) > 0 {
		fmt.Fprintf(w, "possibly fixed (flaky before the change; its polluter and it ran together and it passed): %s\n", strings.Join(ch.PossiblyFixed, ", "))
	}
}

// printFindings prints one line per finding, grouped by kind, then the
// coverage; with a change, first what it analysed.
func printFindings(w io.Writer, rep *report.Report, cov od.Coverage) {
	printChange(w, rep.Stats.Change)
	if cov.BudgetExhausted {
		fmt.Fprintf(w, "the budget of %s ended the analysis early: below is what it confirmed, and no test is known stable\n", cov.Budget)
	}
	if len(cov.Unminimised) > 0 {
		fmt.Fprintf(w, "confirmed, not minimised (the budget ended first; their failing orders hold the polluters or state-setters): %s\n", strings.Join(cov.Unminimised, ", "))
	}
	if len(cov.Unconfirmed) > 0 {
		why := "the reruns of their orders confirmed no finding"
		if cov.BudgetExhausted {
			why = "the budget ended before they were confirmed"
		}
		label := "unconfirmed"
		if rep.Stats.Change != nil {
			// A change's verdict rests on confirmed findings only.
			label, why = "suspected", why+"; not flaky until confirmed, the verdict stands"
		}
		fmt.Fprintf(w, "%s (their outcome changed, but %s): %s\n", label, why, strings.Join(cov.Unconfirmed, ", "))
	}
	if n := len(cov.NeverRan); n > 0 {
		fmt.Fprintf(w, "did not run (crashed, timed out or got no result in every run: nothing was judged of them): %d test%s, %s\n", n, plural(n), od.ListSome(cov.NeverRan, maxNamed))
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
			if f.Note != "" {
				details = append(details, "("+f.Note+")")
			}
			fmt.Fprintf(w, "%-10s %s  %s\n", kind, f.Test, strings.Join(details, "; "))
		}
	}
	stop := ""
	if cov.BudgetExhausted {
		stop = fmt.Sprintf(", stopped at the budget of %s", cov.Budget)
	}
	unconfirmed := ""
	if n := len(cov.Unminimised); n > 0 {
		unconfirmed = fmt.Sprintf(", %d not minimised", n)
	}
	if n := len(cov.Unconfirmed); n > 0 {
		unconfirmed += fmt.Sprintf(", %d unconfirmed", n)
	}
	workers := ""
	if cov.Workers > 0 && cov.Duration > 0 {
		workers = fmt.Sprintf(" on %d workers, %.0f%% busy, %.1f CPU cores used", cov.Workers, 100*cov.Efficiency, float64(cov.JVMCPU)/float64(cov.Duration))
	}
	explored := fmt.Sprintf("%d exploration", cov.Rounds)
	if cov.Generators[od.GenPairs] > 0 {
		explored = fmt.Sprintf("%d covering the pairs", cov.Rounds)
	}
	if cov.WarmOrders > 0 {
		explored += fmt.Sprintf(", %d of them in %d warm JVMs", cov.WarmOrders, cov.WarmJVMs)
	}
	notRun := ""
	if n := len(cov.NeverRan); n > 0 {
		notRun = fmt.Sprintf(" (%d did not run)", n)
	}
	if ms := rep.Stats.Merge; ms.Unverified() {
		n, runs := ms.Unchecked()
		notRun += fmt.Sprintf(" (unverified: %d of the parts' %d runs not rerun here)", n, runs)
	}
	fmt.Fprintf(w, "%d flaky of %d tests%s: %d orders (%s, seed %d), %d of %d pairs adjacent, %d tests alone%s%s, %s%s\n",
		len(rep.Findings), cov.Tests, notRun, cov.Orders, explored, cov.Seed, cov.PairsCovered, cov.Pairs, cov.TestsAlone,
		unconfirmed, stop, cov.Duration.Round(100*time.Millisecond), workers)
}

// maxNamed bounds the tests a console line names.
const maxNamed = 10

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// formatGroups prints groups as "[a + b], [c]".
func formatGroups(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "[" + strings.Join(g, " + ") + "]"
	}
	return strings.Join(parts, ", ")
}
