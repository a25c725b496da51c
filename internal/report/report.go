// Package report defines flaky's versioned report (target/flaky/report.json)
// and reads and writes it. Fields are only ever added, never renamed.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/maven/surefire"
)

// Version is the report format version this package writes.
const Version = 1

// Kind names what sort of flaky test a finding is.
type Kind string

// Finding kinds.
const (
	ODVictim  Kind = "od-victim"  // passes alone, fails after some tests
	ODBrittle Kind = "od-brittle" // fails alone, passes after some tests
	NIO       Kind = "nio"        // non-idempotent outcome: passes once, fails when rerun in the same JVM
	NOD       Kind = "nod"        // flips in the same order: not order-dependent
	API       Kind = "api"        // fails when a nondeterministic JDK API is perturbed
	Polluter  Kind = "polluter"   // its run changes shared state (static fields, properties, defaults, files)
)

// Report is one module's report.
type Report struct {
	Version int    `json:"version"`
	Module  string `json:"module"` // the module's path from the project root; "." for the root
	// Name is the module's artifactId, which names the root module for
	// people (see DisplayName).
	Name     string    `json:"name,omitempty"`
	Findings []Finding `json:"findings"`
	Runs     int       `json:"runs"`
	Stats    Stats     `json:"stats"`
	// Gate is the baseline gate's verdict, when verify applied it.
	Gate *Gate `json:"gate,omitempty"`
	// Cut says what a copy made for the pages (Trim) leaves out; never
	// part of report.json.
	Cut []string `json:"-"`
}

// DisplayName is how pages and the console name the report's module: its
// path from the project root, or for the root module (".") its artifactId.
func (r *Report) DisplayName() string {
	if (r.Module == "." || r.Module == "") && r.Name != "" {
		return r.Name
	}
	return r.Module
}

// Gate records what the baseline gate decided about a report's findings.
type Gate struct {
	Enabled bool `json:"enabled"` // the gate may fail the build
	Pass    bool `json:"pass"`    // the build passes it
	// New are findings the baseline does not accept, as "test kind" keys
	// (see Key); Known are accepted ones.
	New   []string `json:"new,omitempty"`
	Known []string `json:"known,omitempty"`
	// PossiblyFixed are accepted tests that were judged and not found flaky.
	PossiblyFixed []string `json:"possiblyFixed,omitempty"`
	// Unjudged are accepted tests this run could not judge, with the reason.
	Unjudged []Unjudged `json:"unjudged,omitempty"`
}

// Unjudged is an accepted flaky test a run could not judge.
type Unjudged struct {
	Test   string `json:"test"`
	Kind   Kind   `json:"kind"`
	Reason string `json:"reason"`
}

// Key identifies a finding within a module's report: its test and kind.
func (f Finding) Key() string { return f.Test + " " + string(f.Kind) }

// IsNew tells whether the gate called the finding new; without a gate
// verdict every finding is new.
func (r *Report) IsNew(f Finding) bool {
	if r.Gate == nil {
		return true
	}
	return slices.Contains(r.Gate.New, f.Key())
}

