package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/defaultorder"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// odFigures is what the order-dependence benchmark measured on one fixture.
type odFigures struct {
	known int // known OD tests (victims and brittles in expected.json)
	// flaky: orders run and time until every known OD test was first seen
	// both failing and passing, and the whole analysis (confirmed, minimised).
	foundOrders, orders int
	found, total        time.Duration
	minimising          time.Duration // confirming and minimising the candidates
	// confirmed and minimised are how long into the analysis the last
	// candidate was confirmed and the last confirmed one minimised (zero:
	// not reached); findings counts the known OD tests reported, and
	// incomplete those of them not minimised.
	confirmed, minimised time.Duration
	findings, incomplete int
	exact                bool // the findings equal expected.json's (tests, kinds, groups)
	// Surefire: runs with runOrder=random until every known OD test failed once.
	surefireRuns, surefireFound int
	surefire                    time.Duration
	reactor                     bool // a reactor's module: no Surefire reruns
	// warm is the same analysis with the exploration orders in warm JVMs.
	warm warmFigures
}

// warmFigures is what the analysis with warm exploration runs measured.
type warmFigures struct {
	foundOrders, orders int
	found, total        time.Duration
	jvms, warmOrders    int      // warm JVMs and the exploration orders they ran
	missed              []string // known OD tests the fresh analysis found and the warm one did not
	same                bool     // the warm analysis' findings equal the fresh one's (tests, kinds, groups)
}

// runOD runs the order-dependence benchmark on the fixtures, if any.
func runOD(fixtures []string, seed int64, surefireRuns int) error {
	if len(fixtures) == 0 || fixtures[0] == "" {
		return nil
	}
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	return benchOD(fixtures, seed, surefireRuns, jars)
}

// benchOD compares flaky's order-dependence analysis (default settings,
// the given seed) with what a user has today, Surefire reruns with
// -Dsurefire.runOrder=random (seeds 0, 1, ...): orders run and wall time
// until every known order-dependent test of each fixture is exposed.
func benchOD(fixtures []string, seed int64, surefireCap int, jars agent.Jars) error {
	fmt.Printf("\norder-dependent tests found: flaky detect (seed %d) vs mvn surefire:test -Dsurefire.runOrder=random (at most %d runs)\n", seed, surefireCap)
	fmt.Printf("%-16s %5s | %13s %9s | %13s %9s %9s %6s | %14s %9s\n", "fixture", "known", "flaky orders", "time", "all orders", "time", "minimise", "exact", "surefire runs", "time")
	fmt.Fprintf(&md, "Order-dependence detection (flaky detect's defaults, seed %d, with the class-data sharing archive) until every known OD test has flipped, and the full analysis, against Surefire `runOrder=random` reruns (capped at %d) until each has failed once:\n\n", seed, surefireCap)
	md.WriteString("| fixture | known OD tests | flaky: found after | flaky: full analysis (confirmed, minimised) | exact findings | Surefire random reruns | Surefire / flaky |\n|---|---|---|---|---|---|---|\n")
	var all []odFigures
	for _, name := range fixtures {
		f, err := benchODFixture(name, seed, surefireCap, jars)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, f)
		found := fmt.Sprint(f.surefireRuns)
		if f.surefireFound < f.known {
			found = fmt.Sprintf(">%d (%d/%d)", f.surefireRuns, f.surefireFound, f.known)
		}
		fmt.Printf("%-16s %5d | %13d %9s | %13d %9s %9s %6v | %14s %9s\n", name, f.known,
			f.foundOrders, f.found.Round(100*time.Millisecond), f.orders, f.total.Round(100*time.Millisecond), f.minimising.Round(100*time.Millisecond), f.exact,
			found, f.surefire.Round(100*time.Millisecond))
		sf := fmt.Sprintf("found in %d run(s), %s", f.surefireRuns, secs(f.surefire))
		vs := fmt.Sprintf("%.1f×", ratio(f.surefire, f.found))
		switch {
		case f.reactor:
			sf, vs = "not run (a reactor's module)", ""
		case f.surefireFound < f.known:
			sf = fmt.Sprintf("%d of %d found in %d runs, %s", f.surefireFound, f.known, f.surefireRuns, secs(f.surefire))
			vs = "> " + vs
		}
		fmt.Fprintf(&md, "| %s | %d | %d orders, %s | %d orders, %s, of which %s confirming and minimising | %v | %s | %s |\n", name, f.known,
			f.foundOrders, secs(f.found), f.orders, secs(f.total), secs(f.minimising), f.exact, sf, vs)
	}
	md.WriteString("\n")
	fmt.Println("flaky orders/time: until every known victim and brittle flipped; all orders/time: the whole analysis with confirmation and minimisation;")
	fmt.Println("minimise: confirming and minimising (polluters, setters, cleaners); exact: findings equal expected.json's, groups included")
	writeSettled(fixtures, seed, all)
	writeWarmOD(fixtures, seed, all)
	return nil
}

