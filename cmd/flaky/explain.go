package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// explainCommand prints everything known about one flaky test.
func explainCommand() *cli.Command {
	return &cli.Command{
		Name: "explain",
		Usage: "print everything target/flaky/report.json knows about a flaky test, in the order of the chain: how it was found (runs and orders), " +
			"its polluters, state-setters and cleaners, the polluted state (named and confirmed first when an OD finding has none), perturbed call sites, " +
			"the proposed patch, and the commands that reproduce it",
		ArgsUsage: "TEST",
		Flags: []cli.Flag{moduleFlag,
			testTimeoutFlag("kill a JVM that names the polluted state when one test runs longer than this, as detect's --test-timeout"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("explain takes one test id (pkg.Class#method), got %q", c.Args().Slice())
			}
			return runExplain(c.Context, explainOptions{globalOptions: globalsOf(c), Module: c.String("module"), Test: c.Args().First(), TestTimeout: c.Duration("test-timeout")})
		},
	}
}

// explainOptions are explain's flags and argument.
type explainOptions struct {
	globalOptions
	Module      string        // the module's directory
	Test        string        // the test to explain
	TestTimeout time.Duration // bounds one test of the runs that name the polluted state; 0: none
}

// runExplain prints every finding of the module's report on o.Test, naming
// the polluted state (and inferring the problem invariants) of an OD
// finding that lacks them first.
func runExplain(ctx context.Context, o explainOptions) error {
	g := o.globalOptions
	if o.TestTimeout < 0 {
		return usageError("--test-timeout must not be negative")
	}
	dir, err := filepath.Abs(o.Module)
	if err != nil {
		return err
	}
	path := flakydir.OfModule(dir).Report()
	rep, err := report.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &exitStatus{code: exitError, msg: fmt.Sprintf("explain: no report at %s: run flaky detect first", path)}
	}
	if err != nil {
		return err
	}
	var findings []report.Finding
	for _, f := range rep.Findings {
		if f.Test == o.Test {
			findings = append(findings, f)
		}
	}
	if len(findings) == 0 {
		return &exitStatus{code: exitError, msg: fmt.Sprintf("explain: %s has no finding in %s", o.Test, path)}
	}
	for i, f := range findings {
		if (f.Kind == report.ODVictim || f.Kind == report.ODBrittle) && len(f.PollutedState) == 0 {
			// A report without state was made by an older flaky or with --no-state: infer what it lacks.
			if err := nameState(ctx, g, o.Module, o.TestTimeout, findings[i:i+1], true, len(f.ProblemInvariants) == 0); err != nil {
				return err
			}
		}
		if i > 0 {
			fmt.Fprintln(g.Stdout)
		}
		printExplanation(g.Stdout, dir, rep.IsNew(findings[i]), findings[i])
	}
	return nil
}

// nameState runs the pipeline's annotation of findings in JVMs of the
// module in dir, each test cut at testTimeout (0: none): their polluted
// state (when names) and problem invariants (when infers).
func nameState(ctx context.Context, g globalOptions, dir string, testTimeout time.Duration, findings []report.Finding, names, infers bool) error {
	opts := launcher.Options{TestTimeout: testTimeout}
	setup, l, err := g.openModule(ctx, dir, opts)
	if err != nil {
		return err
	}
	l.Close()
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	opts.Workers, opts.Notef = g.Workers, noteOnce(g.Stderr, "flaky: explain: note: ")
	runner, err := pipeline.NewFast(g.env(setup), jars, opts)
	if err != nil {
		return err
	}
	defer runner.Close()
	// Without the suite's list, no search for reset methods: detect and verify do that.
	m := pipeline.NewModule(setup.ReactorRoot, setup.ModuleDir, flakydir.ForTestClasses(setup.TestClassesDir))
	m.Fast = runner
	_, err = pipeline.Run(ctx, m,
		pipeline.Options{Annotate: &pipeline.AnnotateOptions{Findings: findings, State: names, Invariants: infers}},
		logs.New(func(_, line string) { fmt.Fprintf(g.Stderr, "flaky: explain: %s\n", line) }, nil))
	return err
}

