package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// chaosCommand runs a module's suite with nondeterministic JDK APIs perturbed.
func chaosCommand() *cli.Command {
	return &cli.Command{
		Name:  "chaos",
		Usage: "find tests that rely on what nondeterministic JDK APIs never promised, by perturbing those APIs; writes target/flaky/report.json (keeping other analyses' findings) and exits 1 when it finds some, or when a test fails unperturbed",
		Description: "Strategies: " + strings.Join(chaos.IDs(chaos.Strategies), ", ") + ", or a group name for all of its strategies\n" +
			"(" + strings.Join(chaos.Groups(), ", ") + ").\n" +
			"combined mode (default) runs the suite once with one strategy per group (default: " + chaos.Join(chaos.DefaultCombined) + "),\n" +
			"then attributes each failure to the strategy that reproduces it alone; ITERATION_ORDER beside others runs alone over the suite\n" +
			"in a pass of its own, under each of its seeds; single mode runs the suite once per strategy\n" +
			"(default: all). A test is reported only when it passes in an unperturbed run of the same order.",
		Flags: []cli.Flag{
			moduleFlag,
			mavenProfileFlag(),
			mavenPropertyFlag(),
			&cli.StringFlag{Name: "root", Usage: "the project's Maven root, for the module name in the report (default: the root of the reactor on disk that builds the module)"},
			&cli.StringSliceFlag{Name: "strategy", Usage: "strategy or group to apply (repeatable, or joined with +)"},
			&cli.StringFlag{Name: "mode", Value: string(chaos.Combined), Usage: "combined or single"},
			&cli.DurationFlag{Name: "budget", Usage: "wall-clock budget for attribution, single-strategy runs beyond the first batch and confirmations", DefaultText: "sized from the unperturbed run's duration and the number of strategies, at least " + chaos.DefaultBudget.String()},
			&cli.StringSliceFlag{Name: "param", Usage: "strategy parameter key=value, e.g. time.increment=3000, locale=de_DE, seed=7 (repeatable)"},
			&cli.IntFlag{Name: "seeds", Value: chaos.DefaultSeeds, Usage: "how many seeds ITERATION_ORDER runs under, when it is among the strategies: the first (seed= of --param, else the agent's) and the next ones counting up; 0 means the default"},
			&cli.StringSliceFlag{Name: "include", Usage: "instrument the classes matching this class-name pattern (e.g. com.acme.**) instead of the module's own classes (repeatable)"},
			&cli.StringSliceFlag{Name: "exclude", Usage: "do not instrument the classes matching this class-name pattern (repeatable)"},
			testTimeoutFlag("kill a JVM when one test runs longer than this; a perturbed test that hangs counts as failing"),
			&cli.StringFlag{Name: "explain", Usage: "rerun the api finding of this test (from target/flaky/report.json) with its strategy and print every perturbed call it made, with the original and the perturbed value"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runChaos(c.Context, chaosOptions{
				globalOptions: globalsOf(c),
				Module:        c.String("module"),
				Root:          c.String("root"),
				Strategies:    c.StringSlice("strategy"),
				Mode:          c.String("mode"),
				Budget:        c.Duration("budget"),
				Params:        c.StringSlice("param"),
				Seeds:         c.Int("seeds"),
				Include:       c.StringSlice("include"),
				Exclude:       c.StringSlice("exclude"),
				TestTimeout:   c.Duration("test-timeout"),
				Explain:       c.String("explain"),
			})
		},
	}
}

// chaosOptions are chaos's flags.
type chaosOptions struct {
	globalOptions
	Module      string   // the module's directory
	Root        string   // the project's Maven root; "": the reactor root on disk
	Strategies  []string // strategies or groups, each possibly joined with +
	Mode        string
	Budget      time.Duration
	Params      []string // key=value
	Seeds       int      // ITERATION_ORDER's seeds
	Include     []string // class-name patterns to instrument
	Exclude     []string // class-name patterns not to instrument
	TestTimeout time.Duration
	Explain     string // a test whose api finding to rerun and explain
}

// runChaos checks o and runs the pipeline's API perturbation on the
// module (or, with Explain, reruns one finding).
func runChaos(ctx context.Context, o chaosOptions) error {
	mode, err := chaos.ParseMode(o.Mode)
	if err != nil {
		return usageError("--mode: %v", err)
	}
	var strategies []chaos.Strategy
	if len(o.Strategies) > 0 {
		if strategies, err = chaos.Parse(o.Strategies...); err != nil {
			return usageError("--strategy: %v", err)
		}
	}
	if o.Budget < 0 || o.TestTimeout < 0 {
		return usageError("--budget and --test-timeout must not be negative")
	}
	if o.Seeds < 0 {
		return usageError("--seeds must not be negative (0: %d)", chaos.DefaultSeeds)
	}
	settings := chaos.Settings{Include: o.Include, Exclude: o.Exclude, Params: o.Params}
	if _, err := settings.AgentOptions(chaos.Strategies); err != nil {
		return usageError("%v", err)
	}
	g := o.globalOptions
	// The report's test method lines come from the source editor: its JVM
	// starts now, beside the analysis, not after it.
	editor.Prestart(g.java())
	prog := g.startProgress("chaos")
	defer prog.finish()
	// Class-data sharing makes the JVMs start faster; it changes nothing
	// they run (see launcher.CDSCache).
	setup, l, err := g.openModule(ctx, o.Module, launcher.Options{TestTimeout: o.TestTimeout, Notef: noteOnce(g.Stderr, "flaky: chaos: note: "), Ran: prog.ran, CDSDir: launcher.CDSCache()})
	if err != nil {
		return err
	}
	defer l.Close()
	settings = withModuleRoots(settings, setup)
	if o.Explain != "" {
		return explainFinding(ctx, g, prog, l, setup, settings, o.Explain)
	}
	if !g.WorkersSet {
		chaos.PrestartUnperturbed(l, settings)
	}
	infos, tests, how, err := listModule(ctx, setup, l)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.debugLog(), "flaky: chaos: default order: classes in %s\n", how)
	root, err := projectRoot(setup, o.Root)
	if err != nil {
		return err
	}
	m := pipeline.NewModule(root, setup.ModuleDir, flakydir.ForTestClasses(setup.TestClassesDir))
	m.Tests, m.Infos, m.Launcher, m.ClassDirs = tests, infos, l, []string{setup.ClassesDir, setup.TestClassesDir}
	path := flakydir.Dir(m.FlakyDir).Report()
	rep, err := report.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		rep = nil // the pipeline starts one
	case err != nil:
		return fmt.Errorf("%w (move it away to start a new report)", err)
	}
	res, err := pipeline.Run(ctx, m, pipeline.Options{
		Report: rep, InitStep: true, MavenArgs: setup.Maven.Args(), Workers: g.Workers, Progress: prog.tracker,
		Chaos: &pipeline.ChaosOptions{Mode: mode, Strategies: strategies, Settings: settings, Budget: o.Budget, Seeds: o.Seeds, AutoWorkers: !g.WorkersSet},
	}, prog.log(g, "flaky: chaos: "))
	if err != nil {
		return err
	}
	// An interrupted analysis still writes what it judged.
	if _, err := g.publishReport(context.WithoutCancel(ctx), res.Report, root, setup.ModuleDir, m.FlakyDir); err != nil {
		return err
	}
	printChaos(g.Stdout, res.ChaosFindings, res.Chaos, len(tests))
	fmt.Fprintf(g.Stdout, "report: %s (and index.html, summary.md, flaky.sarif)\n", path)
	if len(res.ChaosFindings) > 0 || len(res.Chaos.Failing) > 0 {
		return &exitStatus{code: exitTestsFailed}
	}
	return nil
}