// Finding is one flaky test and why flaky thinks so.
type Finding struct {
	Test      string     `json:"test"`
	Kind      Kind       `json:"kind"`
	Evidence  []Evidence `json:"evidence"`
	Reproduce string     `json:"reproduce"`
	Message   string     `json:"message,omitempty"` // the test's failure, as it reported it
	// Note is what flaky says about the finding, apart from the test's
	// failure: that the budget ended before its minimisation did, say.
	Note      string     `json:"note,omitempty"`
	Polluters [][]string `json:"polluters,omitempty"`
	Setters   [][]string `json:"setters,omitempty"`
	Cleaners  [][]string `json:"cleaners,omitempty"`
	// FailingOrder and PassingOrder are the shortest orders found (the test
	// last) in which the test fails and passes.
	FailingOrder []string `json:"failingOrder,omitempty"`
	PassingOrder []string `json:"passingOrder,omitempty"`
	// ReproduceRunOrder reruns the failure with `flaky run-order`, as
	// Reproduce does with plain Maven.
	ReproduceRunOrder string `json:"reproduceRunOrder,omitempty"`
	// Strategy and Group name the API perturbation that makes an API
	// finding's test fail (e.g. RANDOM_MAX in group RANDOM).
	Strategy string `json:"strategy,omitempty"`
	Group    string `json:"group,omitempty"`
	// Strategies are all strategies that made an API finding's test fail
	// on their own.
	Strategies []string `json:"strategies,omitempty"`
	// Robust says whether an API finding of a TIME or SLEEP strategy
	// still fails with a tenth of the strategy's parameter; absent when
	// not checked.
	Robust *bool `json:"robust,omitempty"`
	// CallSites are the perturbed call sites of that group the test hit.
	CallSites []CallSite `json:"callSites,omitempty"`
	// Repair is what flaky repair made of the finding.
	Repair *Repair `json:"repair,omitempty"`
	// PollutedState is the shared state behind an OD finding: the roots
	// that differ right before the test between its failing and passing
	// orders, confirmed when setting the root back to its passing value
	// makes the test pass in the failing order. For a polluter finding it is
	// the state the test's run changed (passing: before, failing: after).
	PollutedState []StateItem `json:"pollutedState,omitempty"`
	// ProblemInvariants are an OD finding's problem invariants (Takuan):
	// per program point and variable, the likely invariants true only in
	// the passing run (the test alone; for a brittle, after its setter) and
	// only in the failing one, the largest groups first, at most five.
	ProblemInvariants []ProblemInvariant `json:"problemInvariants,omitempty"`
	// CleanerMethods are the methods that took a static-field problem
	// invariant's variable from its failing-side invariants to its
	// passing-side ones: for a victim run after its polluters, the methods
	// that clean the state; for a brittle run on its own, those that set
	// the state it needs. ReturnValueModifiers are the methods of a
	// return-value problem invariant's class that changed the query's value
	// (those that restore the passing value first). Both are reset
	// candidates for a repair.
	CleanerMethods       []MethodCandidate `json:"cleanerMethods,omitempty"`
	ReturnValueModifiers []MethodCandidate `json:"returnValueModifiers,omitempty"`
}

// MethodCandidate is a method that resets (or changes) a polluted
// variable, and the test during which it did. Class, Name, ParameterTypes,
// Static and Arguments say how to call it: Class.forName(Class) (a binary
// name, pkg.Outer$Inner for a nested class), then its declared method Name
// whose parameters are ParameterTypes (Java type names: int,
// java.lang.String, pkg.Outer$Inner, java.lang.String[]; empty for none),
// static or an instance method (which needs a receiver), with Arguments,
// the arguments of the call that made the change as Java expressions
// (literals, null, enum constants as pkg.Enum.NAME; "" for an object no
// expression writes).
type MethodCandidate struct {
	Method         string   `json:"method"` // pkg.Class.method(types), the program point without :::EXIT
	Class          string   `json:"class,omitempty"`
	Name           string   `json:"name,omitempty"`
	ParameterTypes []string `json:"parameterTypes"`
	Static         bool     `json:"static"`
	Arguments      []string `json:"arguments,omitempty"`
	Test           string   `json:"test"`
	Variable       string   `json:"variable"` // the problem invariant's variable (pkg.Class.field, or pkg.Class.method() for a return value)
	Restores       bool     `json:"restores"` // the change went from the failing-side to the passing-side invariants
}

// ProblemInvariant is one variable's invariants that differ between an OD
// test's passing and failing runs at one program point.
type ProblemInvariant struct {
	Point    string   `json:"point"` // Daikon program point, e.g. pkg.Store.count():::EXIT
	Variable string   `json:"variable"`
	Passing  []string `json:"passing"`
	Failing  []string `json:"failing"`
}

// Repair kinds.
const (
	RepairCleaner  = "cleaner"  // a cleaner's code inlined (iFixFlakies)
	RepairSetter   = "setter"   // a state-setter's code inlined into a brittle's set-up
	RepairReset    = "reset"    // a generated reset of the polluted state (ODRepair)
	RepairTemplate = "template" // a standard fix of an API finding
	RepairLLM      = "llm"      // a patch from a language model, stitched and validated
)