// maxExplainLines bounds each message and patch explain prints.
const maxExplainLines = 20

// printExplanation prints one finding in the order of its evidence chain:
// what it is and why, the runs that showed it, the tests involved, the
// polluted state, the perturbed call sites, the proposed patch, and the
// commands that reproduce it. dir is the module, for the patch file.
func printExplanation(w io.Writer, dir string, isNew bool, f report.Finding) {
	status := "known (in the baseline)"
	if isNew {
		status = "new"
	}
	fmt.Fprintf(w, "%s %s\n  %s, %s: %s\n", f.Kind, f.Test, f.Kind.Title(), status, report.Describe(f))
	if f.Message != "" {
		fmt.Fprintf(w, "  failure:\n%s", indent(f.Message, maxExplainLines))
	}
	if f.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", f.Note)
	}
	if len(f.Evidence) > 0 {
		fmt.Fprintln(w, "  evidence:")
		for _, e := range f.Evidence {
			where := e.OrderFile
			if len(e.Order) > 0 {
				where = strings.Join(e.Order, ", ")
			}
			fmt.Fprintf(w, "    %s: %s", e.Run, e.Outcome)
			if where != "" {
				fmt.Fprintf(w, " in [%s]", where)
			}
			fmt.Fprintln(w)
		}
	}
	if len(f.Polluters) > 0 {
		fmt.Fprintf(w, "  polluters: %s\n", formatGroups(f.Polluters))
	}
	if len(f.Setters) > 0 {
		fmt.Fprintf(w, "  state-setters: %s\n", formatGroups(f.Setters))
	}
	if len(f.Cleaners) > 0 {
		fmt.Fprintf(w, "  cleaners: %s\n", formatGroups(f.Cleaners))
	}
	if len(f.FailingOrder) > 0 {
		fmt.Fprintf(w, "  fails in: %s\n", strings.Join(f.FailingOrder, ", "))
	}
	if len(f.PassingOrder) > 0 {
		fmt.Fprintf(w, "  passes in: %s\n", strings.Join(f.PassingOrder, ", "))
	}
	if f.Kind == report.ODVictim || f.Kind == report.ODBrittle || len(f.PollutedState) > 0 {
		printState(w, f.PollutedState)
	}
	printProblemInvariants(w, f)
	if len(f.CallSites) > 0 {
		fmt.Fprintln(w, "  perturbed call sites:")
		for _, cs := range f.CallSites {
			fmt.Fprintf(w, "    %s.%s (%s:%d) %s\n", cs.Class, cs.Method, cs.File, cs.Line, cs.API)
		}
	}
	if r := f.Repair; r != nil {
		switch {
		case r.Validated:
			fmt.Fprintf(w, "  proposed fix (%s, validated; flaky repair --apply writes it): %s\n", r.Kind, r.Patch)
			if diff := report.ReadPatch(dir, r.Patch); diff != "" {
				fmt.Fprint(w, indent(diff, maxExplainLines))
			}
		case r.Reason != "":
			fmt.Fprintf(w, "  not repaired: %s\n", r.Reason)
		}
	}
	if f.Reproduce != "" || f.ReproduceRunOrder != "" {
		fmt.Fprintln(w, "  reproduce:")
		for _, cmd := range []string{f.Reproduce, f.ReproduceRunOrder} {
			if cmd != "" {
				fmt.Fprintf(w, "    %s\n", cmd)
			}
		}
	}
}

// printState prints an OD finding's polluted state.
func printState(w io.Writer, items []report.StateItem) {
	if len(items) == 0 {
		fmt.Fprintln(w, "  polluted state: none found (no captured root differs right before the test)")
		return
	}
	if items[0].Confirmed {
		fmt.Fprintln(w, "  polluted state (confirmed: setting it back to its passing value right before the test makes it pass in the failing order):")
	} else {
		fmt.Fprintln(w, "  state that differs right before the test (unconfirmed: setting it back did not make the test pass):")
	}
	for _, it := range items {
		fmt.Fprintf(w, "    %s %s%s\n      passing: %s\n      failing: %s\n", it.Kind, it.Root, it.Path, it.Passing, it.Failing)
	}
}