// writeSettled prints, for each fixture's fresh analysis, when its last
// candidate was confirmed and its last confirmed test minimised.
func writeSettled(fixtures []string, seed int64, all []odFigures) {
	fmt.Printf("\nconfirmed and minimised (the same analyses, seed %d)\n", seed)
	fmt.Printf("%-16s %5s | %8s %10s | %13s %13s\n", "fixture", "known", "findings", "incomplete", "all confirmed", "all minimised")
	fmt.Fprintf(&md, "When the same analyses (seed %d) had confirmed every candidate and minimised every confirmed test (wall time from the start; the known OD tests reported, and how many of them the budget left without minimisation):\n\n", seed)
	md.WriteString("| fixture | known OD tests | reported (not minimised) | all confirmed | all minimised |\n|---|---|---|---|---|\n")
	for i, f := range all {
		if f.known == 0 {
			continue
		}
		minimised := secs(f.minimised)
		if f.minimised == 0 {
			minimised = "not reached"
		}
		fmt.Printf("%-16s %5d | %8d %10d | %13s %13s\n", fixtures[i], f.known, f.findings, f.incomplete, f.confirmed.Round(100*time.Millisecond), f.minimised.Round(100*time.Millisecond))
		fmt.Fprintf(&md, "| %s | %d | %d (%d) | %s | %s |\n", fixtures[i], f.known, f.findings, f.incomplete, secs(f.confirmed), minimised)
	}
	md.WriteString("\n")
}

// writeWarmOD prints the comparison of the fresh and the warm analysis of
// each fixture.
func writeWarmOD(fixtures []string, seed int64, all []odFigures) {
	fmt.Printf("\nwarm vs fresh detection (seed %d, exploration orders at most %d to a warm JVM)\n", seed, od.DefaultWarmOrders)
	fmt.Printf("%-16s %5s | %16s %16s | %12s | %10s %10s | %6s %5s\n", "fixture", "known", "fresh found", "warm found", "warm jvms", "fresh all", "warm all", "missed", "same")
	fmt.Fprintf(&md, "Warm runs (`detect --warm`, the same analysis and seed %d, exploration orders at most %d to a warm JVM, as many as keep every worker busy, every candidate confirmed and minimised in fresh JVMs) against fresh JVMs only: until every known OD test has flipped, the full analysis, and whether the warm analysis finds every OD test the fresh one finds, with the same findings:\n\n", seed, od.DefaultWarmOrders)
	md.WriteString("| fixture | known OD tests | fresh: found after | warm: found after | warm JVMs (orders) | fresh: full analysis | warm: full analysis | warm finds every OD test fresh finds | same findings |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, f := range all {
		w := f.warm
		missed := "yes"
		if len(w.missed) > 0 {
			missed = fmt.Sprintf("no: misses %s", strings.Join(w.missed, ", "))
		}
		fmt.Printf("%-16s %5d | %5d %9s | %5d %9s | %4d (%5d) | %10s %10s | %6d %5v\n", fixtures[i], f.known,
			f.foundOrders, f.found.Round(100*time.Millisecond), w.foundOrders, w.found.Round(100*time.Millisecond), w.jvms, w.warmOrders,
			f.total.Round(100*time.Millisecond), w.total.Round(100*time.Millisecond), len(w.missed), w.same)
		fmt.Fprintf(&md, "| %s | %d | %d orders, %s | %d orders, %s | %d (%d) | %s | %s | %s | %v |\n", fixtures[i], f.known,
			f.foundOrders, secs(f.found), w.foundOrders, secs(w.found), w.jvms, w.warmOrders, secs(f.total), secs(w.total), missed, w.same)
	}
	md.WriteString("\n")
}

