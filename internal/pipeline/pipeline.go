// Package pipeline puts flaky's analyses together once: for one module it
// runs detection (data dependencies and the order generators, or the replay
// of shards' runs), polluted state, problem invariants, API perturbation and
// repair as stages into one report.Report. The CLI, `mvn -Pflaky verify` and
// the benchmarks translate their inputs into Options and call Run.
package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/analysis/state"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/fix/repair"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

// Stage names a stage of the pipeline in its log lines.
type Stage string

// The stages, as their log lines name them.
const (
	StageDataflow   Stage = "data dependencies"
	StageOrders     Stage = "order dependence"
	StageState      Stage = "polluted state"
	StageInvariants Stage = "problem invariants"
	StageChaos      Stage = "chaos"
	StageRepair     Stage = "repair"
	StageKnowledge  Stage = "knowledge"
)

// of returns log naming its lines after stage s.
func (s Stage) of(log logs.Logger) logs.Logger { return log.Stage(string(s)) }

// Module is what the pipeline analyses: one Maven module's tests and the
// JVMs that run them.
type Module struct {
	Dir      string // the module's base directory
	Name     string // its name in reports: its path from the project root
	Root     string // the project root, for the init step of reproduce commands
	FlakyDir string // where reports, orders and patches go (target/flaky)
	// Tests is the suite in its original order: the order Surefire runs it
	// in (defaultorder.Of, or the order the recorded fork ran); Infos
	// describe the listed tests (which classes have class fixtures).
	Tests []string
	Infos []launcher.TestInfo
	// Fast runs the JVMs of detection, polluted state and problem
	// invariants (see NewFast); needed by Detect.
	Fast *launcher.Launcher
	// Launcher runs the JVMs as the module's own build starts them; needed
	// by Chaos.
	Launcher *launcher.Launcher
	// Repair describes the module for Repair's validation runs.
	Repair repair.Module
	// ClassDirs are the module's class and test-class directories, whose
	// classes the knowledge store hashes and combined chaos scans for
	// sockets bound to fixed ports (see chaos.Config.Spread).
	ClassDirs []string
}

// NewModule returns the Module of the Maven module in dir of the project
// rooted at root (its name in reports is its path from there; root "" for
// a module analysed on its own, which is then its own root), with its
// reports in flaky: the one way to start a Module. The caller adds the
// tests and the JVMs its stages need (Tests, Infos, Fast, Launcher,
// Repair, ClassDirs).
func NewModule(root, dir string, flaky flakydir.Dir) Module {
	if root == "" {
		root = dir
	}
	return Module{Dir: dir, Name: mvn.ModulePath(root, dir), Root: root, FlakyDir: flaky.Path()}
}

// NewFast returns a launcher for m's detection stages: JVMs like env's that
// start faster (launcher.FastStart) and share a class-data archive.
func NewFast(env launcher.Env, jars agent.Jars, opts launcher.Options) (*launcher.Launcher, error) {
	opts.CDSDir = launcher.CDSCache()
	return launcher.New(launcher.FastStart(env), jars, opts)
}

// Options say which stages run and how.
type Options struct {
	// Report is the report the stages add to; nil starts a new one for the
	// module with its tests counted.
	Report *report.Report
	// Accumulate adds this run's API findings and statistics to Report's
	// (verify runs the pipeline once per Surefire fork) instead of replacing
	// those of an earlier chaos run.
	Accumulate bool
	// InitStep prefixes each reproduce command with `flaky init` when the
	// module's poms do not reach the flaky profile.
	InitStep bool
	// MavenArgs are the Maven profiles and properties (-Pa,b -Dk=v) the
	// user's build runs with, which every reproduce command of the new
	// findings carries.
	MavenArgs []string
	Workers   int // parallel JVMs; 0 means one per core
	// Progress hears the stages' phases and findings; nil shows nothing.
	Progress *progress.Tracker
	Detect   *DetectOptions   // nil: no detection
	Annotate *AnnotateOptions // nil: no annotation of given findings
	Chaos    *ChaosOptions    // nil: no API perturbation
	Repair   *RepairOptions   // nil: no repair

	// Knowledge is the folder of the module's knowledge store (see
	// knowledge.Dir), which a full detection (not a shard's, not a merge's)
	// updates with what it learned when the other stages are done; ""
	// keeps none.
	Knowledge string
}

// AnnotateOptions run the stages that follow detection on findings made
// elsewhere (a report of an older flaky or made with --no-state, a
// benchmark's expected findings): they name and confirm the polluted state
// and infer the problem invariants of each OD victim and brittle with its
// failing and passing orders, in place.
type AnnotateOptions struct {
	Findings          []report.Finding
	State, Invariants bool
	// Suite is the module's suite, where reset methods are searched for;
	// nil searches none.
	Suite []string
}

