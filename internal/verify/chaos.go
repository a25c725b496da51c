package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/chaos"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/surefire"
)

// ChaosConfig turns on the API perturbation analysis (flaky chaos) in verify.
type ChaosConfig struct {
	Mode       chaos.Mode       // empty: off
	Strategies []chaos.Strategy // nil: the mode's default
	Budget     time.Duration    // 0: sized from the unperturbed runs (at least chaos.DefaultBudget)
}

// ParseChaos parses the flaky.chaos property: empty or "off", or a mode
// ("combined", "single") optionally followed by ':' and strategies or groups
// joined with '+', e.g. "single:TIME+RANDOM_MAX".
func ParseChaos(value string) (ChaosConfig, error) {
	value = strings.TrimSpace(value)
	if value == "" || strings.EqualFold(value, "off") {
		return ChaosConfig{}, nil
	}
	mode, names, _ := strings.Cut(value, ":")
	m, err := chaos.ParseMode(mode)
	if err != nil || strings.TrimSpace(mode) == "" {
		return ChaosConfig{}, fmt.Errorf("chaos %q: want off, combined or single, optionally followed by :STRATEGY+STRATEGY...", value)
	}
	cc := ChaosConfig{Mode: m}
	if strings.TrimSpace(names) != "" {
		if cc.Strategies, err = chaos.Parse(names); err != nil {
			return ChaosConfig{}, fmt.Errorf("chaos %q: %w", value, err)
		}
	}
	return cc, nil
}

// runChaos perturbs the APIs for the order one fork record ran, with the
// launcher for its environment and the reruns as unperturbed evidence, and
// adds the api findings to res. Tests that failed in the Surefire run are
// left to the other analyses.
func runChaos(ctx context.Context, cfg Config, l *launcher.Launcher, rec *surefire.ForkRecord, order []string, reruns []*launcher.Result, res *Result) error {
	if cfg.Chaos.Mode == "" {
		return nil
	}
	settings := chaos.Settings{Roots: classRoots(rec, cfg.BuildDir)}
	out, err := chaos.Run(ctx, l, chaos.Config{
		Tests:      order,
		Progress:   cfg.Progress,
		Mode:       cfg.Chaos.Mode,
		Strategies: cfg.Chaos.Strategies,
		Settings:   settings,
		Baseline:   reruns,
		Budget:     cfg.Chaos.Budget,
		Workers:    cfg.Workers,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(cfg.Out, "[flaky] chaos: "+format+"\n", args...)
		},
	})
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	out.Findings = slices.DeleteFunc(out.Findings, func(f chaos.Finding) bool {
		return slices.ContainsFunc(rec.Tests, func(t surefire.ForkTest) bool {
			return t.Test == f.Test && launcher.ParseOutcome(t.Outcome).Failed()
		})
	})
	findings, err := chaos.ReportFindings(out.Findings, chaos.ReportOptions{
		OrderDir: filepath.Join(cfg.BuildDir, "flaky", "orders"), ModuleDir: cfg.ModuleDir,
		Module: moduleName(cfg.Root, cfg.ModuleDir), Settings: settings,
	})
	if err != nil {
		return err
	}
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
	for _, f := range findings {
		for _, s := range f.CallSites {
			fmt.Fprintf(cfg.Out, "[flaky] chaos: %s fails with %s at %s.%s(%s:%d) calling %s\n", f.Test, f.Strategy, s.Class, s.Method, s.File, s.Line, s.API)
		}
	}
	for _, s := range append(stats.PerStrategy, stats.PerGroup...) {
		fmt.Fprintf(cfg.Out, "[flaky] chaos: %-20s %d tests, %d not run, %d failures, %d findings\n", s.Name, s.Tests, s.NotRun, s.Failures, s.Findings)
	}
	res.Report.Findings = append(res.Report.Findings, findings...)
	res.Report.Runs += out.Runs
	res.Report.Stats.Orders += out.Runs
	res.Report.Stats.Chaos = addChaosStats(res.Report.Stats.Chaos, stats)
	return nil
}

// classRoots are the module's class directories on the fork's classpath:
// the directories inside its build directory (target/test-classes,
// target/classes), relative to the fork's working directory.
func classRoots(rec *surefire.ForkRecord, buildDir string) []string {
	var dirs []string
	for _, p := range rec.Classpath {
		if rel, err := filepath.Rel(buildDir, p); err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 && rec.TestClassesDirectory != "" {
		dirs = append(dirs, rec.TestClassesDirectory)
	}
	return chaos.RootsFor(rec.WorkingDirectory, dirs...)
}

// addChaosStats adds one fork record's chaos stats to the module's.
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
	total.FailUnperturbed = append(total.FailUnperturbed, s.FailUnperturbed...)
	total.Unconfirmed = append(total.Unconfirmed, s.Unconfirmed...)
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

// addStrategyStats adds one fork record's per-strategy (or per-group)
// counts to the module's, by name.
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
	}
	return total
}
