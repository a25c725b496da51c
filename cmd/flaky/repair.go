package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/fix/repair"
	"github.com/flakyhq/flaky/internal/maven/defaultorder"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// repairCommand turns the findings of target/flaky/report.json into validated patches.
func repairCommand() *cli.Command {
	return &cli.Command{
		Name:  "repair",
		Usage: "turn each finding of target/flaky/report.json into a minimal validated source patch (target/flaky/repair/<test>.diff); --apply writes them",
		Flags: []cli.Flag{
			moduleFlag,
			mavenProfileFlag(),
			mavenPropertyFlag(),
			&cli.StringFlag{Name: "test", Usage: "repair only this finding's test"},
			&cli.BoolFlag{Name: "apply", Usage: "apply the validated patches to the module's sources (originals backed up under target/flaky/repair/backup)"},
			&cli.BoolFlag{Name: "follow-symlinks", Usage: "with --apply, patch the target of a source that is a symbolic link (possibly outside the module) instead of refusing"},
			&cli.BoolFlag{Name: "no-llm", Usage: "do not ask a language model (FLAKY_LLM_URL, FLAKY_LLM_MODEL) for the findings the symbolic repairs leave"},
			&cli.BoolFlag{Name: "allow-reflection", Usage: "restore a polluted static field that no reset-method restores through java.lang.reflect (Field.setAccessible) in the generated reset"},
			&cli.IntFlag{Name: "llm-iterations", Value: repair.DefaultLLMIterations, Usage: "LLM attempts per finding"},
			&cli.BoolFlag{Name: "unconfined-llm-validation", Usage: "where this machine has no sandbox (Linux user namespaces), run the LLM's patches unconfined, with your rights and network, instead of turning the LLM loop off (also " + repair.UnconfinedEnv + "=1)"},
			testTimeoutFlag("kill a sandbox JVM when one test runs longer than this, as detect's --test-timeout"),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runRepair(c.Context, repairOptions{
				globalOptions:   globalsOf(c),
				Module:          c.String("module"),
				Test:            c.String("test"),
				Apply:           c.Bool("apply"),
				FollowSymlinks:  c.Bool("follow-symlinks"),
				NoLLM:           c.Bool("no-llm"),
				AllowReflection: c.Bool("allow-reflection"),
				LLMIterations:   c.Int("llm-iterations"),
				Unconfined:      c.Bool("unconfined-llm-validation"),
				TestTimeout:     c.Duration("test-timeout"),
			})
		},
	}
}

// repairOptions are repair's flags.
type repairOptions struct {
	globalOptions
	Module          string // the module's directory
	Test            string // repair only this test's findings
	Apply           bool
	FollowSymlinks  bool // with Apply, write through symbolic links
	NoLLM           bool
	AllowReflection bool
	LLMIterations   int
	Unconfined      bool          // run the LLM's patches unconfined where there is no sandbox
	TestTimeout     time.Duration // bounds one test of the sandbox's runs; 0: none
}

