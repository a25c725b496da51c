package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/analysis/invariants"
	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/analysis/state"
	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// detect runs the detection stages: the data dependencies (unless the
// strategy is orders, a shard's or a merge's run), the order generators
// (unless the strategy is dataflow), their merge into one set of findings,
// a shard's partial report, then the polluted state and the problem
// invariants of the findings; it adds them, their runs and coverage to
// res.Report.
//
// With a change (DetectOptions.Change), detection starts no JVM when the
// change touches only documentation, and analyses every test as without
// one when it touches a build file or a resource; otherwise a traced run
// of the original order says which tests the change can affect and which
// pairs of tests share state with them, and the order generators judge
// those tests in orders covering those pairs (no data-dependency analysis).
func detect(ctx context.Context, m Module, opts Options, log logs.Logger, res *Result) error {
	d := opts.Detect
	if d.Change != nil {
		if why := d.Change.Inert(); why != "" {
			StageOrders.of(log).Logf("change since %s: %s", change.QuoteRef(d.Change.Change.Ref), why)
			res.Report.Stats.Change = addChange(res.Report.Stats.Change, changeStats(d.Change.Change, nil, why))
			return nil
		}
		if d.Shard.N > 0 || len(d.Partials) > 0 {
			return fmt.Errorf("a change's analysis cannot be sharded")
		}
	}
	if m.Fast == nil {
		return fmt.Errorf("detection needs the module's fast launcher")
	}
	cfg, err := detectConfig(ctx, m, opts, log)
	if err != nil {
		return err
	}
	if nothing, err := focusChange(ctx, m, opts, &cfg, log, res); nothing || err != nil {
		return err
	}
	df, out, err := analyses(ctx, m, &cfg, d, log)
	if err != nil {
		return err
	}
	res.OD, res.Dataflow = out, df
	var fromDataflow map[string]bool
	if df != nil {
		fromDataflow = dataflow.Merge(out, df)
	}
	if d.RequireOrders {
		if err := ranOrders(len(m.Tests), out.Coverage); err != nil {
			return err
		}
	}
	if cfg.Shard.N > 0 {
		p, err := newPartial(ctx, m, cfg, out)
		if err != nil {
			return err
		}
		res.Partial, err = od.WritePartial(m.FlakyDir, p)
		return err
	}
	findings, err := detectedFindings(ctx, m, opts, cfg, out, df, fromDataflow, log, res)
	if err != nil {
		return err
	}
	addDetected(res.Report, d, cfg, out, findings)
	res.Findings = findings
	return nil
}

// detectConfig is the order generators' configuration of a detection;
// a merge's replays its partial reports' runs.
func detectConfig(ctx context.Context, m Module, opts Options, log logs.Logger) (od.Config, error) {
	d := opts.Detect
	fixtures, unrepeatable := od.FixtureClasses(m.Infos)
	cfg := od.Config{
		Tests:         m.Tests,
		Original:      d.Original,
		Skip:          d.Skip,
		Fixtures:      fixtures,
		Unrepeatable:  unrepeatable,
		Seed:          d.Seed,
		Rounds:        d.Rounds,
		Budget:        d.Budget,
		Confirmations: d.Confirmations,
		Workers:       opts.Workers,
		AutoWorkers:   d.AutoWorkers,
		Warm:          d.Warm,
		Shard:         d.Shard,
		Log:           StageOrders.of(log),
		Progress:      opts.Progress,
	}
	if len(d.Original) > 0 {
		cfg.OriginalRuns = len(d.Original)
	}
	if len(d.Partials) > 0 {
		if err := checkPartials(ctx, m, d.Partials); err != nil {
			return od.Config{}, err
		}
		cfg.Seed, cfg.Rounds, cfg.Recorded = d.Partials[0].Seed, d.Partials[0].Rounds, od.MergeRuns(d.Partials)
		cfg.Verify, cfg.VerifySeed = d.Verify, d.VerifySeed
	}
	return cfg, nil
}

// focusChange, with a change, records in res which tests it has analysed
// and, unless every test is, focuses cfg on the tests the change can
// affect (a traced run of the original order says which); nothing reports
// that no test runs the changed code.
func focusChange(ctx context.Context, m Module, opts Options, cfg *od.Config, log logs.Logger, res *Result) (nothing bool, err error) {
	c := opts.Detect.Change
	if c == nil {
		return false, nil
	}
	if !c.Change.Everything() && c.Knowledge == nil && c.full == "" {
		c.full = c.loadKnowledge(opts.Knowledge)
	}
	switch {
	case c.Change.Everything():
		why := everything(c.Change)
		StageOrders.of(log).Logf("change since %s: %s", change.QuoteRef(c.Change.Ref), why)
		res.Report.Stats.Change = addChange(res.Report.Stats.Change, everyTest(c.Change, m.Tests, why))
	case c.full != "":
		// Without knowledge nothing tells a new flaky test from an old one:
		// the change gets a full analysis, which records the store.
		StageKnowledge.of(log).Logf("%s", c.full)
		res.Report.Stats.Change = addChange(res.Report.Stats.Change, everyTest(c.Change, m.Tests, "every test is analysed: "+c.full))
	default:
		im, traced, err := focus(ctx, m, c, log)
		if err != nil {
			return false, err
		}
		if len(cfg.Original) == 0 {
			cfg.Original = []*launcher.Result{traced}
		}
		if len(im.Tests) == 0 {
			res.Report.Stats.Change = addChange(res.Report.Stats.Change, changeStats(c.Change, im, "nothing to analyse: no test runs the changed code"))
			return true, nil
		}
		res.Report.Stats.Change = addChange(res.Report.Stats.Change, changeStats(c.Change, im, im.Summary()))
		cfg.Focus = c.odFocus(im)
	}
	return false, nil
}

