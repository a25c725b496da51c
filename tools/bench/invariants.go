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

	"github.com/flakyhq/flaky/internal/analysis/invariants"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

// Takuan's published figures (ICSE 2025 demo): problem invariants and
// cleaners 12.6 s mean per victim against ODRepair's 105.7 s; correct
// problem invariants for 6 of 13 victims.
const takuanFigures = "Takuan: 12.6 s mean per victim (ODRepair 105.7 s); correct problem invariants for 6 of 13"

// invMD is the problem-invariant benchmark's Markdown table, for its own
// part of docs/performance.md.
var invMD strings.Builder

// invFigures sums the benchmark over its fixtures.
type invFigures struct {
	findings, right int
	inv, resets     time.Duration
	plain, traced   time.Duration // the last fixture's whole suite, medians
	rows            []string
}

// runInvariants measures, per OD victim and brittle of each fixture's
// expected.json, the time to infer its problem invariants and to find its
// reset methods, checks the top-ranked variable and first reset method
// against the expected ones, and compares the whole suite's run time traced
// and untraced.
func runInvariants(fixtures []string) error {
	if len(fixtures) == 0 || fixtures[0] == "" {
		return nil
	}
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	fmt.Printf("\n%-12s %-48s %9s %9s  %s\n", "fixture", "finding", "invariants", "resets", "top variable / first reset (ok?)")
	var fig invFigures
	var suites []string
	for _, name := range fixtures {
		if err := benchInvariantsFixture(name, jars, &fig); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		suites = append(suites, fmt.Sprintf("%s: %s against %s untraced (%.1f×)", name, secs(fig.traced), secs(fig.plain), ratio(fig.traced, fig.plain)))
	}
	if fig.findings == 0 {
		return nil
	}
	n := float64(fig.findings)
	fmt.Printf("flaky: right top problem invariant and reset method for %d of %d findings, %.1f s mean per finding\n",
		fig.right, fig.findings, (fig.inv+fig.resets).Seconds()/n)
	fmt.Println(takuanFigures)
	invMD.WriteString("| finding | kind | top problem invariant | first reset method | invariants | resets | right |\n|---|---|---|---|---|---|---|\n")
	for _, r := range fig.rows {
		invMD.WriteString(r)
	}
	invMD.WriteString("\n| findings | right top variable and first reset method | mean per finding | tracing the whole suite |\n|---|---|---|---|\n")
	fmt.Fprintf(&invMD, "| %d (flaky) | %d | %.1f s (%.1f s invariants + %.1f s resets) | %s |\n", fig.findings, fig.right,
		(fig.inv+fig.resets).Seconds()/n, fig.inv.Seconds()/n, fig.resets.Seconds()/n, strings.Join(suites, "; "))
	invMD.WriteString("| 13 (Takuan, ICSE 2025 demo) | 6 (correct problem invariants) | 12.6 s (ODRepair: 105.7 s) | |\n")
	return nil
}

func benchInvariantsFixture(name string, jars agent.Jars, fig *invFigures) error {
	dir, err := fixtureCopy(name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
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
	env := setup.LaunchEnv("java")
	l, err := launcher.New(launcher.FastStart(env), jars, launcher.Options{})
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
		if len(want.ProblemInvariants) == 0 {
			continue
		}
		if target, ok := invariantsTarget(want); ok {
			if err := benchInvariantsFinding(ctx, l, name, want, target, suite, fig); err != nil {
				return err
			}
		}
	}
	return tracingOverhead(ctx, l, name, suite, fig)
}

// invariantsTarget is the passing and failing order of the expected OD
// finding want; false for a finding without a polluter or state-setter.
func invariantsTarget(want report.Finding) (invariants.Target, bool) {
	target := invariants.Target{Test: want.Test}
	switch {
	case want.Kind == report.ODVictim && len(want.Polluters) > 0:
		target.Passing, target.Failing = []string{want.Test}, append(slices.Clone(want.Polluters[0]), want.Test)
	case want.Kind == report.ODBrittle && len(want.Setters) > 0:
		target.Passing, target.Failing = append(slices.Clone(want.Setters[0]), want.Test), []string{want.Test}
	default:
		return target, false
	}
	return target, true
}

// benchInvariantsFinding times the problem invariants of the expected
// finding want (in the orders of target) and its reset methods (searched
// in suite), checks the top-ranked variable and first reset method against
// want's, and adds the figures and a table row to fig.
func benchInvariantsFinding(ctx context.Context, l *launcher.Launcher, name string, want report.Finding, target invariants.Target, suite []string, fig *invFigures) error {
	f := []report.Finding{{Test: want.Test, Kind: want.Kind, Polluters: want.Polluters, Setters: want.Setters}}
	start := time.Now()
	got, errs, err := invariants.Run(ctx, l, []invariants.Target{target})
	if err != nil {
		return err
	}
	if errs[0] != nil {
		return fmt.Errorf("%s: %w", want.Test, errs[0])
	}
	inv := time.Since(start)
	f[0].ProblemInvariants = got[0]
	start = time.Now()
	if err := invariants.FindResets(ctx, l, f, suite, logs.Logger{}); err != nil {
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
	fig.findings++
	if ok {
		fig.right++
	}
	fig.inv += inv
	fig.resets += resets
	fmt.Printf("%-12s %-48s %9s %9s  %s / %s (%v)\n", name, want.Test, inv.Round(10*time.Millisecond), resets.Round(10*time.Millisecond), top, reset, ok)
	point := "-"
	if len(got[0]) > 0 {
		point = strings.TrimPrefix(got[0][0].Point, "fixture.invariants.")
	}
	fig.rows = append(fig.rows, fmt.Sprintf("| `%s` | %s | `%s` at `%s` | `%s` | %s | %s | %v |\n", strings.TrimPrefix(want.Test, "fixture.invariants."), want.Kind,
		strings.TrimPrefix(top, "fixture.invariants."), point, strings.TrimPrefix(reset, "fixture.invariants."), secs(inv), secs(resets), ok))
	return nil
}

// tracingOverhead times the whole suite, untraced and traced, three runs
// each, and records the medians in fig.
func tracingOverhead(ctx context.Context, l *launcher.Launcher, name string, suite []string, fig *invFigures) error {
	var plain, traced []time.Duration
	for range 3 {
		for _, opts := range []launcher.RunOptions{{}, {AgentOptions: invariants.AgentOptions}} {
			start := time.Now()
			if _, err := l.RunWith(ctx, suite, opts); err != nil {
				return err
			}
			if !opts.AgentOptions.Invariants.On {
				plain = append(plain, time.Since(start))
			} else {
				traced = append(traced, time.Since(start))
			}
		}
	}
	fig.plain, fig.traced = median(plain), median(traced)
	fmt.Printf("%-12s whole suite: %s untraced, %s traced (%.1fx)\n", name, fig.plain.Round(10*time.Millisecond),
		fig.traced.Round(10*time.Millisecond), ratio(fig.traced, fig.plain))
	return nil
}