// DetectOptions configure detection and what follows it on its findings.
type DetectOptions struct {
	// Strategy is dataflow.StrategyDataflow, StrategyOrders or StrategyBoth.
	Strategy string
	// Seed, Rounds, Budget, Confirmations, Warm and Shard are od.Config's.
	Seed          int64
	Rounds        int
	Budget        time.Duration
	Confirmations int
	Warm          int
	Shard         od.Shard
	// AutoWorkers sizes the workers by the suite's measured JVMs.
	AutoWorkers bool
	// Partials are shards' partial reports to merge: their runs are
	// replayed (with their seed and rounds) as candidates' evidence
	// instead of running the detection orders, and no data dependencies
	// are recorded. Verify and VerifySeed are od.Config's: how many of
	// each part's detection orders run again here. TrustParts says the
	// user vouches for the parts (report.MergeStats.Trusted).
	Partials   []*od.Partial
	Verify     int
	VerifySeed uint64
	TrustParts bool
	// Original holds runs of the module's tests the caller already made
	// (verify: the fork's run and its reruns), counted as original runs.
	Original []*launcher.Result
	// Skip names tests not to report (the caller reported them already).
	Skip map[string]bool
	// Reverse adds a reference run of the reversed order to the data dependencies.
	Reverse bool
	// Graph, when set, is where the data-dependency graph is written.
	Graph string
	// NoState and NoInvariants skip naming the polluted state and
	// inferring the problem invariants of the OD findings.
	NoState, NoInvariants bool
	// RequireOrders fails (NoOrdersError) when no order completed.
	RequireOrders bool
	// Change, when set, judges only the tests a change can affect, in
	// orders covering the pairs of tests that can interact with them
	// (see detect); nil analyses the whole suite.
	Change *ChangeOptions
}

// ChaosOptions configure the API perturbation.
type ChaosOptions struct {
	Mode       chaos.Mode
	Strategies []chaos.Strategy // nil: the mode's default
	Settings   chaos.Settings
	Budget     time.Duration // 0: sized from the unperturbed runs
	// Seeds is how many seeds ITERATION_ORDER runs under
	// (chaos.Config.Seeds; 0: chaos.DefaultSeeds).
	Seeds int
	// Baseline holds unperturbed runs of the tests the caller already made.
	Baseline []*launcher.Result
	// Drop names tests whose API and NOD findings and failing verdicts are
	// left out (verify: those that failed in the Surefire run, left to the
	// other analyses).
	Drop map[string]bool
	// AutoWorkers runs more JVMs than Options.Workers while those running
	// wait, not keeping cores busy (chaos.Config.AutoWorkers).
	AutoWorkers bool
}

// RepairOptions configure the repair of the report's findings.
type RepairOptions struct {
	Test            string // repair only this test's findings
	AllowReflection bool
	LLM             *repair.LLMConfig
	NoLLMWhy        string
	// TestTimeout bounds one test of the repair sandbox's runs, as the
	// launcher's test timeout does detection's; 0 means none.
	TestTimeout time.Duration
}

// Result is what Run found: the report, and each stage's own result for
// callers that print or measure it.
type Result struct {
	Report *report.Report
	// Findings are the findings detection added (after state and invariants).
	Findings []report.Finding
	OD       *od.Result
	Dataflow *dataflow.Result
	// Partial is the partial report a shard wrote (then nothing else ran).
	Partial string
	// ChaosFindings are the findings the chaos stage added: api ones, and
	// nod ones for the tests its unperturbed runs showed flaky.
	ChaosFindings []report.Finding
	Chaos         *chaos.Result
	Repair        *repair.Result
	// StateTimings say how long naming each finding's polluted state took.
	StateTimings []state.Timing
}

// NoOrdersError says that detection completed no order, or no test in
// any order: a clean report would only mean that nothing ran.
type NoOrdersError struct {
	Tests    int
	Coverage od.Coverage
}

func (e *NoOrdersError) Error() string {
	why := "no order completed"
	if e.Coverage.Orders > 0 {
		why = fmt.Sprintf("no test completed in any of the %d orders (each crashed, timed out or got no result: %s)", e.Coverage.Orders, od.ListSome(e.Coverage.NeverRan, 5))
	}
	if e.Coverage.BudgetExhausted {
		why += fmt.Sprintf(" within the budget of %s (raise --budget, or check for tests that hang)", e.Coverage.Budget)
	}
	return fmt.Sprintf("%s; no result for the %d tests", why, e.Tests)
}

// Run runs the stages opts asks for on m, in order: detection (then the
// polluted state and problem invariants of its findings), the annotation of
// given findings, API perturbation, repair; then a full detection's
// knowledge is kept (Options.Knowledge). log gets the stages' summary
// lines as progress notes and their lines about single items (a data
// dependency, a victim's search, a finding whose state could not be named)
// as debug notes, each named after its stage.
func Run(ctx context.Context, m Module, opts Options, log logs.Logger) (*Result, error) {
	res := &Result{Report: opts.Report}
	if res.Report == nil {
		res.Report = &report.Report{Module: m.Name, Stats: report.Stats{Tests: len(m.Tests)}}
	}
	if opts.Detect != nil {
		if err := detect(ctx, m, opts, log, res); err != nil || res.Partial != "" {
			return res, err
		}
	}
	if a := opts.Annotate; a != nil {
		if err := annotate(ctx, m, opts.Progress, a.Findings, nil, a.State, a.Invariants, a.Suite, log, res); err != nil {
			return res, err
		}
	}
	if opts.Chaos != nil {
		if err := runChaos(ctx, m, opts, log, res, opts.Report == nil); err != nil {
			return res, err
		}
	}
	if opts.Repair != nil {
		if err := runRepair(ctx, m, opts, log, res); err != nil {
			return res, err
		}
	}
	switch {
	case opts.Knowledge != "" && full(opts):
		remember(ctx, m, opts, log, res)
	case opts.Knowledge != "" && opts.Detect != nil && opts.Detect.Change != nil:
		suspect(ctx, m, opts, log, res)
	}
	return res, nil
}