// analyses runs the data-dependency analysis (its writers go to cfg) and
// the order generators, as far as the strategy, a shard, a merge and a
// change's focus ask for them; a result not run is nil (data
// dependencies) or empty (orders).
func analyses(ctx context.Context, m Module, cfg *od.Config, d *DetectOptions, log logs.Logger) (*dataflow.Result, *od.Result, error) {
	// Data dependencies are a whole run's: a shard runs only its share of
	// the order generators' plan, and a merge replays those. A change's
	// analysis judges its pairs in orders instead.
	var df *dataflow.Result
	if d.Strategy != dataflow.StrategyOrders && cfg.Shard.N == 0 && len(d.Partials) == 0 && cfg.Focus == nil {
		var err error
		if df, err = dependencies(ctx, m, *cfg, d, log); err != nil {
			return nil, nil, err
		}
		df.Drop(d.Skip)
		cfg.Writers = df.Writers()
	}
	n := len(m.Tests)
	out := &od.Result{Coverage: od.Coverage{Seed: cfg.Seed, Tests: n, Pairs: n * (n - 1), Generators: map[string]int{}}}
	if d.Strategy != dataflow.StrategyDataflow || cfg.Focus != nil {
		var err error
		mark := m.Fast.MarkJVMs()
		if out, err = od.Run(ctx, m.Fast, *cfg); err != nil {
			return nil, nil, err
		}
		out.Coverage.JVMs, out.Coverage.PeakJVMs = m.Fast.JVMsSince(mark)
	}
	return df, out, nil
}

// detectedFindings turns the merged findings of out into the report's,
// with the data dependencies' state (fromDataflow: the tests they found),
// the Maven arguments, the init step, and the polluted state and problem
// invariants of those a change's full analysis did not already explain.
func detectedFindings(ctx context.Context, m Module, opts Options, cfg od.Config, out *od.Result, df *dataflow.Result, fromDataflow map[string]bool, log logs.Logger, res *Result) ([]report.Finding, error) {
	d := opts.Detect
	findings, err := od.ReportFindings(out.Findings, od.ReportOptions{OrderDir: flakydir.Dir(m.FlakyDir).Orders(), ModuleDir: m.Dir, Module: m.Name})
	if err != nil {
		return nil, err
	}
	if df != nil {
		dataflow.WithState(findings, df, fromDataflow)
		res.Report.Stats.Dataflow = dataflow.Stats(res.Report.Stats.Dataflow, df)
	}
	withMavenArgs(findings, opts.MavenArgs)
	if opts.InitStep {
		if err := withInitStep(findings, m.Dir, m.Root); err != nil {
			return nil, err
		}
	}
	// A change's findings known from before were named and explained by
	// the full analysis that found them: only the new ones are annotated.
	var known func(report.Finding) bool
	if cfg.Focus != nil {
		known = d.Change.knownAs
	}
	if err := annotateNew(ctx, m, opts.Progress, findings, known, stateHint(cfg.Focus), !d.NoState, !d.NoInvariants, log, res); err != nil {
		return nil, err
	}
	return findings, nil
}

// addDetected adds the findings, runs and coverage of a detection to rep.
func addDetected(rep *report.Report, d *DetectOptions, cfg od.Config, out *od.Result, findings []report.Finding) {
	rep.Findings = append(rep.Findings, findings...)
	rep.Runs += out.Coverage.Orders
	rep.Stats.Orders += out.Coverage.Orders
	rep.Stats.DurationMs += out.Coverage.Duration.Milliseconds()
	rep.Stats.Coverage = addCoverage(rep.Stats.Coverage, out.Coverage.Report())
	rep.Stats.Coverage.Unconfirmed = unreported(rep.Stats.Coverage.Unconfirmed, rep.Findings)
	if len(d.Partials) > 0 {
		rep.Stats.Merge = mergeStats(d.Partials, out.Parts, d.TrustParts)
	}
	if cfg.Focus != nil {
		d.Change.judgeKnown(rep.Stats.Change, cfg.Focus, rep.Stats.Coverage, rep.Findings)
	}
	rep.Sort()
}

