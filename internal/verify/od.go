package verify

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/dataflow"
	"github.com/flakyhq/flaky/internal/invariants"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/od"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/state"
	"github.com/flakyhq/flaky/surefire"
)

// detectOrderDependence runs the order-dependence analysis on one fork's
// tests in JVMs like the fork's (its recorded environment, started with
// launcher.FastStart): the data dependencies of the original order, then the
// order generators starting from the fork's own run and the reruns of its
// order (or one of the two, as cfg.Strategy says), and adds to res what it finds about the tests res does not report
// yet (so a NOD test is reported once), each OD victim and brittle with its
// polluted state named and confirmed. A test it explains as flaky no longer
// counts as failing in every run.
func detectOrderDependence(ctx context.Context, cfg Config, rec *surefire.ForkRecord, reruns []*launcher.Result, res *Result) error {
	if cfg.Budget < 0 {
		return nil
	}
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	opts := launcher.Options{Workers: cfg.Workers, Notef: notef(cfg), CDSDir: launcher.CDSCache()}
	if cfg.Progress != nil {
		opts.Ran = func(*launcher.Result) { cfg.Progress.Ran() }
	}
	l, err := launcher.New(launcher.FastStart(envOf(rec, cfg.Java)), jars, opts)
	if err != nil {
		return err
	}
	defer l.Close()
	skip := map[string]bool{}
	for _, f := range res.Report.Findings {
		skip[f.Test] = true
	}
	original := append([]*launcher.Result{forkResult(rec)}, reruns...)
	// Which classes have class fixtures: the analysis keeps each of them in one scope.
	infos, err := l.List(ctx, launcher.Selection{TestClassesDir: rec.TestClassesDirectory})
	if err != nil {
		return fmt.Errorf("order-dependence analysis: list the module's tests: %w", err)
	}
	fixtures, unrepeatable := od.FixtureClasses(infos)
	logf := func(what string) func(string, ...any) {
		return func(format string, args ...any) {
			fmt.Fprintf(cfg.Out, "[flaky] module %s: %s: "+format+"\n", append([]any{cfg.Module, what}, args...)...)
		}
	}
	var df *dataflow.Result
	if cfg.Strategy != dataflow.StrategyOrders {
		if df, err = detectDataflow(ctx, cfg, l, rec.TestIDs(), fixtures, logf("data dependencies")); err != nil {
			return err
		}
		df.Drop(skip)
	}
	out := &od.Result{Coverage: od.Coverage{Generators: map[string]int{}}}
	if cfg.Strategy != dataflow.StrategyDataflow {
		out, err = od.Analyze(ctx, l, od.Config{
			Tests:        rec.TestIDs(),
			Progress:     cfg.Progress,
			Fixtures:     fixtures,
			Unrepeatable: unrepeatable,
			Original:     original,
			OriginalRuns: len(original),
			Skip:         skip,
			Seed:         time.Now().UnixNano(),
			Rounds:       cfg.Rounds,
			Budget:       cfg.Budget,
			Workers:      cfg.Workers,
			Logf:         logf("order dependence"),
		})
		if err != nil {
			return fmt.Errorf("order-dependence analysis: %w", err)
		}
	}
	var fromDataflow map[string]bool
	if df != nil {
		fromDataflow = dataflow.Merge(out, df)
	}
	findings, err := od.ReportFindings(out.Findings, od.ReportOptions{
		OrderDir:  filepath.Join(cfg.BuildDir, "flaky", "orders"),
		ModuleDir: cfg.ModuleDir,
		Module:    moduleName(cfg.Root, cfg.ModuleDir),
	})
	if err != nil {
		return err
	}
	if df != nil {
		dataflow.WithState(findings, df, fromDataflow)
		res.Report.Stats.Dataflow = dataflow.Stats(res.Report.Stats.Dataflow, df)
	}
	if _, err := state.Annotate(ctx, l, findings, nil, func(format string, args ...any) {
		fmt.Fprintf(cfg.Out, "[flaky] module %s: polluted state: "+format+"\n", append([]any{cfg.Module}, args...)...)
	}); err != nil {
		return fmt.Errorf("polluted state: %w", err)
	}
	if !cfg.NoInvariants {
		if err := invariants.Annotate(ctx, l, findings, rec.TestIDs(), func(format string, args ...any) {
			fmt.Fprintf(cfg.Out, "[flaky] module %s: problem invariants: "+format+"\n", append([]any{cfg.Module}, args...)...)
		}); err != nil {
			return fmt.Errorf("problem invariants: %w", err)
		}
	}
	res.Report.Findings = append(res.Report.Findings, findings...)
	res.Report.Runs += out.Coverage.Orders
	res.Report.Stats.Orders += out.Coverage.Orders
	res.Report.Stats.Coverage = mergeCoverage(res.Report.Stats.Coverage, out.Coverage.Report())
	res.Failing = slices.DeleteFunc(res.Failing, func(t string) bool {
		return slices.ContainsFunc(findings, func(f report.Finding) bool { return f.Test == t })
	})
	return nil
}

// detectDataflow runs the data-dependency analysis of one fork's tests
// (issue 14); refinement starts no new round after the budget (without
// one, after the longest budget the order generators would choose).
func detectDataflow(ctx context.Context, cfg Config, l *launcher.Launcher, tests []string, fixtures map[string]bool, logf func(string, ...any)) (*dataflow.Result, error) {
	deadline := time.Now().Add(od.MaxAutoBudget)
	if cfg.Budget > 0 {
		deadline = time.Now().Add(cfg.Budget)
	}
	cfg.Progress.Phase("data dependencies", 0, deadline)
	res, err := dataflow.Analyze(ctx, l, dataflow.Config{Tests: tests, Confirmations: od.DefaultConfirmations, Deadline: deadline, Fixtures: fixtures, Logf: logf})
	if err != nil {
		return nil, fmt.Errorf("data dependencies: %w", err)
	}
	cfg.Progress.Found(len(res.Findings))
	return res, nil
}

// forkResult turns the fork's recorded run into a launcher result.
func forkResult(rec *surefire.ForkRecord) *launcher.Result {
	r := &launcher.Result{Order: rec.TestIDs()}
	for _, t := range rec.Tests {
		r.Tests = append(r.Tests, launcher.TestResult{Test: t.Test, Outcome: launcher.ParseOutcome(t.Outcome), TimeMs: t.TimeMs, Message: t.Message})
	}
	return r
}

// mergeCoverage adds the coverage of another fork's analysis to c.
func mergeCoverage(c, o *report.Coverage) *report.Coverage {
	if c == nil {
		return o
	}
	c.Orders += o.Orders
	for g, n := range o.Generators {
		if c.Generators == nil {
			c.Generators = map[string]int{}
		}
		c.Generators[g] += n
	}
	c.Rounds += o.Rounds
	c.RoundsPlanned += o.RoundsPlanned
	c.Pairs += o.Pairs
	c.PairsCovered += o.PairsCovered
	c.TestsAlone += o.TestsAlone
	c.BudgetMs += o.BudgetMs
	c.BudgetExhausted = c.BudgetExhausted || o.BudgetExhausted
	c.Unconfirmed = append(c.Unconfirmed, o.Unconfirmed...)
	c.Serial = append(c.Serial, o.Serial...)
	c.DurationMs += o.DurationMs
	return c
}
