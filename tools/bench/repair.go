package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/fix/repair"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// repairTally counts one kind's findings, repairs and repair time.
type repairTally struct {
	findings, repaired int
	time               time.Duration
}

// runRepair measures flaky repair (symbolic repairs with reflection
// allowed, no LLM) on fixtures, each fixture's expected.json taken as its
// report: the share of findings repaired per finding kind and the time per
// repair, next to the published figures of iFixFlakies, ODRepair and
// FlakyDoctor, and the repairs and time per repair kind.
func runRepair(fixtures []string) error {
	if len(fixtures) == 0 || fixtures[0] == "" {
		return nil
	}
	tallies := map[report.Kind]*repairTally{}
	byRepair := map[string]*repairTally{} // by repair kind: only repaired and time count
	fmt.Printf("\n%-12s %-10s %-60s %-9s %s\n", "fixture", "kind", "test", "repair", "time")
	for _, name := range fixtures {
		if err := benchRepairFixture(name, tallies, byRepair); err != nil {
			return fmt.Errorf("repair %s: %w", name, err)
		}
	}
	fmt.Printf("\n%-10s %8s %8s %7s %14s\n", "kind", "findings", "repaired", "share", "time/repair")
	kinds := []report.Kind{report.ODVictim, report.ODBrittle, report.NIO, report.API}
	for _, k := range kinds {
		t := tallies[k]
		if t == nil {
			continue
		}
		mean := time.Duration(0)
		if t.repaired > 0 {
			mean = t.time / time.Duration(t.repaired)
		}
		fmt.Printf("%-10s %8d %8d %6.0f%% %14s\n", k, t.findings, t.repaired, 100*float64(t.repaired)/float64(t.findings), mean.Round(100*time.Millisecond))
	}
	fmt.Printf("\n%-10s %8s %14s\n", "repair", "findings", "time/repair")
	for _, k := range []string{report.RepairCleaner, report.RepairSetter, report.RepairReset, report.RepairTemplate, report.RepairLLM} {
		if t := byRepair[k]; t != nil {
			fmt.Printf("%-10s %8d %14s\n", k, t.repaired, (t.time / time.Duration(t.repaired)).Round(100*time.Millisecond))
		}
	}
	fmt.Println("anchors (FlakyDoctor's comparison on IDoFT): iFixFlakies 40% and ODRepair 45% of OD victims;")
	fmt.Println("FlakyDoctor with GPT-4 57% of OD and 59% of ID (api) flaky tests, 103 s mean per repair. The fixtures here are small and")
	fmt.Println("built around the repairs (most victims have cleaners), so the shares measure coverage of the techniques, not of real suites.")
	return nil
}

// benchRepairFixture repairs a fixture's expected findings (in its
// expected.json's module, for a reactor), reflection allowed.
func benchRepairFixture(name string, tallies map[report.Kind]*repairTally, byRepair map[string]*repairTally) error {
	dir, err := fixtureCopy(name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rep, err := report.Read(filepath.Join(dir, "expected.json"))
	if err != nil {
		return err
	}
	module := dir
	if st, err := os.Stat(filepath.Join(dir, rep.Module)); err == nil && st.IsDir() && rep.Module != "" {
		module = filepath.Join(dir, rep.Module)
	}
	ctx := context.Background()
	setup, err := mvn.Prepare(ctx, module, mvn.PrepareOptions{Log: io.Discard})
	if err != nil {
		return err
	}
	flakyDir := flakydir.OfModule(module).Path()
	m := pipeline.NewModule("", setup.ModuleDir, flakydir.Dir(flakyDir))
	m.Repair = repair.Module{
		Dir: setup.ModuleDir, ClassesDir: setup.ClassesDir, TestClassesDir: setup.TestClassesDir,
		Classpath: setup.Classpath, JVMArgs: setup.ArgLine, SysProps: setup.SysProps, Java: "java",
		Includes: setup.Includes, Excludes: setup.Excludes,
	}
	out, err := pipeline.Run(ctx, m, pipeline.Options{Report: rep, Repair: &pipeline.RepairOptions{AllowReflection: true}}, logs.Logger{})
	if err != nil {
		return err
	}
	res := out.Repair
	for _, f := range rep.Findings {
		if f.Kind == report.NOD {
			continue // no repair; kept in the report so validation ignores their outcomes
		}
		t := tallies[f.Kind]
		if t == nil {
			t = &repairTally{}
			tallies[f.Kind] = t
		}
		t.findings++
		r := res.Repairs[f.Key()]
		what := "-"
		if r != nil && r.Validated {
			t.repaired++
			t.time += time.Duration(r.DurationMs) * time.Millisecond
			what = r.Kind
			b := byRepair[r.Kind]
			if b == nil {
				b = &repairTally{}
				byRepair[r.Kind] = b
			}
			b.repaired++
			b.time += time.Duration(r.DurationMs) * time.Millisecond
		}
		d := time.Duration(0)
		if r != nil {
			d = time.Duration(r.DurationMs) * time.Millisecond
		}
		fmt.Printf("%-12s %-10s %-60s %-9s %s\n", name, f.Kind, f.Test, what, d.Round(100*time.Millisecond))
	}
	return nil
}