// runRepair checks o and runs the pipeline's repair stage on the findings
// of the module's report, then writes the report and, with Apply, the patches.
func runRepair(ctx context.Context, o repairOptions) error {
	if o.LLMIterations < 1 {
		return usageError("--llm-iterations must be at least 1")
	}
	if o.TestTimeout < 0 {
		return usageError("--test-timeout must not be negative")
	}
	g := o.globalOptions
	setup, err := g.prepare(ctx, o.Module)
	if err != nil {
		return err
	}
	flakyDir := flakydir.ForTestClasses(setup.TestClassesDir)
	reportPath := flakyDir.Report()
	rep, err := report.Read(reportPath)
	if err != nil {
		return fmt.Errorf("%w (run flaky detect or mvn -Pflaky verify first)", err)
	}
	if t := o.Test; t != "" && !hasFinding(rep, t) {
		return usageError("--test %s: no such finding in %s", t, reportPath)
	}
	prog := g.startProgress("repair")
	prog.shower.Found = "repaired"
	defer prog.finish()
	ropts := &pipeline.RepairOptions{Test: o.Test, AllowReflection: o.AllowReflection, TestTimeout: o.TestTimeout}
	if o.NoLLM {
		ropts.NoLLMWhy = "LLM loop off (--no-llm)"
	} else {
		ropts.LLM, ropts.NoLLMWhy = repair.LLMFromEnv(os.Getenv)
		if ropts.LLM != nil {
			ropts.LLM.Iterations = o.LLMIterations
			ropts.LLM.Unconfined = ropts.LLM.Unconfined || o.Unconfined
		}
	}
	m := pipeline.NewModule(setup.ReactorRoot, setup.ModuleDir, flakyDir)
	m.Repair = moduleOf(setup, g.java())
	out, err := pipeline.Run(ctx, m, pipeline.Options{Report: rep, Workers: g.Workers, Progress: prog.tracker, Repair: ropts}, prog.log(g, "flaky: repair: "))
	if err != nil {
		return err
	}
	res := out.Repair
	// Every format is rewritten from the report, so that none disagrees with report.json.
	if _, err := g.publishReport(context.WithoutCancel(ctx), rep, setup.ReactorRoot, setup.ModuleDir, flakyDir.Path()); err != nil {
		return err
	}
	printRepairs(g.Stdout, rep, res)
	if o.Apply && len(res.Files) > 0 {
		applied, err := repair.Apply(setup.ModuleDir, filepath.Join(flakyDir.Repair(), "backup"), res, repair.ApplyOptions{FollowSymlinks: o.FollowSymlinks})
		for _, a := range applied {
			if a.Target != filepath.Join(setup.ModuleDir, a.File) {
				fmt.Fprintf(g.Stdout, "patched %s through its link: %s (original in %s)\n", a.File, a.Target, a.Backup)
				continue
			}
			fmt.Fprintf(g.Stdout, "patched %s (original in %s)\n", a.File, a.Backup)
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(g.Stdout, "report: %s\n", reportPath)
	for _, f := range rep.Findings {
		if f.Repair != nil && !f.Repair.Validated && !res.Unchanged[f.Key()] {
			return &exitStatus{code: exitTestsFailed}
		}
	}
	return nil
}

// moduleOf describes a prepared module for the repair.
func moduleOf(setup *mvn.TestSetup, java string) repair.Module {
	return repair.Module{
		Dir: setup.ModuleDir, ClassesDir: setup.ClassesDir, TestClassesDir: setup.TestClassesDir,
		Classpath: setup.Classpath, JVMArgs: setup.ArgLine, SysProps: setup.SysProps, Java: java,
		Includes: setup.Includes, Excludes: setup.Excludes,
		Order: func(infos []launcher.TestInfo) ([]launcher.TestInfo, error) {
			infos, _, err := defaultorder.Of(setup, infos, time.Now())
			return infos, err
		},
	}
}

func hasFinding(rep *report.Report, test string) bool {
	for _, f := range rep.Findings {
		if f.Test == test {
			return true
		}
	}
	return false
}

// printRepairs prints one line per finding looked at: its patch or why there is none.
func printRepairs(w io.Writer, rep *report.Report, res *repair.Result) {
	for _, f := range rep.Findings {
		r, ok := res.Repairs[f.Key()]
		if !ok {
			continue
		}
		switch {
		case res.Unchanged[f.Key()] && r.Validated:
			fmt.Fprintf(w, "unchanged  %-10s %s: already passes its failing order (patch %s is in the sources)\n", f.Kind, f.Test, r.Patch)
			continue
		case res.Unchanged[f.Key()]:
			fmt.Fprintf(w, "unchanged  %-10s %s: %s\n", f.Kind, f.Test, r.Reason)
			continue
		case r.Validated:
			fmt.Fprintf(w, "repaired   %-10s %s (%s, %d ms): %s\n", f.Kind, f.Test, r.Kind, r.DurationMs, r.Patch)
			continue
		}
		fmt.Fprintf(w, "unrepaired %-10s %s: %s\n", f.Kind, f.Test, r.Reason)
	}
}