// Repair is a validated source patch for a finding, or why there is none.
type Repair struct {
	Kind       string   `json:"kind,omitempty"`
	Patch      string   `json:"patch,omitempty"` // the unified diff (target/flaky/repair/<test>.diff)
	Files      []string `json:"files,omitempty"` // the files it changes, relative to the module
	Validated  bool     `json:"validated"`
	Evidence   []string `json:"evidence,omitempty"` // the validation runs and their outcomes
	DurationMs int64    `json:"durationMs"`
	// Reason says why the finding has no validated patch.
	Reason string `json:"reason,omitempty"`
}

// StateItem is one differing piece of shared state.
type StateItem struct {
	// Kind is static-field, system-property, jdk-default or file.
	Kind string `json:"kind"`
	// Root is the fully qualified pkg.Class.FIELD, the property name, the
	// default's name (Locale.default, TimeZone.default, ...) or the file's
	// path relative to its directory (${java.io.tmpdir}/... for the JVM's
	// temporary directory).
	Root string `json:"root"`
	// Path leads from the root to the differing value: .events[3],
	// ['BTC'], "" for the root itself.
	Path      string `json:"path"`
	Passing   string `json:"passing"`
	Failing   string `json:"failing"`
	Confirmed bool   `json:"confirmed"`
}