func benchODFixture(name string, seed int64, surefireCap int, jars agent.Jars) (odFigures, error) {
	var f odFigures
	dir, err := fixtureCopy(name)
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(dir)
	expected, module, err := expectedFindings(dir)
	if err != nil {
		return f, err
	}
	if _, err := os.Stat(filepath.Join(dir, module, "pom.xml")); module != "" && err == nil {
		// A reactor's module: analysed there; Surefire would need the reactor built and installed.
		dir, f.reactor = filepath.Join(dir, module), true
	}
	known := map[string]bool{}
	for _, e := range expected {
		if e.Kind == report.ODVictim || e.Kind == report.ODBrittle {
			known[e.Test] = true
		}
	}
	f.known = len(known)
	ctx := context.Background()
	m, err := openSuite(ctx, dir, jars)
	if err != nil {
		return f, err
	}
	defer m.l.Close()
	res, err := m.orders(ctx, pipeline.DetectOptions{Seed: seed})
	if err != nil {
		return f, err
	}
	got := f.fresh(res, expected, known)
	wres, err := m.orders(ctx, pipeline.DetectOptions{Seed: seed, Warm: od.DefaultWarmOrders})
	if err != nil {
		return f, err
	}
	f.warm.measure(res, wres, got, known)
	w := &f.warm
	fmt.Printf("%-16s warm: found after %d orders, %s; full analysis %d orders, %s; %d warm JVMs (%d orders); missed %v; same findings as fresh: %v\n",
		name, w.foundOrders, w.found.Round(100*time.Millisecond), w.orders, w.total.Round(100*time.Millisecond), w.jvms, w.warmOrders, w.missed, w.same)
	if f.reactor {
		return f, nil
	}
	err = f.surefireUntilFound(dir, surefireCap, known)
	return f, err
}

// fresh records the figures of the analysis res in fresh JVMs (known: the
// known OD tests) and whether its findings are expected's; it returns the
// findings' keys (findingKey).
func (f *odFigures) fresh(res *od.Result, expected []report.Finding, known map[string]bool) map[string]bool {
	f.orders, f.total, f.minimising = res.Coverage.Orders, res.Coverage.Duration, res.Coverage.Minimising
	f.confirmed, f.minimised = res.Coverage.Confirmed, res.Coverage.Minimised
	got := map[string]bool{}
	for _, finding := range res.Findings {
		got[findingKey(finding.Test, finding.Kind, finding.Polluters, finding.Setters, finding.Cleaners)] = true
		if known[finding.Test] {
			f.findings++
			if finding.Incomplete {
				f.incomplete++
			}
			f.foundOrders = max(f.foundOrders, finding.DetectedAfter)
			f.found = max(f.found, finding.DetectedIn)
		}
	}
	f.exact = len(got) == len(expected)
	for _, e := range expected {
		f.exact = f.exact && got[findingKey(e.Test, e.Kind, e.Polluters, e.Setters, e.Cleaners)]
	}
	return got
}

// measure records the figures of the analysis wres with warm exploration
// runs against the fresh one res (got: its findings' keys; known: the
// known OD tests).
func (w *warmFigures) measure(res, wres *od.Result, got, known map[string]bool) {
	w.orders, w.total, w.jvms, w.warmOrders = wres.Coverage.Orders, wres.Coverage.Duration, wres.Coverage.WarmJVMs, wres.Coverage.WarmOrders
	wgot := map[string]bool{}
	warmFound := map[string]bool{}
	for _, finding := range wres.Findings {
		wgot[findingKey(finding.Test, finding.Kind, finding.Polluters, finding.Setters, finding.Cleaners)] = true
		if known[finding.Test] {
			warmFound[finding.Test] = true
			w.foundOrders = max(w.foundOrders, finding.DetectedAfter)
			w.found = max(w.found, finding.DetectedIn)
		}
	}
	w.same = len(wgot) == len(got)
	for k := range got {
		w.same = w.same && wgot[k]
	}
	for _, finding := range res.Findings {
		if known[finding.Test] && !warmFound[finding.Test] && !slices.Contains(w.missed, finding.Test) {
			w.missed = append(w.missed, finding.Test)
		}
	}
}

