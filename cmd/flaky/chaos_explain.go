package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// explainFinding reruns the api finding of test (flaky chaos --explain)
// with its strategy and the agent's perturbation log, and prints every
// perturbed call the test made with the original and the perturbed value.
func explainFinding(ctx context.Context, g globalOptions, prog *commandProgress, l *launcher.Launcher, setup *mvn.TestSetup, settings chaos.Settings, test string) error {
	path := flakydir.ForTestClasses(setup.TestClassesDir).Report()
	rep, err := report.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return usageError("--explain: no report at %s: run flaky chaos first", path)
	} else if err != nil {
		return err
	}
	i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.Kind == report.API && f.Test == test })
	if i < 0 {
		return usageError("--explain: %s has no api finding in %s", test, path)
	}
	f := rep.Findings[i]
	strategies, err := chaos.Parse(f.Strategy)
	if err != nil || len(strategies) == 0 {
		return fmt.Errorf("--explain: the finding's strategy %q: %v", f.Strategy, err)
	}
	order, err := findingOrder(f, setup.ModuleDir)
	if err != nil {
		return err
	}
	opts, err := settings.AgentOptions(strategies)
	if err != nil {
		return usageError("%v", err)
	}
	opts.Chaos.Explain = true
	fmt.Fprintf(g.Stderr, "flaky: chaos: rerunning %s (order of %d) with %s and the perturbation log\n", test, len(order), f.Strategy)
	prog.tracker.Phase("explaining "+test, 1, time.Time{})
	results, err := l.RunJobs(ctx, []launcher.Job{{Order: order, RunOptions: launcher.RunOptions{AgentOptions: opts}}})
	if err != nil {
		return err
	}
	return printExplain(g.Stdout, results[0], test)
}

// findingOrder is the order the finding's reproduce command runs (the
// order file after --order in its run-order command), else the order of
// its first evidence that has one; relative paths resolve against the
// module.
func findingOrder(f report.Finding, moduleDir string) ([]string, error) {
	if file := orderArg(f.ReproduceRunOrder); file != "" {
		order, err := surefire.ReadOrderFile(inModule(file, moduleDir))
		if err != nil {
			return nil, fmt.Errorf("--explain: the order of the reproduce command: %w", err)
		}
		return order, nil
	}
	for _, e := range f.Evidence {
		if len(e.Order) > 0 {
			return e.Order, nil
		}
		if e.OrderFile != "" {
			return surefire.ReadOrderFile(inModule(e.OrderFile, moduleDir))
		}
	}
	return []string{f.Test}, nil
}

// orderArg returns the value of --order in command, a shell-quoted
// command line; "" when it has none.
func orderArg(command string) string {
	args, err := shellquote.Split(command)
	if err != nil {
		return ""
	}
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--order="); ok {
			return v
		}
		if a == "--order" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// inModule resolves a relative path against the module's directory.
func inModule(file, moduleDir string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(moduleDir, file)
}

// printExplain prints the test's outcome and its perturbation log.
func printExplain(w io.Writer, r *launcher.Result, test string) error {
	t := launcher.TestResult{Test: test, Outcome: launcher.NotRun}
	for _, tr := range r.Tests {
		if tr.Test == test {
			t = tr
		}
	}
	fmt.Fprintf(w, "%s  %s\n", strings.ToUpper(string(t.Outcome)), test)
	if t.Message != "" {
		fmt.Fprintf(w, "       %s\n", report.FirstLine(t.Message))
	}
	class := testid.ClassOf(test)
	n := 0
	for _, p := range r.Perturbations {
		if p.Original == "" && p.Perturbed == "" || p.Test != test && p.Test != class {
			continue
		}
		if n == 0 {
			fmt.Fprintln(w, "perturbed calls, in order:")
		}
		n++
		fmt.Fprintf(w, "  %s.%s(%s:%d) %s: %s -> %s\n", p.Class, p.Method, p.File, p.Line, p.API, p.Original, p.Perturbed)
	}
	_, err := fmt.Fprintf(w, "%d perturbed call(s)\n", n)
	return err
}
