package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/chaos"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/mvn"
)

// chaosCommand runs a module's suite with nondeterministic JDK APIs perturbed.
func chaosCommand() *cli.Command {
	return &cli.Command{
		Name:  "chaos",
		Usage: "find tests that rely on what nondeterministic JDK APIs never promised, by perturbing those APIs; writes target/flaky/report.json (keeping other analyses' findings) and exits 1 when it finds some",
		Description: "Strategies: " + strings.Join(chaos.IDs(chaos.Strategies), ", ") + ", or a group name for all of its strategies\n" +
			"(" + strings.Join(chaos.Groups(), ", ") + ").\n" +
			"combined mode (default) runs the suite once with one strategy per group (default: " + chaos.Join(chaos.DefaultCombined) + "),\n" +
			"then attributes each failure to the strategy that reproduces it alone; single mode runs the suite once per strategy\n" +
			"(default: all). A test is reported only when it passes in an unperturbed run of the same order.",
		Flags: []cli.Flag{
			moduleFlag,
			&cli.StringFlag{Name: "root", Usage: "the project's Maven root, for the module name in the report (default: the root of the reactor on disk that builds the module)"},
			&cli.StringSliceFlag{Name: "strategy", Usage: "strategy or group to apply (repeatable, or joined with +)"},
			&cli.StringFlag{Name: "mode", Value: string(chaos.Combined), Usage: "combined or single"},
			&cli.DurationFlag{Name: "budget", Value: chaos.DefaultBudget, Usage: "wall-clock budget for attribution and single-strategy runs beyond the first batch"},
			&cli.StringSliceFlag{Name: "param", Usage: "strategy parameter key=value, e.g. time.increment=3000, locale=de_DE, seed=7 (repeatable)"},
			&cli.StringSliceFlag{Name: "include", Usage: "instrument the classes matching this class-name pattern (e.g. com.acme.**) instead of the module's own classes (repeatable)"},
			&cli.StringSliceFlag{Name: "exclude", Usage: "do not instrument the classes matching this class-name pattern (repeatable)"},
			&cli.DurationFlag{Name: "test-timeout", Value: 2 * time.Minute, Usage: "kill a JVM when one test runs longer than this (0: off); a perturbed test that hangs counts as failing"},
			&cli.StringFlag{Name: "explain", Usage: "rerun the api finding of this test (from target/flaky/report.json) with its strategy and print every perturbed call it made, with the original and the perturbed value"},
		},
		Action: runChaos,
	}
}

func runChaos(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	mode, err := chaos.ParseMode(c.String("mode"))
	if err != nil {
		return usageError("--mode: %v", err)
	}
	var strategies []chaos.Strategy
	if names := c.StringSlice("strategy"); len(names) > 0 {
		if strategies, err = chaos.Parse(names...); err != nil {
			return usageError("--strategy: %v", err)
		}
	}
	if c.Duration("budget") <= 0 || c.Duration("test-timeout") < 0 {
		return usageError("--budget must be positive and --test-timeout not negative")
	}
	settings := chaos.Settings{Include: c.StringSlice("include"), Exclude: c.StringSlice("exclude"), Params: c.StringSlice("param")}
	if _, err := settings.AgentOptions(chaos.Strategies); err != nil {
		return usageError("%v", err)
	}
	setup, l, err := openModule(c, launcher.Options{TestTimeout: c.Duration("test-timeout"), Notef: noteOnce(c.App.ErrWriter, "flaky: chaos: note: ")})
	if err != nil {
		return err
	}
	defer l.Close()
	settings = withModuleRoots(settings, setup)
	if test := c.String("explain"); test != "" {
		return explainFinding(c, l, setup, settings, test)
	}
	infos, err := l.List(c.Context, launcher.Selection{TestClassesDir: setup.TestClassesDir, Includes: setup.Includes, Excludes: setup.Excludes})
	if err != nil {
		return fmt.Errorf("list tests: %w", err)
	}
	tests := make([]string, len(infos))
	for i, ti := range infos {
		tests[i] = ti.ID
	}
	res, err := chaos.Run(c.Context, l, chaos.Config{
		Tests:      tests,
		Mode:       mode,
		Strategies: strategies,
		Settings:   settings,
		Budget:     c.Duration("budget"),
		Workers:    c.Int("workers"),
		Logf: func(format string, args ...any) {
			fmt.Fprintf(c.App.ErrWriter, "flaky: chaos: "+format+"\n", args...)
		},
	})
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}

	root := setup.ReactorRoot
	if r := c.String("root"); r != "" {
		if root, err = filepath.Abs(r); err != nil {
			return err
		}
	}
	module := chaosModuleName(root, setup.ModuleDir)
	flakyDir := filepath.Join(filepath.Dir(setup.TestClassesDir), "flaky")
	findings, err := chaos.ReportFindings(res.Findings, chaos.ReportOptions{
		OrderDir: filepath.Join(flakyDir, "orders"), ModuleDir: setup.ModuleDir, Module: module, Settings: settings,
	})
	if err != nil {
		return err
	}
	if err := withInitStep(findings, setup.ModuleDir, root); err != nil {
		return err
	}
	path := filepath.Join(flakyDir, "report.json")
	rep, err := report.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		rep = &report.Report{Module: module, Stats: report.Stats{Tests: len(tests)}}
	case err != nil:
		return fmt.Errorf("%w (move it away to start a new report)", err)
	}
	chaos.Merge(rep, findings, chaos.Stats(res))
	if err := report.Write(path, rep); err != nil {
		return err
	}
	printChaos(c.App.Writer, findings, res, len(tests))
	fmt.Fprintf(c.App.Writer, "report: %s\n", path)
	if len(findings) > 0 {
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

// chaosModuleName is the module's path from the root ("." for the root itself).
func chaosModuleName(root, module string) string {
	rel, err := filepath.Rel(root, module)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.Base(module)
	}
	return filepath.ToSlash(rel)
}

