package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"
	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/invariants"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/state"
)

// noStateFlag skips naming the polluted state of OD findings.
var noStateFlag = &cli.BoolFlag{Name: "no-state", Usage: "do not name and confirm the polluted state of each OD victim and brittle"}

// pollutionCommand finds the tests whose run changes shared state (PolDet).
func pollutionCommand() *cli.Command {
	return &cli.Command{
		Name:  "pollution",
		Usage: "run a module's tests with a state capture before and after each and list the tests that change shared state (static fields, system properties, JDK defaults, files); adds polluter findings to target/flaky/report.json and exits 1 when it finds some",
		Flags: []cli.Flag{
			moduleFlag,
			&cli.DurationFlag{Name: "test-timeout", Usage: "kill the JVM when one test runs longer than this (0: off)"},
		},
		Action: pollution,
	}
}

func pollution(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	setup, l, err := openModule(c, launcher.Options{TestTimeout: c.Duration("test-timeout"), Notef: noteOnce(c.App.ErrWriter, "flaky: pollution: note: ")})
	if err != nil {
		return err
	}
	defer l.Close()
	infos, err := l.List(c.Context, launcher.Selection{TestClassesDir: setup.TestClassesDir, Includes: setup.Includes, Excludes: setup.Excludes})
	if err != nil {
		return fmt.Errorf("list tests: %w", err)
	}
	order := make([]string, len(infos))
	for i, ti := range infos {
		order[i] = ti.ID
	}
	res, err := l.RunWith(c.Context, order, launcher.RunOptions{AgentOptions: agent.Options{State: agent.StateOptions{All: true}}})
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
	flakyDir := filepath.Join(filepath.Dir(setup.TestClassesDir), "flaky")
	path := filepath.Join(flakyDir, "report.json")
	rep, err := report.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		rep, err = &report.Report{Module: relModule(setup.ReactorRoot, setup.ModuleDir)}, nil
	}
	if err != nil {
		return err
	}
	rep.Findings = append(slices.DeleteFunc(rep.Findings, func(f report.Finding) bool { return f.Kind == report.Polluter }), findings...)
	rep.Sort()
	if err := report.Write(path, rep); err != nil {
		return err
	}
	for _, p := range pols {
		fmt.Fprintf(c.App.Writer, "%-10s %s  %s\n", report.Polluter, p.Test, describeRoots(p.Roots))
	}
	fmt.Fprintf(c.App.Writer, "%d of %d tests changed shared state, %s\n", len(pols), len(order), res.Duration.Round(100_000_000))
	fmt.Fprintf(c.App.Writer, "report: %s\n", path)
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

// explainCommand prints everything known about one flaky test.
func explainCommand() *cli.Command {
	return &cli.Command{
		Name: "explain",
		Usage: "print everything target/flaky/report.json knows about a flaky test, in the order of the chain: how it was found (runs and orders), " +
			"its polluters, state-setters and cleaners, the polluted state (named and confirmed first when an OD finding has none), perturbed call sites, " +
			"the proposed patch, and the commands that reproduce it",
		ArgsUsage: "TEST",
		Flags:     []cli.Flag{moduleFlag},
		Action:    explain,
	}
}

func explain(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("explain takes one test id (pkg.Class#method), got %q", c.Args().Slice())
	}
	test := c.Args().First()
	dir, err := filepath.Abs(c.String("module"))
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "target", "flaky", "report.json")
	rep, err := report.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &exitStatus{code: exitError, msg: fmt.Sprintf("explain: no report at %s: run flaky detect first", path)}
	}
	if err != nil {
		return err
	}
	var findings []report.Finding
	for _, f := range rep.Findings {
		if f.Test == test {
			findings = append(findings, f)
		}
	}
	if len(findings) == 0 {
		return &exitStatus{code: exitError, msg: fmt.Sprintf("explain: %s has no finding in %s", test, path)}
	}
	for i, f := range findings {
		if (f.Kind == report.ODVictim || f.Kind == report.ODBrittle) && len(f.PollutedState) == 0 {
			// A report without state was made by an older flaky or with --no-state: infer what it lacks.
			if err := nameState(c, findings[i:i+1], true, len(f.ProblemInvariants) == 0); err != nil {
				return err
			}
		}
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		printExplanation(c.App.Writer, dir, rep.IsNew(findings[i]), findings[i])
	}
	return nil
}

// nameState runs the state debugger (when names) and the problem-invariant
// inference (when infers) on findings in JVMs of the module.
func nameState(c *cli.Context, findings []report.Finding, names, infers bool) error {
	setup, l, err := openModule(c, launcher.Options{})
	if err != nil {
		return err
	}
	l.Close()
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	env := launcher.Env{Java: javaPath(c), Classpath: setup.Classpath, JVMArgs: setup.ArgLine, SysProps: setup.SysProps, Dir: setup.ModuleDir}
	runner, err := launcher.New(launcher.FastStart(env), jars, launcher.Options{Workers: c.Int("workers"), Notef: noteOnce(c.App.ErrWriter, "flaky: explain: note: ")})
	if err != nil {
		return err
	}
	defer runner.Close()
	logf := func(format string, args ...any) {
		fmt.Fprintf(c.App.ErrWriter, "flaky: explain: "+format+"\n", args...)
	}
	if names {
		if _, err := state.Annotate(c.Context, runner, findings, nil, logf); err != nil {
			return err
		}
	}
	if infers {
		// Without the suite's list, no search for reset methods: detect and verify do that.
		return invariants.Annotate(c.Context, runner, findings, nil, logf)
	}
	return nil
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
