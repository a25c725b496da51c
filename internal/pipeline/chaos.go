package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// runChaos runs the module's tests with the APIs perturbed and adds the api
// findings and the chaos statistics to res.Report: replacing an earlier
// chaos run's unless opts.Accumulate. A new report counts parameterized
// tests' invocations one each, as Surefire does.
func runChaos(ctx context.Context, m Module, opts Options, log logs.Logger, res *Result, newReport bool) error {
	c := opts.Chaos
	if m.Launcher == nil {
		return fmt.Errorf("chaos needs the module's launcher")
	}
	cfg := chaos.Config{
		Tests:       m.Tests,
		Mode:        c.Mode,
		Strategies:  c.Strategies,
		Settings:    c.Settings,
		Baseline:    c.Baseline,
		Budget:      c.Budget,
		Seeds:       c.Seeds,
		Workers:     opts.Workers,
		AutoWorkers: c.AutoWorkers,
		Log:         StageChaos.of(log),
		Progress:    opts.Progress,
	}
	if c.Mode == chaos.Combined && len(m.ClassDirs) > 0 {
		cfg.Spread = spreadVerdict(m.Launcher.Java(), m.ClassDirs)
	}
	mark := m.Launcher.MarkJVMs()
	out, err := chaos.Run(ctx, m.Launcher, cfg)
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	jvms, peak := m.Launcher.JVMsSince(mark)
	res.Chaos = out
	out.Findings = slices.DeleteFunc(out.Findings, func(f chaos.Finding) bool { return c.Drop[f.Test] })
	out.NOD = slices.DeleteFunc(out.NOD, func(n chaos.NOD) bool { return c.Drop[n.Test] })
	out.Failing = slices.DeleteFunc(out.Failing, func(f chaos.Failing) bool { return c.Drop[f.Test] })
	ro := chaos.ReportOptions{
		OrderDir: flakydir.Dir(m.FlakyDir).Orders(), ModuleDir: m.Dir, Module: m.Name, Settings: c.Settings,
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
	stats.JVMs, stats.PeakJVMs = jvms, peak
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
	total.JVMs += s.JVMs
	total.PeakJVMs = max(total.PeakJVMs, s.PeakJVMs)
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

// spreadVerdict scans the class directories dirs for sockets bound to
// ports that may be fixed (editor.BindSites, with the source editor's JVM
// that the report's test method lines use later) and delivers the verdict
// chaos.Config.Spread takes: "" when there is none, so that the combined
// run may spread over free workers; else the first such site, since two
// JVMs that run it at once could clash over the port (a clash makes every
// later JVM of the analysis run alone).
func spreadVerdict(java string, dirs []string) <-chan string {
	verdict := make(chan string, 1)
	go func() {
		var sites []editor.BindSite
		err := editor.Lend(java, func(e *editor.Editor) (err error) {
			sites, err = e.BindSites(dirs)
			return err
		})
		switch {
		case err != nil:
			verdict <- err.Error()
		case len(sites) == 1:
			verdict <- sites[0].String()
		case len(sites) > 1:
			verdict <- fmt.Sprintf("%s (and %d more such sites)", sites[0], len(sites)-1)
		default:
			verdict <- ""
		}
	}()
	return verdict
}