// CallSite is a project line that called a perturbed JDK API.
type CallSite struct {
	Class  string `json:"class"`
	Method string `json:"method"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	API    string `json:"api"` // e.g. java.util.Random#nextInt(int)
	// Flips says perturbing this site (with the others marked so) alone
	// made the test fail: ITERATION_ORDER's bisection over the sites
	// found it, and left out the sites that did not matter.
	Flips bool `json:"flips,omitempty"`
}

// Evidence is one run of an order and the outcome the finding's test had in it.
type Evidence struct {
	Run       string   `json:"run,omitempty"`       // which run: "surefire", "rerun 2", ...
	Order     []string `json:"order,omitempty"`     // the order, when short enough to show
	OrderFile string   `json:"orderFile,omitempty"` // the order file, when the order is long
	Outcome   string   `json:"outcome"`
	Message   string   `json:"message,omitempty"`
	// JVMs says where the run went on in a fresh JVM after one ended early
	// (a test timed out, a crash, System.exit), or in another JVM beside it
	// (the combined run, split over free workers): which tests ran in which
	// JVM.
	JVMs []string `json:"jvms,omitempty"`
}

// Stats summarises the work behind a report.
type Stats struct {
	Tests      int       `json:"tests"`
	Orders     int       `json:"orders"`
	DurationMs int64     `json:"durationMs"`
	Coverage   *Coverage `json:"coverage,omitempty"`
	// Chaos describes the API perturbation analysis, when one ran.
	Chaos *ChaosStats `json:"chaos,omitempty"`
	// Dataflow describes the data-dependency analysis, when one ran.
	Dataflow *DataflowStats `json:"dataflow,omitempty"`
	// Change says what a change's analysis (detect --since) analysed and
	// why, when one ran.
	Change *ChangeStats `json:"change,omitempty"`
	// Merge says what `flaky merge` checked of the shards' parts, when
	// it made the report.
	Merge *MergeStats `json:"merge,omitempty"`
}

// MergeStats says what a merge checked of the shards' parts: each part's
// digest (a part that failed it, or that is of another suite, split,
// seed or build, was refused), and how many of its runs ran again here.
// A part's outcomes that no run here checked are its shard's word.
type MergeStats struct {
	Parts []MergePart `json:"parts"`
	// Trusted says the user vouched for the parts (merge --trust-parts):
	// a clean verdict may then rest on outcomes no run here checked.
	Trusted bool `json:"trusted,omitempty"`
}

// MergePart is one shard's part and what the runs here showed of it.
type MergePart struct {
	Shard  string `json:"shard"`
	File   string `json:"file"`
	Digest string `json:"digest"`
	Commit string `json:"commit,omitempty"`
	// Runs are the runs the part recorded, Rerun those whose order also
	// ran here; Status is "verified" (all of them), "sampled" (some) or
	// "unchecked" (none).
	Runs   int    `json:"runs"`
	Rerun  int    `json:"rerun"`
	Status string `json:"status"`
	// Differences counts the part's outcomes the runs here contradict (a
	// NOD test, or a part that is not what its shard ran); Differ lists
	// the first few.
	Differences int               `json:"differences,omitempty"`
	Differ      []MergeDifference `json:"differ,omitempty"`
}

// MergeDifference is one outcome of a part the runs here contradict.
type MergeDifference struct {
	Test     string `json:"test"`
	Run      string `json:"run"`      // the part's run
	Recorded string `json:"recorded"` // its outcome there
	Here     string `json:"here"`     // what every run here of that prefix gave: pass or fail
}

// The statuses of a MergePart.
const (
	PartVerified  = "verified"
	PartSampled   = "sampled"
	PartUnchecked = "unchecked"
)

// Unchecked returns how many of the parts' runs no run here checked, and
// how many runs they recorded in all.
func (m *MergeStats) Unchecked() (unchecked, runs int) {
	for _, p := range m.Parts {
		unchecked += p.Runs - p.Rerun
		runs += p.Runs
	}
	return unchecked, runs
}

// Unverified reports whether a clean verdict of the merge would rest on
// outcomes no run here checked and the user did not vouch for.
func (m *MergeStats) Unverified() bool {
	if m == nil || m.Trusted {
		return false
	}
	n, _ := m.Unchecked()
	return n > 0
}

// ChangeStats says what a change's analysis analysed: the tests the change
// can affect since its base, each with its reasons, and the pairs of tests
// run adjacently; Summary says it in one line ("12 affected tests of 955,
// 31 pairs, because: TransferTest changed", or "nothing to analyse: only
// documentation changed").
type ChangeStats struct {
	Ref      string         `json:"ref"`
	Base     string         `json:"base"` // the merge base of HEAD and Ref
	Head     string         `json:"head"`
	Files    int            `json:"files"` // files changed since Base
	Affected []AffectedTest `json:"affected"`
	Pairs    int            `json:"pairs"`
	Because  []string       `json:"because,omitempty"`
	Summary  string         `json:"summary"`
	// Known are the tests of the findings that earlier full analyses
	// (the knowledge store) found flaky the same way: still flaky, not
	// made flaky by the change.
	Known []string `json:"known,omitempty"`
	// PossiblyFixed are tests earlier full analyses found flaky that the
	// change's analysis judged and did not find flaky.
	PossiblyFixed []string `json:"possiblyFixed,omitempty"`
	// Settled are known victims the change affects only through other
	// tests' writes and none of whose known polluters it changed: their
	// verdict is the knowledge's (still flaky), they were judged again
	// only for a new polluter, and none was found.
	Settled []string `json:"settled,omitempty"`
}

// AffectedTest is a test a change can affect and why; New says earlier
// analyses did not know it.
type AffectedTest struct {
	Test    string   `json:"test"`
	Reasons []string `json:"reasons"`
	New     bool     `json:"new,omitempty"`
}

// DataflowStats says what the data-dependency analysis (PraDeT)
// found and ran: the dependencies of its reference runs by status (manifest
// ones became findings), and its JVM runs.
type DataflowStats struct {
	Dependencies     int              `json:"dependencies"`
	Manifest         int              `json:"manifest"`
	TestedBenign     int              `json:"testedBenign"`
	Untested         int              `json:"untested"`
	Benign           []DataflowDepend `json:"benign,omitempty"`
	UntestedDeps     []DataflowDepend `json:"untestedDependencies,omitempty"`
	Runs             int              `json:"runs"`
	ReferenceRuns    int              `json:"referenceRuns"`
	RefinementRuns   int              `json:"refinementRuns"`
	ConfirmationRuns int              `json:"confirmationRuns"`
	DurationMs       int64            `json:"durationMs"`
}

// DataflowDepend is one data dependency: Reader read Roots that Writer
// wrote last in a reference run.
type DataflowDepend struct {
	Reader string   `json:"reader"`
	Writer string   `json:"writer"`
	Roots  []string `json:"roots"`
}

// ChaosNOD is a test flaky without perturbation, with the runs that got to
// it and those it failed, unperturbed and perturbed.
type ChaosNOD struct {
	Test              string `json:"test"`
	Runs              int    `json:"runs"`
	Failures          int    `json:"failures"`
	PerturbedRuns     int    `json:"perturbedRuns"`
	PerturbedFailures int    `json:"perturbedFailures"`
}

// ChaosStats says what the API perturbation analysis ran.
type ChaosStats struct {
	Mode       string   `json:"mode"`       // combined or single
	Strategies []string `json:"strategies"` // the strategies that ran
	Runs       int      `json:"runs"`       // runs of an order it made (a run resumed or split over several JVMs counts once)
	// JVMs is how many test JVMs it started (resumptions, handoffs and
	// JVMs started ahead of their runs included), PeakJVMs the most that
	// ran at once: neither grows with other processes' load.
	JVMs            int   `json:"jvms,omitempty"`
	PeakJVMs        int   `json:"peakJvms,omitempty"`
	BudgetMs        int64 `json:"budgetMs"`
	BudgetExhausted bool  `json:"budgetExhausted"`
	// FailUnperturbed failed unperturbed (in the unperturbed run or a
	// control run): never reported as api.
	FailUnperturbed []string `json:"failUnperturbed,omitempty"`
	// Failing are the tests of FailUnperturbed that no unperturbed run of
	// the same order passed, with why ("p.T#a: fails in every unperturbed
	// run (6 of 6)"): broken or order-dependent, not flaky without
	// perturbation.
	Failing []string `json:"failing,omitempty"`
	// Interrupted names the phase the analysis was interrupted in (Ctrl-C):
	// the report holds what was judged before.
	Interrupted string `json:"interrupted,omitempty"`
	// Suspected failed perturbed but could not be judged in time ("test
	// under STRATEGY: why"): not findings.
	Suspected []string `json:"suspected,omitempty"`
	// NOD are the tests of FailUnperturbed that passed and failed in
	// unperturbed runs of one order, with their failure rates: flaky
	// without any perturbation, reported as nod findings.
	NOD []ChaosNOD `json:"nod,omitempty"`
	// Unconfirmed failed perturbed; their unperturbed outcome is unknown.
	Unconfirmed []string `json:"unconfirmed,omitempty"`
	DurationMs  int64    `json:"durationMs"`
	// BudgetWhy says how a budget sized from the unperturbed run came about.
	BudgetWhy string `json:"budgetWhy,omitempty"`
	// Tests is how many tests the unperturbed run ran (each invocation of
	// a parameterized test counts).
	Tests int `json:"tests,omitempty"`
	// PerStrategy and PerGroup count, per perturbed run and per group of
	// strategies, the tests run and not run, failures and findings.
	PerStrategy []StrategyStats `json:"perStrategy,omitempty"`
	PerGroup    []StrategyStats `json:"perGroup,omitempty"`
	// Skipped are strategies the budget left out entirely.
	Skipped []string `json:"skipped,omitempty"`
	// Machinery are failures left out because flaky's perturbation
	// machinery or the test framework threw them, not the test.
	Machinery []string `json:"machinery,omitempty"`
}

// StrategyStats is what one strategy (or "combined", or a group) did.
type StrategyStats struct {
	Name     string `json:"name"`            // a strategy id, "combined", or a group
	Group    string `json:"group,omitempty"` // a strategy's group
	Tests    int    `json:"tests"`           // tests run (distinct tests for a group)
	NotRun   int    `json:"notRun"`          // tests never run under it
	Failures int    `json:"failures"`        // tests that failed (distinct for a group)
	Findings int    `json:"findings"`        // confirmed findings: failed perturbed, passed unperturbed
	JVMs     int    `json:"jvms,omitempty"`  // JVMs its run took (more than one: resumed after early ends, or split over free workers)
	// DurationMs is a strategy's (or the combined) run's wall time, from
	// its JVM's start to its last JVM's end.
	DurationMs int64 `json:"durationMs,omitempty"`
}

// Coverage says how much of the suite's order space the order-dependence
// analysis explored, and with which seed.
type Coverage struct {
	Seed            int64          `json:"seed"`
	Orders          int            `json:"orders"`               // orders it ran, one JVM each
	Generators      map[string]int `json:"generators,omitempty"` // orders run per generator or step
	Rounds          int            `json:"rounds"`               // exploration orders run
	RoundsPlanned   int            `json:"roundsPlanned"`        // exploration orders planned
	Pairs           int            `json:"pairs"`                // ordered pairs of distinct tests
	PairsCovered    int            `json:"pairsCovered"`         // pairs run right after each other in the original or an exploration order, not confirmation's or minimisation's (a change's: the first before the second with no writer of their shared state between)
	TestsAlone      int            `json:"testsAlone"`           // tests run alone
	BudgetMs        int64          `json:"budgetMs"`
	BudgetWhy       string         `json:"budgetWhy,omitempty"` // how the default budget was chosen
	BudgetExhausted bool           `json:"budgetExhausted"`
	Unconfirmed     []string       `json:"unconfirmed,omitempty"` // flipped, not confirmed within the budget
	// Unminimised are confirmed OD findings whose minimisation the budget
	// cut: their polluters, state-setters or cleaners may be missing.
	Unminimised []string `json:"unminimised,omitempty"`
	DurationMs  int64    `json:"durationMs"`
	// Serial are tests that clashed with another JVM over a resource (a
	// port, a file lock) and from then on ran alone.
	Serial []string `json:"serial,omitempty"`
	// NeverRan are tests that crashed, timed out or got no result in every
	// run of the analysis (a System.exit in their class fixtures, a JVM
	// that ended before them): nothing was judged of them, and the
	// analysis is no clean verdict for them.
	NeverRan []string `json:"neverRan,omitempty"`
	// Workers is how many JVMs ran at once (WorkersWhy: how the analysis
	// sized them); JVMMs and JVMCPUMs sum the JVMs' wall and CPU time;
	// ParallelEfficiency is JVMMs over Workers times DurationMs.
	Workers int `json:"workers,omitempty"`
	// JVMs is how many test JVMs the analysis started, PeakJVMs the most
	// that ran at once (see ChaosStats.JVMs).
	JVMs               int     `json:"jvms,omitempty"`
	PeakJVMs           int     `json:"peakJvms,omitempty"`
	WorkersWhy         string  `json:"workersWhy,omitempty"`
	JVMMs              int64   `json:"jvmMs,omitempty"`
	JVMCPUMs           int64   `json:"jvmCpuMs,omitempty"`
	ParallelEfficiency float64 `json:"parallelEfficiency,omitempty"`
	// WarmOrders are the exploration orders that ran in warm JVMs (detect
	// --warm), WarmJVMs those JVMs.
	WarmOrders int `json:"warmOrders,omitempty"`
	WarmJVMs   int `json:"warmJvms,omitempty"`
}

// Sort orders findings by kind, then test id, so reports diff cleanly.
func (r *Report) Sort() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Test < b.Test
	})
}

// Write stores the report as indented JSON at path, atomically.
func Write(path string, r *Report) error {
	r.Version = Version
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding report: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := safewrite.Atomic(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// MaxReportSize bounds the report.json Read accepts: far beyond what the
// analyses write, far below what would exhaust memory.
const MaxReportSize = 128 << 20

// Read loads a report and refuses versions newer than this package knows.
func Read(path string) (*Report, error) {
	data, err := saferead.ReadFile(path, MaxReportSize, "a report")
	if err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("parsing report %s: %w", path, err)
	}
	if r.Version < 1 || r.Version > Version {
		return nil, fmt.Errorf("report %s has version %d; this flaky reads version %d", path, r.Version, Version)
	}
	return &r, nil
}

// MaxShownOrder is the longest order evidence shows inline; longer ones go
// to an order file.
const MaxShownOrder = 12

// SetOrder records the order of an evidence run: inline when short, else as
// an order file written to orderDir.
func (e *Evidence) SetOrder(order []string, orderDir string) error {
	if len(order) <= MaxShownOrder {
		e.Order = order
		return nil
	}
	file, err := surefire.WriteOrderFile(orderDir, order)
	e.OrderFile = file
	return err
}