// withModuleRoots makes s instrument the module's own classes (its classes
// and test-classes directories) unless it has include patterns.
func withModuleRoots(s chaos.Settings, setup *mvn.TestSetup) chaos.Settings {
	if len(s.Include) == 0 {
		s.Roots = chaos.RootsFor(setup.ModuleDir, setup.ClassesDir, setup.TestClassesDir)
	}
	return s
}

// printChaos prints what the analysis left out, the tests flaky without
// perturbation and those failing unperturbed, then each api finding with
// its call sites and reproduce command, the per-strategy counts, and a
// summary that claims the whole suite only when every strategy ran all of it.
func printChaos(w io.Writer, findings []report.Finding, res *chaos.Result, listed int) {
	tests := listed
	if res.Tests > 0 {
		tests = res.Tests
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(w, "skipped: %s did not run: the budget of %s ended first (raise --budget)\n", chaos.Join(res.Skipped), res.Budget.Round(time.Second))
	}
	complete := len(res.Skipped) == 0
	for _, c := range res.Coverage {
		if c.Attribution {
			continue // attribution runs only go as far as the failures they attribute
		}
		if c.NotRun > 0 {
			complete = false
			fmt.Fprintf(w, "not analysed: %d test(s) never ran under %s (%d JVM(s); see the notes above)\n", c.NotRun, c.Run, c.JVMs)
		}
	}
	for _, m := range res.Machinery {
		fmt.Fprintf(w, "left out: %s\n", m)
	}
	for _, sus := range res.Suspected {
		fmt.Fprintf(w, "suspected  %s (not a finding)\n", sus)
	}
	var api []report.Finding
	for _, f := range findings {
		if f.Kind == report.API {
			api = append(api, f)
		}
	}
	for _, n := range res.NOD {
		fmt.Fprintf(w, "nod  %s (flaky without perturbation: no strategy named)\n", n)
		for _, f := range findings {
			if f.Kind == report.NOD && f.Test == n.Test {
				fmt.Fprintf(w, "       reproduce (now and then): %s\n", f.ReproduceRunOrder)
			}
		}
	}
	for _, f := range res.Failing {
		fmt.Fprintf(w, "failing  %s (not analysed)\n", f)
	}
	for _, f := range api {
		fmt.Fprintf(w, "api  %s  %s (%s)\n", f.Test, f.Strategy, f.Group)
		if len(f.Strategies) > 1 {
			fmt.Fprintf(w, "       fails with: %s\n", strings.Join(f.Strategies, ", "))
		}
		if f.Robust != nil {
			fmt.Fprintf(w, "       robust: %t (with a tenth of the perturbation)\n", *f.Robust)
		}
		for _, s := range f.CallSites {
			fmt.Fprintf(w, "       at %s.%s(%s:%d) calls %s\n", s.Class, s.Method, s.File, s.Line, s.API)
		}
		if f.Message != "" {
			fmt.Fprintf(w, "       %s\n", report.FirstLine(f.Message))
		}
		fmt.Fprintf(w, "       reproduce: %s\n", f.ReproduceRunOrder)
	}
	st := chaos.Stats(res)
	if len(st.PerStrategy) > 0 {
		fmt.Fprintf(w, "%-20s %-16s %6s %7s %8s %8s %7s\n", "strategy", "group", "tests", "not-run", "failures", "findings", "time")
		for _, r := range st.PerStrategy {
			took := (time.Duration(r.DurationMs) * time.Millisecond).Round(100 * time.Millisecond)
			fmt.Fprintf(w, "%-20s %-16s %6d %7d %8d %8d %7s\n", r.Name, r.Group, r.Tests, r.NotRun, r.Failures, r.Findings, took)
		}
		for _, r := range st.PerGroup { // distinct tests over the group's strategies
			fmt.Fprintf(w, "%-20s %-16s %6d %7d %8d %8d\n", "(all)", r.Name, r.Tests, r.NotRun, r.Failures, r.Findings)
		}
	}
	var notes []string
	if n := len(res.NOD); n > 0 {
		notes = append(notes, fmt.Sprintf("%d flaky without perturbation (nod)", n))
	}
	if n := len(res.Failing); n > 0 {
		notes = append(notes, fmt.Sprintf("%d failing unperturbed (not analysed)", n))
	}
	if n := len(res.Unconfirmed); n > 0 {
		notes = append(notes, fmt.Sprintf("%d unconfirmed", n))
	}
	if n := len(res.Suspected); n > 0 {
		notes = append(notes, fmt.Sprintf("%d suspected (not findings: see why above)", n))
	}
	if res.BudgetExhausted {
		notes = append(notes, fmt.Sprintf("stopped at the budget of %s", res.Budget.Round(time.Second)))
	}
	if res.Interrupted {
		notes = append(notes, "interrupted during "+res.Cut+" (partial results)")
	}
	extra := ""
	if len(notes) > 0 {
		extra = ", " + strings.Join(notes, ", ")
	}
	scope := fmt.Sprintf("of %d tests", tests)
	if !complete {
		scope = fmt.Sprintf("in %d tests, not all of them analysed under every strategy (see above)", tests)
	}
	fmt.Fprintf(w, "%d api %s: %s mode, %s, %d runs%s, %s\n", len(api), scope, res.Mode,
		chaos.Join(res.Strategies), res.Runs, extra, res.Duration.Round(100*time.Millisecond))
}
