package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/repair"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/mvn"
)

// repairCommand turns the findings of target/flaky/report.json into validated patches.
func repairCommand() *cli.Command {
	return &cli.Command{
		Name:  "repair",
		Usage: "turn each finding of target/flaky/report.json into a minimal validated source patch (target/flaky/repair/<test>.diff); --apply writes them",
		Flags: []cli.Flag{
			moduleFlag,
			&cli.StringFlag{Name: "test", Usage: "repair only this finding's test"},
			&cli.BoolFlag{Name: "apply", Usage: "apply the validated patches to the module's sources (originals backed up under target/flaky/repair/backup)"},
			&cli.BoolFlag{Name: "no-llm", Usage: "do not ask a language model (FLAKY_LLM_URL, FLAKY_LLM_MODEL) for the findings the symbolic repairs leave"},
			&cli.BoolFlag{Name: "allow-reflection", Usage: "restore a polluted static field that no reset-method restores through java.lang.reflect (Field.setAccessible) in the generated reset"},
			&cli.IntFlag{Name: "llm-iterations", Value: repair.DefaultLLMIterations, Usage: "LLM attempts per finding"},
		},
		Action: repairAction,
	}
}

func repairAction(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if c.Int("llm-iterations") < 1 {
		return usageError("--llm-iterations must be at least 1")
	}
	setup, err := mvn.Prepare(c.Context, c.String("module"), mvn.PrepareOptions{Mvn: c.String("mvn"), Log: c.App.ErrWriter, Debug: debugLog(c)})
	if err != nil {
		return fmt.Errorf("prepare module: %w", err)
	}
	flakyDir := filepath.Join(filepath.Dir(setup.TestClassesDir), "flaky")
	reportPath := filepath.Join(flakyDir, "report.json")
	rep, err := report.Read(reportPath)
	if err != nil {
		return fmt.Errorf("%w (run flaky detect or mvn -Pflaky verify first)", err)
	}
	if t := c.String("test"); t != "" && !hasFinding(rep, t) {
		return usageError("--test %s: no such finding in %s", t, reportPath)
	}
	prog := startProgress(c, "repair")
	prog.shower.Found = "repaired"
	defer prog.finish()
	cfg := repair.Config{
		Module:          moduleOf(setup, javaPath(c)),
		Report:          rep,
		OutDir:          filepath.Join(flakyDir, "repair"),
		WorkDir:         filepath.Join(flakyDir, "repair", "work"),
		Test:            c.String("test"),
		Workers:         c.Int("workers"),
		AllowReflection: c.Bool("allow-reflection"),
		Logf:            prog.logf("flaky: repair: "),
		Progress:        prog.tracker,
	}
	if c.Bool("no-llm") {
		cfg.NoLLMWhy = "LLM loop off (--no-llm)"
	} else {
		cfg.LLM, cfg.NoLLMWhy = repair.LLMFromEnv(os.Getenv)
		if cfg.LLM != nil {
			cfg.LLM.Iterations = c.Int("llm-iterations")
		}
	}
	res, err := repair.Run(c.Context, cfg)
	if err != nil {
		return err
	}
	for i, f := range rep.Findings {
		if r, ok := res.Repairs[f.Key()]; ok {
			rep.Findings[i].Repair = r
		}
	}
	if err := report.Write(reportPath, rep); err != nil {
		return err
	}
	printRepairs(c.App.Writer, rep, res)
	if c.Bool("apply") && len(res.Files) > 0 {
		applied, err := repair.Apply(setup.ModuleDir, filepath.Join(cfg.OutDir, "backup"), res)
		for _, a := range applied {
			fmt.Fprintf(c.App.Writer, "patched %s (original in %s)\n", a.File, a.Backup)
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(c.App.Writer, "report: %s\n", reportPath)
	for _, f := range rep.Findings {
		if f.Repair != nil && !f.Repair.Validated {
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
		if r.Validated {
			fmt.Fprintf(w, "repaired   %-10s %s (%s, %d ms): %s\n", f.Kind, f.Test, r.Kind, r.DurationMs, r.Patch)
			continue
		}
		fmt.Fprintf(w, "unrepaired %-10s %s: %s\n", f.Kind, f.Test, r.Reason)
	}
}
