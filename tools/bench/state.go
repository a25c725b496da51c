package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/state"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// ODRepair's published debugger figures (ICSE'22, Table 1): polluted static
// fields located for 181 of 327 victims, 33.4 s median and 1820.9 s mean per
// test.
const odrepairFigures = "ODRepair: located 181 of 327, median 33.4 s, mean 1820.9 s per test"

// runState measures, per OD finding of each fixture's expected.json, the time
// to name and confirm its polluted state from its failing and passing orders.
func runState(fixtures []string) error {
	if len(fixtures) == 0 || fixtures[0] == "" {
		return nil
	}
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	fmt.Printf("\n%-12s %-60s %8s %5s  %s\n", "fixture", "finding", "time", "runs", "confirmed state")
	var times []time.Duration
	named, total := 0, 0
	for _, name := range fixtures {
		rows, err := benchStateFixture(name, jars)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, r := range rows {
			total++
			roots := state.Confirmed(r.items)
			if len(roots) > 0 {
				named++
			}
			times = append(times, r.timing.Duration)
			fmt.Printf("%-12s %-60s %8s %5d  %s\n", name, r.timing.Test, r.timing.Duration.Round(10*time.Millisecond), r.timing.Runs, strings.Join(roots, ", "))
		}
	}
	if len(times) == 0 {
		return nil
	}
	slices.Sort(times)
	fmt.Printf("flaky: confirmed the polluted state of %d of %d OD findings, median %s, max %s per finding\n",
		named, total, times[len(times)/2].Round(10*time.Millisecond), times[len(times)-1].Round(10*time.Millisecond))
	fmt.Println(odrepairFigures)
	return nil
}

type stateRow struct {
	timing state.Timing
	items  []report.StateItem
}

// benchStateFixture prepares a fixture (its expected.json's module, for a
// reactor) and debugs the state of each expected victim and brittle.
func benchStateFixture(name string, jars agent.Jars) ([]stateRow, error) {
	dir, err := fixtureCopy(name)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		return nil, err
	}
	var e struct {
		Module   string           `json:"module"`
		Findings []report.Finding `json:"findings"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("parsing expected.json: %w", err)
	}
	module := dir
	if st, err := os.Stat(filepath.Join(dir, e.Module)); err == nil && st.IsDir() {
		module = filepath.Join(dir, e.Module)
	}
	ctx := context.Background()
	setup, err := mvn.Prepare(ctx, module, mvn.PrepareOptions{Log: io.Discard})
	if err != nil {
		return nil, err
	}
	env := setup.LaunchEnv("java")
	l, err := launcher.New(launcher.FastStart(env), jars, launcher.Options{})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	var findings []report.Finding
	for _, f := range e.Findings {
		switch {
		case f.Kind == report.ODVictim && len(f.Polluters) > 0:
			f.FailingOrder, f.PassingOrder = append(slices.Clone(f.Polluters[0]), f.Test), []string{f.Test}
		case f.Kind == report.ODBrittle && len(f.Setters) > 0:
			f.FailingOrder, f.PassingOrder = []string{f.Test}, append(slices.Clone(f.Setters[0]), f.Test)
		default:
			continue
		}
		f.PollutedState = nil
		findings = append(findings, f)
	}
	// One finding at a time, so that each one's time is its own.
	var rows []stateRow
	for i := range findings {
		m := pipeline.NewModule("", setup.ModuleDir, flakydir.ForTestClasses(setup.TestClassesDir))
		m.Fast = l
		res, err := pipeline.Run(ctx, m,
			pipeline.Options{Annotate: &pipeline.AnnotateOptions{Findings: findings[i : i+1], State: true}},
			logs.New(func(_, line string) { fmt.Fprintf(os.Stderr, "bench: %s: %s\n", name, line) }, nil))
		if err != nil {
			return nil, err
		}
		for _, tm := range res.StateTimings {
			rows = append(rows, stateRow{timing: tm, items: findings[i].PollutedState})
		}
	}
	return rows, nil
}