// annotateNew annotates the findings known does not hold (nil: all of
// them), in place.
func annotateNew(ctx context.Context, m Module, prog *progress.Tracker, findings []report.Finding, known func(report.Finding) bool, hint func(report.Finding) []string, names, infers bool, log logs.Logger, res *Result) error {
	var at []int
	var fresh []report.Finding
	for i, f := range findings {
		if known == nil || !known(f) {
			at, fresh = append(at, i), append(fresh, f)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	if err := annotate(ctx, m, prog, fresh, hint, names, infers, m.Tests, log, res); err != nil {
		return err
	}
	for j, i := range at {
		findings[i] = fresh[j]
	}
	return nil
}

// stateHint returns, with a change's focus, the roots of a finding to
// try first when naming its polluted state: those its test reads and one
// of its polluters or state-setters writes (nil without a focus).
func stateHint(f *od.Focus) func(report.Finding) []string {
	if f == nil {
		return nil
	}
	return func(fd report.Finding) []string {
		written := map[string]bool{}
		for _, g := range slices.Concat(fd.Polluters, fd.Setters) {
			for _, w := range g {
				for _, r := range f.ReadsWrittenBy(fd.Test, w) {
					written[r] = true
				}
			}
		}
		return slices.DeleteFunc(slices.Clone(f.Reads[fd.Test]), func(r string) bool { return !written[r] })
	}
}

// annotate names and confirms the polluted state (when names; hint as for
// state.Annotate) and infers the problem invariants (when infers, with
// reset methods searched in suite) of the OD findings, in m's fast JVMs;
// prog hears each as a phase of its own.
func annotate(ctx context.Context, m Module, prog *progress.Tracker, findings []report.Finding, hint func(report.Finding) []string, names, infers bool, suite []string, log logs.Logger, res *Result) error {
	if m.Fast == nil {
		return fmt.Errorf("naming the polluted state needs the module's fast launcher")
	}
	if names {
		prog.Phase("naming the polluted state", 0, time.Time{})
		timings, err := state.Annotate(ctx, m.Fast, findings, nil, hint, StageState.of(log))
		if err != nil {
			return fmt.Errorf("polluted state: %w", err)
		}
		res.StateTimings = append(res.StateTimings, timings...)
	}
	if infers {
		prog.Phase("inferring the problem invariants", 0, time.Time{})
		if err := invariants.Annotate(ctx, m.Fast, findings, suite, StageInvariants.of(log)); err != nil {
			return fmt.Errorf("problem invariants: %w", err)
		}
	}
	return nil
}

// unreported returns the tests of unconfirmed that no finding reports: a
// test another step confirmed (the data-dependency analysis, another fork)
// is a finding, never also unconfirmed.
func unreported(unconfirmed []string, findings []report.Finding) []string {
	var out []string
	for _, t := range unconfirmed {
		if !slices.ContainsFunc(findings, func(f report.Finding) bool { return f.Test == t }) {
			out = append(out, t)
		}
	}
	return out
}

// ranOrders refuses to report an analysis that completed none of its
// orders, or in which no test completed in any run, as clean: "0 flaky"
// would only mean that nothing ran.
func ranOrders(tests int, cov od.Coverage) error {
	if tests == 0 || cov.Orders > 0 && len(cov.NeverRan) < tests {
		return nil
	}
	return &NoOrdersError{Tests: tests, Coverage: cov}
}

// dependencies runs the data-dependency analysis and writes its graph when
// asked to; refinement starts no new round after the budget (without one,
// after the longest budget the order generators would choose).
func dependencies(ctx context.Context, m Module, cfg od.Config, d *DetectOptions, log logs.Logger) (*dataflow.Result, error) {
	dcfg := dataflow.Config{Tests: cfg.Tests, Confirmations: cfg.Confirmations, Log: StageDataflow.of(log), Fixtures: cfg.Fixtures, Reverse: d.Reverse}
	if dcfg.Confirmations == 0 {
		dcfg.Confirmations = od.DefaultConfirmations
	}
	dcfg.Deadline = time.Now().Add(od.MaxAutoBudget)
	if cfg.Budget > 0 {
		dcfg.Deadline = time.Now().Add(cfg.Budget)
	}
	cfg.Progress.Phase("data dependencies", 0, dcfg.Deadline)
	res, err := dataflow.Run(ctx, m.Fast, dcfg)
	if err != nil {
		return nil, fmt.Errorf("data dependencies: %w", err)
	}
	cfg.Progress.Found(len(res.Findings))
	if d.Graph != "" {
		if err := res.Graph.Write(d.Graph); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// addCoverage adds the coverage of another run of the analysis (verify:
// another fork's) to c.
func addCoverage(c, o *report.Coverage) *report.Coverage {
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
	c.Unminimised = append(c.Unminimised, o.Unminimised...)
	c.Serial = append(c.Serial, o.Serial...)
	for _, t := range o.NeverRan {
		if !slices.Contains(c.NeverRan, t) {
			c.NeverRan = append(c.NeverRan, t)
		}
	}
	c.DurationMs += o.DurationMs
	return c
}
