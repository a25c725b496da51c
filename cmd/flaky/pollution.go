package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"
	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/analysis/state"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

// pollutionCommand finds the tests whose run changes shared state (PolDet).
func pollutionCommand() *cli.Command {
	return &cli.Command{
		Name:  "pollution",
		Usage: "run a module's tests with a state capture before and after each and list the tests that change shared state (static fields, system properties, JDK defaults, files); adds polluter findings to target/flaky/report.json and exits 1 when it finds some",
		Flags: []cli.Flag{
			moduleFlag,
			testTimeoutFlag("kill the JVM when one test runs longer than this"),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runPollution(c.Context, pollutionOptions{globalOptions: globalsOf(c), Module: c.String("module"), TestTimeout: c.Duration("test-timeout")})
		},
	}
}

// pollutionOptions are pollution's flags.
type pollutionOptions struct {
	globalOptions
	Module      string // the module's directory
	TestTimeout time.Duration
}

// runPollution runs the module's tests with a state capture around each
// and reports the tests that change shared state.
func runPollution(ctx context.Context, o pollutionOptions) error {
	g := o.globalOptions
	setup, l, err := g.openModule(ctx, o.Module, launcher.Options{TestTimeout: o.TestTimeout, Notef: noteOnce(g.Stderr, "flaky: pollution: note: ")})
	if err != nil {
		return err
	}
	defer l.Close()
	_, order, how, err := listModule(ctx, setup, l)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.debugLog(), "flaky: pollution: default order: classes in %s\n", how)
	res, err := l.RunWith(ctx, order, launcher.RunOptions{AgentOptions: agent.Options{State: agent.StateOptions{All: true}}})
	if err != nil {
		return fmt.Errorf("pollution: %w", err)
	}
	pols := state.Polluters(res.States)
	reproduce := shellquote.Join("flaky", "pollution", "--module", setup.ModuleDir)
	var findings []report.Finding
	for _, p := range pols {
		f := report.Finding{
			Test: p.Test, Kind: report.Polluter, Reproduce: reproduce,
			Message:  fmt.Sprintf("its run changed %d shared root(s); passing is the value before the test, failing after it", len(p.Roots)),
			Evidence: []report.Evidence{{Run: "pollution: the module's tests in their default order", Outcome: string(outcomeOf(res, p.Test))}},
		}
		for _, r := range p.Roots {
			for _, ch := range r.Changes {
				f.PollutedState = append(f.PollutedState, report.StateItem{Kind: r.Kind, Root: r.Root, Path: ch.Path, Passing: ch.A, Failing: ch.B})
			}
		}
		findings = append(findings, f)
	}
	flakyDir := flakydir.ForTestClasses(setup.TestClassesDir)
	path := flakyDir.Report()
	rep, err := report.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		rep, err = &report.Report{Module: mvn.ModulePath(setup.ReactorRoot, setup.ModuleDir)}, nil
	}
	if err != nil {
		return err
	}
	rep.Findings = append(slices.DeleteFunc(rep.Findings, func(f report.Finding) bool { return f.Kind == report.Polluter }), findings...)
	rep.Sort()
	// Every format is rewritten from the report, so that none disagrees with report.json.
	if _, err := g.publishReport(context.WithoutCancel(ctx), rep, setup.ReactorRoot, setup.ModuleDir, flakyDir.Path()); err != nil {
		return err
	}
	for _, p := range pols {
		fmt.Fprintf(g.Stdout, "%-10s %s  %s\n", report.Polluter, p.Test, describeRoots(p.Roots))
	}
	fmt.Fprintf(g.Stdout, "%d of %d tests changed shared state, %s\n", len(pols), len(order), res.Duration.Round(100_000_000))
	fmt.Fprintf(g.Stdout, "report: %s\n", path)
	if len(pols) > 0 {
		return &exitStatus{code: exitTestsFailed}
	}
	return nil
}

// outcomeOf returns a test's outcome in a run (the last result for it).
func outcomeOf(r *launcher.Result, test string) launcher.Outcome {
	o := launcher.NotRun
	for _, t := range r.Tests {
		if t.Test == test {
			o = t.Outcome
		}
	}
	return o
}

// maxShownRoots bounds the roots printed per polluter (report.json has them all).
const maxShownRoots = 3

// describeRoots renders changed roots as "Root.path (before -> after), ...".
func describeRoots(roots []state.RootChange) string {
	parts := make([]string, 0, maxShownRoots+1)
	for _, r := range roots[:min(len(roots), maxShownRoots)] {
		ch := r.Changes[0]
		parts = append(parts, fmt.Sprintf("%s%s (%s -> %s)", r.Root, ch.Path, ch.A, ch.B))
	}
	if n := len(roots) - maxShownRoots; n > 0 {
		parts = append(parts, fmt.Sprintf("and %d more root(s)", n))
	}
	return strings.Join(parts, ", ")
}
