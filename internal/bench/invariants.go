package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/invariants"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/od"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/mvn"
)

// Takuan's published figures (ICSE 2025 demo): problem invariants and
// cleaners 12.6 s mean per victim against ODRepair's 105.7 s; correct
// problem invariants for 6 of 13 victims.
const takuanFigures = "Takuan: 12.6 s mean per victim (ODRepair 105.7 s); correct problem invariants for 6 of 13"

// runInvariants measures, per OD victim of each fixture's expected.json, the
// time to infer its problem invariants and to find its reset methods, checks
// the top-ranked variable and first reset method against the expected ones,
// and compares the whole suite's run time traced and untraced.
func runInvariants(fixtures []string) error {
	if len(fixtures) == 0 || fixtures[0] == "" {
		return nil
	}
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	fmt.Printf("\n%-12s %-48s %9s %9s  %s\n", "fixture", "victim", "invariants", "resets", "top variable / first reset (ok?)")
	var total time.Duration
	victims, right := 0, 0
	for _, name := range fixtures {
		if err := benchInvariantsFixture(name, jars, &total, &victims, &right); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if victims > 0 {
		fmt.Printf("flaky: right top problem invariant and reset method for %d of %d victims, %.1f s mean per victim\n",
			right, victims, total.Seconds()/float64(victims))
		fmt.Println(takuanFigures)
	}
	return nil
}

func benchInvariantsFixture(name string, jars agent.Jars, total *time.Duration, victims, right *int) error {
	dir, err := os.MkdirTemp("", "flaky-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := copy.Copy(filepath.Join("testdata", name), dir); err != nil {
		return fmt.Errorf("copying fixture: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		return err
	}
	var e struct {
		Findings []report.Finding `json:"findings"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return fmt.Errorf("parsing expected.json: %w", err)
	}
	ctx := context.Background()
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{Log: io.Discard})
	if err != nil {
		return err
	}
	env := launcher.Env{Java: "java", Classpath: setup.Classpath, JVMArgs: setup.ArgLine, SysProps: setup.SysProps, Dir: setup.ModuleDir}
	l, err := launcher.New(od.FastStart(env), jars, launcher.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	infos, err := l.List(ctx, launcher.Selection{TestClassesDir: setup.TestClassesDir})
	if err != nil {
		return err
	}
	var suite []string
	for _, ti := range infos {
		suite = append(suite, ti.ID)
	}
	for _, want := range e.Findings {
		if want.Kind != report.ODVictim || len(want.Polluters) == 0 || len(want.ProblemInvariants) == 0 {
			continue
		}
		start := time.Now()
		got, errs, err := invariants.Analyze(ctx, l, []invariants.Target{{Test: want.Test, Passing: []string{want.Test}, Failing: append(slices.Clone(want.Polluters[0]), want.Test)}})
		if err != nil {
			return err
		}
		if errs[0] != nil {
			return fmt.Errorf("%s: %w", want.Test, errs[0])
		}
		inv := time.Since(start)
		f := []report.Finding{{Test: want.Test, Kind: report.ODVictim, Polluters: want.Polluters, ProblemInvariants: got[0]}}
		start = time.Now()
		if err := invariants.FindResets(ctx, l, f, suite, func(string, ...any) {}); err != nil {
			return err
		}
		resets := time.Since(start)
		top, reset := "-", "-"
		if len(got[0]) > 0 {
			top = got[0][0].Variable
		}
		wantReset := append(slices.Clone(want.CleanerMethods), want.ReturnValueModifiers...)
		gotReset := append(slices.Clone(f[0].CleanerMethods), f[0].ReturnValueModifiers...)
		if len(gotReset) > 0 {
			reset = gotReset[0].Method
		}
		ok := top == want.ProblemInvariants[0].Variable && len(wantReset) > 0 && reset == wantReset[0].Method
		*victims++
		if ok {
			*right++
		}
		*total += inv + resets
		fmt.Printf("%-12s %-48s %9s %9s  %s / %s (%v)\n", name, want.Test, inv.Round(10*time.Millisecond), resets.Round(10*time.Millisecond), top, reset, ok)
	}
	// Tracing overhead: the whole suite, untraced and traced, three runs each (medians).
	var plain, traced []time.Duration
	for range 3 {
		for _, opts := range []launcher.RunOptions{{}, {AgentOptions: invariants.AgentOptions}} {
			start := time.Now()
			if _, err := l.RunWith(ctx, suite, opts); err != nil {
				return err
			}
			if opts.AgentOptions == nil {
				plain = append(plain, time.Since(start))
			} else {
				traced = append(traced, time.Since(start))
			}
		}
	}
	fmt.Printf("%-12s whole suite: %s untraced, %s traced (%.1fx)\n", name, median(plain).Round(10*time.Millisecond),
		median(traced).Round(10*time.Millisecond), ratio(median(traced), median(plain)))
	return nil
}
