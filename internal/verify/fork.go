package verify

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/gate/knowledge"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// analyseFork runs the pipeline on one fork's tests: detection in JVMs like
// the fork's (its recorded environment, started for speed) from the fork's
// own run and the reruns of its order, on the tests res does not report yet
// (so a NOD test is reported once), then API perturbation with the reruns
// as unperturbed evidence, in l. It adds the findings and statistics to
// res.Report; a test the detection explains as flaky no longer counts as
// failing in every run.
func analyseFork(ctx context.Context, cfg Config, l *launcher.Launcher, rec *surefire.ForkRecord, reruns []*launcher.Result, res *Result) error {
	opts := pipeline.Options{Report: res.Report, Accumulate: true, MavenArgs: cfg.MavenArgs, Workers: cfg.Workers, Progress: cfg.Progress}
	m := pipeline.NewModule(cfg.Root, cfg.ModuleDir, flakydir.InBuild(cfg.BuildDir))
	m.Tests, m.Launcher, m.ClassDirs = rec.TestIDs(), l, []string{filepath.Join(cfg.BuildDir, "classes"), rec.TestClassesDirectory}
	switch {
	case cfg.Budget >= 0 && cfg.Change != nil && cfg.Change.Inert() != "":
		// Nothing to judge: no JVM.
		opts.Detect = &pipeline.DetectOptions{Change: cfg.Change}
	case cfg.Budget >= 0:
		jars, err := agent.Extract()
		if err != nil {
			return err
		}
		// The analysis's JVMs cut a hanging test as the reruns' do.
		if m.Fast, err = pipeline.NewFast(envOf(rec, cfg.Java), jars, launcherOptions(cfg, rec)); err != nil {
			return err
		}
		defer m.Fast.Close()
		// Which classes have class fixtures: the analysis keeps each of them in one scope.
		if m.Infos, err = m.Fast.List(ctx, launcher.Selection{TestClassesDir: rec.TestClassesDirectory}); err != nil {
			return fmt.Errorf("order-dependence analysis: list the module's tests: %w", err)
		}
		skip := map[string]bool{}
		for _, f := range res.Report.Findings {
			skip[f.Test] = true
		}
		seed := cfg.Seed
		switch {
		case seed != 0:
		case cfg.Change != nil:
			seed = cfg.Change.Change.Seed()
		default:
			seed = time.Now().UnixNano()
		}
		opts.Detect = &pipeline.DetectOptions{
			Strategy:      cfg.Strategy,
			Seed:          seed,
			Rounds:        cfg.Rounds,
			Budget:        cfg.Budget,
			Confirmations: cfg.Confirmations,
			Original:      append([]*launcher.Result{forkResult(rec)}, reruns...),
			Skip:          skip,
			Reverse:       cfg.DataflowReverse,
			NoState:       cfg.NoState,
			NoInvariants:  cfg.NoInvariants,
			Change:        cfg.Change,
		}
		if opts.Knowledge, err = knowledge.Dir(cfg.Knowledge, m.Dir, m.Name); err != nil {
			return err
		}
	}
	if cfg.Chaos.Mode != "" {
		failed := map[string]bool{}
		for _, t := range rec.Tests {
			if launcher.ParseOutcome(t.Outcome).Failed() {
				failed[t.Test] = true
			}
		}
		opts.Chaos = &pipeline.ChaosOptions{
			Mode: cfg.Chaos.Mode, Strategies: cfg.Chaos.Strategies, Budget: cfg.Chaos.Budget,
			Settings: chaos.Settings{Roots: classRoots(rec, cfg.BuildDir)}, Baseline: reruns, Drop: failed,
			AutoWorkers: cfg.AutoWorkers,
		}
	}
	if opts.Detect == nil && opts.Chaos == nil {
		return nil
	}
	out, err := pipeline.Run(ctx, m, opts, logTo(cfg))
	if err != nil {
		return err
	}
	res.Failing = slices.DeleteFunc(res.Failing, func(t string) bool {
		return slices.ContainsFunc(out.Findings, func(f report.Finding) bool { return f.Test == t })
	})
	if opts.Chaos != nil {
		printChaos(cfg, out)
	}
	return nil
}

