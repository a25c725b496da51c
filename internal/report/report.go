// Package report defines flaky's versioned report (target/flaky/report.json)
// and reads and writes it. Fields are only ever added, never renamed.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/flakyhq/flaky/surefire"
	"github.com/google/renameio/v2"
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
)

// Report is one module's report.
type Report struct {
	Version  int       `json:"version"`
	Module   string    `json:"module"`
	Findings []Finding `json:"findings"`
	Runs     int       `json:"runs"`
	Stats    Stats     `json:"stats"`
}

// Finding is one flaky test and why flaky thinks so.
type Finding struct {
	Test      string     `json:"test"`
	Kind      Kind       `json:"kind"`
	Evidence  []Evidence `json:"evidence"`
	Reproduce string     `json:"reproduce"`
	Message   string     `json:"message,omitempty"`
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
	// CallSites are the perturbed call sites of that group the test hit.
	CallSites []CallSite `json:"callSites,omitempty"`
}

// CallSite is a project line that called a perturbed JDK API.
type CallSite struct {
	Class  string `json:"class"`
	Method string `json:"method"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	API    string `json:"api"` // e.g. java.util.Random#nextInt(int)
}

// Evidence is one run of an order and the outcome the finding's test had in it.
type Evidence struct {
	Run       string   `json:"run,omitempty"`       // which run: "surefire", "rerun 2", ...
	Order     []string `json:"order,omitempty"`     // the order, when short enough to show
	OrderFile string   `json:"orderFile,omitempty"` // the order file, when the order is long
	Outcome   string   `json:"outcome"`
	Message   string   `json:"message,omitempty"`
}

// Stats summarises the work behind a report.
type Stats struct {
	Tests      int       `json:"tests"`
	Orders     int       `json:"orders"`
	DurationMs int64     `json:"durationMs"`
	Coverage   *Coverage `json:"coverage,omitempty"`
	// Chaos describes the API perturbation analysis, when one ran.
	Chaos *ChaosStats `json:"chaos,omitempty"`
}

// ChaosStats says what the API perturbation analysis ran.
type ChaosStats struct {
	Mode            string   `json:"mode"`       // combined or single
	Strategies      []string `json:"strategies"` // the strategies that ran
	Runs            int      `json:"runs"`       // JVMs it started
	BudgetMs        int64    `json:"budgetMs"`
	BudgetExhausted bool     `json:"budgetExhausted"`
	// FailUnperturbed failed perturbed but also unperturbed: not reported as api.
	FailUnperturbed []string `json:"failUnperturbed,omitempty"`
	// Unconfirmed failed perturbed; their unperturbed outcome is unknown.
	Unconfirmed []string `json:"unconfirmed,omitempty"`
	DurationMs  int64    `json:"durationMs"`
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
	PairsCovered    int            `json:"pairsCovered"`         // pairs run right after each other
	TestsAlone      int            `json:"testsAlone"`           // tests run alone
	BudgetMs        int64          `json:"budgetMs"`
	BudgetWhy       string         `json:"budgetWhy,omitempty"` // how the default budget was chosen
	BudgetExhausted bool           `json:"budgetExhausted"`
	Unconfirmed     []string       `json:"unconfirmed,omitempty"` // flipped, not confirmed within the budget
	DurationMs      int64          `json:"durationMs"`
	// Serial are tests that clashed with another JVM over a resource (a
	// port, a file lock) and from then on ran alone.
	Serial []string `json:"serial,omitempty"`
	// Workers is how many JVMs ran at once (WorkersWhy: how the analysis
	// sized them); JVMMs and JVMCPUMs sum the JVMs' wall and CPU time;
	// ParallelEfficiency is JVMMs over Workers times DurationMs.
	Workers            int     `json:"workers,omitempty"`
	WorkersWhy         string  `json:"workersWhy,omitempty"`
	JVMMs              int64   `json:"jvmMs,omitempty"`
	JVMCPUMs           int64   `json:"jvmCpuMs,omitempty"`
	ParallelEfficiency float64 `json:"parallelEfficiency,omitempty"`
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
	if err := renameio.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// Read loads a report and refuses versions newer than this package knows.
func Read(path string) (*Report, error) {
	data, err := os.ReadFile(path)
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