// surefireUntilFound runs Surefire with runOrder=random in dir, up to
// surefireCap times, until every known OD test failed once, and records
// the runs, the time and the tests found.
func (f *odFigures) surefireUntilFound(dir string, surefireCap int, known map[string]bool) error {
	failed := map[string]bool{}
	reports := filepath.Join(dir, "target", "surefire-reports")
	start := time.Now()
	for f.surefireRuns < surefireCap && len(failed) < len(known) {
		os.RemoveAll(reports)
		cmd := exec.Command("mvn", "-B", "-q", "surefire:test", "-Dsurefire.runOrder=random",
			fmt.Sprintf("-Dsurefire.runOrder.random.seed=%d", f.surefireRuns), "-Dmaven.test.failure.ignore=true")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("mvn surefire:test: %w\n%s", err, out)
		}
		f.surefireRuns++
		cases, err := surefire.ReadReports(reports)
		if err != nil {
			return err
		}
		for _, c := range cases {
			id := testid.JoinMethod(c.Class, strings.TrimSuffix(c.Name, "()"))
			if known[id] && (c.Outcome == surefire.Fail || c.Outcome == surefire.Error) {
				failed[id] = true
			}
		}
	}
	f.surefire, f.surefireFound = time.Since(start), len(failed)
	return nil
}

// findingKey identifies a finding with its groups, each sorted.
func findingKey(test string, kind report.Kind, groups ...[][]string) string {
	key := test + " " + string(kind)
	for _, gs := range groups {
		var parts []string
		for _, g := range gs {
			parts = append(parts, strings.Join(slices.Sorted(slices.Values(g)), "+"))
		}
		slices.Sort(parts)
		key += " [" + strings.Join(parts, "|") + "]"
	}
	return key
}

// expectedFindings reads the findings of a fixture's expected.json, and
// the module they are in when the fixture is a reactor.
func expectedFindings(dir string) ([]report.Finding, string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		return nil, "", err
	}
	var e struct {
		Module   string           `json:"module"`
		Findings []report.Finding `json:"findings"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, "", fmt.Errorf("parsing expected.json: %w", err)
	}
	return e.Findings, e.Module, nil
}

// benchSuite is a module prepared with Maven, a launcher for it that starts JVMs
// as detect does, and its tests as the launcher lists them.
type benchSuite struct {
	setup *mvn.TestSetup
	l     *launcher.Launcher
	tests []string
	infos []launcher.TestInfo
}

// openSuite prepares the module in dir and lists its tests; the caller
// closes the launcher.
func openSuite(ctx context.Context, dir string, jars agent.Jars) (*benchSuite, error) {
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{Log: io.Discard})
	if err != nil {
		return nil, err
	}
	env := setup.LaunchEnv("java")
	l, err := pipeline.NewFast(env, jars, launcher.Options{})
	if err != nil {
		return nil, err
	}
	infos, err := l.List(ctx, launcher.Selection{TestClassesDir: setup.TestClassesDir, Includes: setup.Includes, Excludes: setup.Excludes})
	if err == nil {
		infos, _, err = defaultorder.Of(setup, infos, time.Now())
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	tests := launcher.IDs(infos)
	return &benchSuite{setup: setup, l: l, tests: tests, infos: infos}, nil
}

// module is the suite as the pipeline analyses it.
func (s *benchSuite) module() pipeline.Module {
	m := pipeline.NewModule("", s.setup.ModuleDir, flakydir.ForTestClasses(s.setup.TestClassesDir))
	m.Tests, m.Infos, m.Fast = s.tests, s.infos, s.l
	return m
}

// detect runs the pipeline's detection alone (no polluted state, no
// problem invariants) on the suite with d, quietly.
func (s *benchSuite) detect(ctx context.Context, d pipeline.DetectOptions) (*pipeline.Result, error) {
	d.NoState, d.NoInvariants = true, true
	return pipeline.Run(ctx, s.module(), pipeline.Options{Detect: &d}, logs.Logger{})
}

// orders runs the order generators alone on the suite.
func (s *benchSuite) orders(ctx context.Context, d pipeline.DetectOptions) (*od.Result, error) {
	d.Strategy = dataflow.StrategyOrders
	res, err := s.detect(ctx, d)
	if err != nil {
		return nil, err
	}
	return res.OD, nil
}
