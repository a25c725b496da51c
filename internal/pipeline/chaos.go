package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/flakyhq/flaky/internal/chaos"
	"github.com/flakyhq/flaky/internal/report"
)

// runChaos runs the module's tests with the APIs perturbed and adds the api
// findings and the chaos statistics to res.Report: replacing an earlier
// chaos run's unless opts.Accumulate. A new report counts parameterized
// tests' invocations one each, as Surefire does.
func runChaos(ctx context.Context, m Module, opts Options, log Log, res *Result, newReport bool) error {
	c := opts.Chaos
	if m.Launcher == nil {
		return fmt.Errorf("chaos needs the module's launcher")
	}
	out, err := chaos.Run(ctx, m.Launcher, chaos.Config{
		Tests:       m.Tests,
		Mode:        c.Mode,
		Strategies:  c.Strategies,
		Settings:    c.Settings,
		Baseline:    c.Baseline,
		Budget:      c.Budget,
		Workers:     opts.Workers,
		AutoWorkers: c.AutoWorkers,
		Logf:        log.logf(StageChaos),
		Progress:    opts.Progress,
	})
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	res.Chaos = out
	out.Findings = slices.DeleteFunc(out.Findings, func(f chaos.Finding) bool { return c.Drop[f.Test] })
	out.NOD = slices.DeleteFunc(out.NOD, func(n chaos.NOD) bool { return c.Drop[n.Test] })
	out.Failing = slices.DeleteFunc(out.Failing, func(f chaos.Failing) bool { return c.Drop[f.Test] })
	ro := chaos.ReportOptions{
		OrderDir: filepath.Join(m.FlakyDir, "orders"), ModuleDir: m.Dir, Module: m.Name, Settings: c.Settings,
	}
	findings, err := chaos.ReportFindings(out.Findings, ro)
	if err != nil {
		return err
	}
	nods, err := chaos.ReportNOD(out.NOD, ro)
	if err != nil {
		return err
	}
	findings = append(findings, nods...)
	withMavenArgs(findings, opts.MavenArgs)
	if opts.InitStep {
		if err := withInitStep(findings, m.Dir, m.Root); err != nil {
			return err
		}
	}
	res.ChaosFindings = findings
	rep := res.Report
	if newReport && out.Tests > 0 {
		rep.Stats.Tests = out.Tests
	}
	stats := chaos.Stats(out)
	if !opts.Accumulate {
		chaos.Merge(rep, findings, stats)
		return nil
	}
	rep.Findings = chaos.Add(rep.Findings, findings)
	rep.Runs += out.Runs
	rep.Stats.Orders += out.Runs
	rep.Stats.Chaos = addChaosStats(rep.Stats.Chaos, stats)
	rep.Sort()
	return nil
}

// addChaosStats adds one run's chaos stats (verify: one fork's) to the
// module's.
func addChaosStats(total, s *report.ChaosStats) *report.ChaosStats {
	if total == nil {
		return s
	}
	for _, id := range s.Strategies {
		if !slices.Contains(total.Strategies, id) {
			total.Strategies = append(total.Strategies, id)
		}
	}
	total.Runs += s.Runs
	total.BudgetExhausted = total.BudgetExhausted || s.BudgetExhausted
	total.Interrupted = cmp.Or(total.Interrupted, s.Interrupted)
	total.FailUnperturbed = append(total.FailUnperturbed, s.FailUnperturbed...)
	total.Unconfirmed = append(total.Unconfirmed, s.Unconfirmed...)
	total.NOD = append(total.NOD, s.NOD...)
	total.Failing = append(total.Failing, s.Failing...)
	total.Suspected = append(total.Suspected, s.Suspected...)
	total.DurationMs += s.DurationMs
	total.Tests += s.Tests
	total.Machinery = append(total.Machinery, s.Machinery...)
	for _, id := range s.Skipped {
		if !slices.Contains(total.Skipped, id) {
			total.Skipped = append(total.Skipped, id)
		}
	}
	total.PerStrategy = addStrategyStats(total.PerStrategy, s.PerStrategy)
	total.PerGroup = addStrategyStats(total.PerGroup, s.PerGroup)
	return total
}

// addStrategyStats adds one run's per-strategy (or per-group) counts to
// the module's, by name.
func addStrategyStats(total, more []report.StrategyStats) []report.StrategyStats {
	for _, m := range more {
		i := slices.IndexFunc(total, func(t report.StrategyStats) bool { return t.Name == m.Name })
		if i < 0 {
			total = append(total, m)
			continue
		}
		t := &total[i]
		t.Tests += m.Tests
		t.NotRun += m.NotRun
		t.Failures += m.Failures
		t.Findings += m.Findings
		t.JVMs += m.JVMs
		t.DurationMs += m.DurationMs
	}
	return total
}