// printChaos prints each api finding with its call sites and reproduce
// command, then a summary.
func printChaos(w io.Writer, findings []report.Finding, res *chaos.Result, tests int) {
	for _, f := range findings {
		fmt.Fprintf(w, "api  %s  %s (%s)\n", f.Test, f.Strategy, f.Group)
		for _, s := range f.CallSites {
			fmt.Fprintf(w, "       at %s.%s(%s:%d) calls %s\n", s.Class, s.Method, s.File, s.Line, s.API)
		}
		if f.Message != "" {
			fmt.Fprintf(w, "       %s\n", firstLine(f.Message))
		}
		fmt.Fprintf(w, "       reproduce: %s\n", f.ReproduceRunOrder)
	}
	var notes []string
	if n := len(res.FailUnperturbed); n > 0 {
		notes = append(notes, fmt.Sprintf("%d also fail unperturbed (left out)", n))
	}
	if n := len(res.Unconfirmed); n > 0 {
		notes = append(notes, fmt.Sprintf("%d unconfirmed", n))
	}
	if res.BudgetExhausted {
		notes = append(notes, "stopped at the budget")
	}
	extra := ""
	if len(notes) > 0 {
		extra = ", " + strings.Join(notes, ", ")
	}
	fmt.Fprintf(w, "%d api of %d tests: %s mode, %s, %d runs%s, %s\n", len(findings), tests, res.Mode,
		chaos.Join(res.Strategies), res.Runs, extra, res.Duration.Round(100*time.Millisecond))
}

// runOrderChaosFlags are run-order's flags for running with perturbation.
var runOrderChaosFlags = []cli.Flag{
	&cli.StringSliceFlag{Name: "chaos", Usage: "perturb APIs with this strategy or group (repeatable, or joined with +; see flaky chaos)"},
	&cli.StringSliceFlag{Name: "chaos-param", Usage: "strategy parameter key=value (repeatable)"},
	&cli.StringSliceFlag{Name: "chaos-include", Usage: "instrument the classes matching this class-name pattern instead of the module's own classes (repeatable)"},
	&cli.StringSliceFlag{Name: "chaos-exclude", Usage: "do not instrument the classes matching this class-name pattern (repeatable)"},
}

// runOrderChaos checks run-order's --chaos flags and returns the agent
// options they ask for once the module is prepared; nil without --chaos.
func runOrderChaos(c *cli.Context) (func(*mvn.TestSetup) ([]string, error), error) {
	if !c.IsSet("chaos") {
		for _, name := range []string{"chaos-param", "chaos-include", "chaos-exclude"} {
			if c.IsSet(name) {
				return nil, usageError("--%s needs --chaos", name)
			}
		}
		return nil, nil
	}
	strategies, err := chaos.Parse(c.StringSlice("chaos")...)
	if err != nil {
		return nil, usageError("--chaos: %v", err)
	}
	if len(strategies) == 0 {
		return nil, usageError("--chaos names no strategy")
	}
	settings := chaos.Settings{Include: c.StringSlice("chaos-include"), Exclude: c.StringSlice("chaos-exclude"), Params: c.StringSlice("chaos-param")}
	if _, err := settings.AgentOptions(strategies); err != nil {
		return nil, usageError("%v", err)
	}
	return func(setup *mvn.TestSetup) ([]string, error) {
		return withModuleRoots(settings, setup).AgentOptions(strategies)
	}, nil
}

// writePerturbations prints the perturbed call sites each failed test hit.
func writePerturbations(w io.Writer, r *launcher.Result) error {
	for _, t := range r.Tests {
		if !t.Outcome.Failed() {
			continue
		}
		class, _, _ := strings.Cut(t.Test, "#")
		var lines []string
		for _, p := range r.Perturbations {
			if p.Test == t.Test || p.Test == class {
				lines = append(lines, fmt.Sprintf("  %s at %s.%s(%s:%d) calls %s", p.Strategy, p.Class, p.Method, p.File, p.Line, p.API))
			}
		}
		if len(lines) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "perturbed call sites %s hit:\n%s\n", t.Test, strings.Join(lines, "\n")); err != nil {
			return err
		}
	}
	return nil
}