// logTo prints the pipeline's lines as the build's: "[flaky] module M:
// stage: ...", the chaos stage's as "[flaky] chaos: ..." and the
// knowledge's (which name themselves) as "[flaky] module M: ..."; the
// lines about single items only with cfg.Debug.
func logTo(cfg Config) logs.Logger {
	if cfg.Debug {
		return logs.New(printTo(cfg), printTo(cfg))
	}
	return logs.New(printTo(cfg), nil)
}

// printTo prints one of the pipeline's lines as logTo says.
func printTo(cfg Config) logs.Sink {
	return func(stage, line string) {
		switch pipeline.Stage(stage) {
		case pipeline.StageChaos:
			fmt.Fprintf(cfg.Out, "[flaky] chaos: %s\n", line)
			return
		case pipeline.StageKnowledge:
			fmt.Fprintf(cfg.Out, "[flaky] module %s: %s\n", cfg.Name, line)
			return
		}
		fmt.Fprintf(cfg.Out, "[flaky] module %s: %s: %s\n", cfg.Name, stage, line)
	}
}

// printChaos prints what API perturbation left out and found in one fork.
func printChaos(cfg Config, res *pipeline.Result) {
	out := res.Chaos
	stats := chaos.Stats(out)
	if len(stats.Skipped) > 0 {
		fmt.Fprintf(cfg.Out, "[flaky] chaos: skipped: %s did not run: the budget of %s ended first\n", strings.Join(stats.Skipped, "+"), out.Budget.Round(time.Second))
	}
	for _, s := range stats.PerStrategy {
		if s.NotRun > 0 && (out.Mode == chaos.Single || s.Name == string(chaos.Combined)) {
			fmt.Fprintf(cfg.Out, "[flaky] chaos: not analysed: %d test(s) never ran under %s\n", s.NotRun, s.Name)
		}
	}
	for _, m := range out.Machinery {
		fmt.Fprintf(cfg.Out, "[flaky] chaos: left out: %s\n", m)
	}
	for _, n := range out.NOD {
		fmt.Fprintf(cfg.Out, "[flaky] chaos: %s (flaky without perturbation)\n", n)
	}
	for _, f := range out.Failing {
		fmt.Fprintf(cfg.Out, "[flaky] chaos: failing %s\n", f)
	}
	for _, f := range res.ChaosFindings {
		for _, s := range f.CallSites {
			fmt.Fprintf(cfg.Out, "[flaky] chaos: %s fails with %s at %s.%s(%s:%d) calling %s\n", f.Test, f.Strategy, s.Class, s.Method, s.File, s.Line, s.API)
		}
	}
	// A group's row counts distinct tests over its strategies; "(all)" tells
	// it from a strategy of the group's name (LOCALE's).
	for _, s := range stats.PerStrategy {
		fmt.Fprintf(cfg.Out, "[flaky] chaos: %-20s %d tests, %d not run, %d failures, %d findings\n", s.Name, s.Tests, s.NotRun, s.Failures, s.Findings)
	}
	for _, s := range stats.PerGroup {
		fmt.Fprintf(cfg.Out, "[flaky] chaos: %-20s %d tests, %d not run, %d failures, %d findings\n", "(all) "+s.Name, s.Tests, s.NotRun, s.Failures, s.Findings)
	}
}

// forkResult turns the fork's recorded run into a launcher result.
func forkResult(rec *surefire.ForkRecord) *launcher.Result {
	r := &launcher.Result{Order: rec.TestIDs()}
	for _, t := range rec.Tests {
		r.Tests = append(r.Tests, launcher.TestResult{Test: t.Test, Outcome: launcher.ParseOutcome(t.Outcome), TimeMs: t.TimeMs, Message: t.Message})
	}
	return r
}
