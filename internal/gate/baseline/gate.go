// Package baseline compares a run's flaky findings with the project's committed
// baseline of accepted flaky tests (.flaky/baseline.json) and decides
// whether the build passes.
package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/report"
)

// BaselineVersion is the baseline format version this package writes.
const BaselineVersion = 1

// BaselinePath is where a project keeps its baseline, relative to its root.
const BaselinePath = ".flaky/baseline.json"

// Baseline lists the flaky tests a project has accepted.
type Baseline struct {
	Version  int        `json:"version"`
	Accepted []Accepted `json:"accepted"`
}

// Accepted is one accepted flaky test.
type Accepted struct {
	Test   string      `json:"test"`
	Kind   report.Kind `json:"kind"`
	Module string      `json:"module,omitempty"`
}

// MaxBaselineSize bounds the baseline LoadBaseline reads: some 100,000
// accepted tests.
const MaxBaselineSize = 32 << 20

// LoadBaseline reads root/.flaky/baseline.json; a missing file is an empty baseline.
func LoadBaseline(root string) (*Baseline, error) {
	path := filepath.Join(root, BaselinePath)
	data, err := saferead.ReadFile(path, MaxBaselineSize, "a baseline")
	if errors.Is(err, fs.ErrNotExist) {
		return &Baseline{Version: BaselineVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading baseline: %w", err)
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("parsing baseline %s: %w", path, err)
	}
	if b.Version != BaselineVersion {
		return nil, fmt.Errorf("baseline %s has version %d; this flaky reads version %d", path, b.Version, BaselineVersion)
	}
	return &b, nil
}

// Save writes the baseline to root/.flaky/baseline.json atomically, sorted.
func (b *Baseline) Save(root string) error {
	b.Version = BaselineVersion
	sort.Slice(b.Accepted, func(i, j int) bool {
		if b.Accepted[i].Module != b.Accepted[j].Module {
			return b.Accepted[i].Module < b.Accepted[j].Module
		}
		return b.Accepted[i].Test < b.Accepted[j].Test
	})
	if b.Accepted == nil {
		b.Accepted = []Accepted{}
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding baseline: %w", err)
	}
	path := filepath.Join(root, BaselinePath)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing baseline: %w", err)
	}
	if err := safewrite.Atomic(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing baseline: %w", err)
	}
	return nil
}

// Accept adds the findings of a module's report that the baseline lacks and
// returns how many it added.
func (b *Baseline) Accept(r *report.Report) int {
	added := 0
	for _, f := range r.Findings {
		if b.has(r.Module, f.Test) {
			continue
		}
		b.Accepted = append(b.Accepted, Accepted{Test: f.Test, Kind: f.Kind, Module: r.Module})
		added++
	}
	return added
}

// Remove takes the accepted entries of test out of the baseline (only the
// one of module when module is not "") and returns those it removed.
func (b *Baseline) Remove(test, module string) []Accepted {
	var removed []Accepted
	kept := b.Accepted[:0]
	for _, a := range b.Accepted {
		if a.Test == test && (module == "" || a.Module == module) {
			removed = append(removed, a)
			continue
		}
		kept = append(kept, a)
	}
	b.Accepted = kept
	return removed
}

func (b *Baseline) has(module, test string) bool {
	for _, a := range b.Accepted {
		if a.Test == test && (a.Module == "" || a.Module == module) {
			return true
		}
	}
	return false
}

// Verdict is the gate's decision for one module.
type Verdict struct {
	New   []report.Finding // flaky tests the baseline does not accept
	Known []report.Finding // flaky tests the baseline accepts
	// PossiblyFixed are accepted tests of this module that were not found
	// flaky by analyses that ran to completion and cleared them.
	PossiblyFixed []Accepted
	// Unjudged are accepted tests of this module that were not found flaky
	// but that this run could not clear (the analysis was cut by its budget,
	// did not run, or left the test unconfirmed), with the reason.
	Unjudged []Unjudged
}

// Unjudged is an accepted test the run could not clear, and why.
type Unjudged struct {
	Accepted
	Reason string
}

// Pass reports whether the build may pass: no new flaky test.
func (v Verdict) Pass() bool { return len(v.New) == 0 }

// Check compares a module's report with the baseline. For an accepted test
// that was not found flaky, clear says why the run cannot vouch for it
// ("" when it can: the test ran and the analyses that find its kind ran to
// completion without leaving it unconfirmed); only those it can vouch for
// are called possibly fixed.
func Check(b *Baseline, r *report.Report, clear func(a Accepted) (reason string)) Verdict {
	var v Verdict
	found := map[string]bool{}
	for _, f := range r.Findings {
		found[f.Test] = true
		if b.has(r.Module, f.Test) {
			v.Known = append(v.Known, f)
		} else {
			v.New = append(v.New, f)
		}
	}
	for _, a := range b.Accepted {
		if (a.Module != "" && a.Module != r.Module) || found[a.Test] {
			continue
		}
		if reason := clear(a); reason == "" {
			v.PossiblyFixed = append(v.PossiblyFixed, a)
		} else {
			v.Unjudged = append(v.Unjudged, Unjudged{Accepted: a, Reason: reason})
		}
	}
	return v
}

// Record is the verdict in the report's form; enabled says whether the gate
// may fail the build.
func (v Verdict) Record(enabled bool) *report.Gate {
	g := &report.Gate{Enabled: enabled, Pass: v.Pass()}
	for _, f := range v.New {
		g.New = append(g.New, f.Key())
	}
	for _, f := range v.Known {
		g.Known = append(g.Known, f.Key())
	}
	for _, a := range v.PossiblyFixed {
		g.PossiblyFixed = append(g.PossiblyFixed, a.Test)
	}
	for _, u := range v.Unjudged {
		g.Unjudged = append(g.Unjudged, report.Unjudged{Test: u.Test, Kind: u.Kind, Reason: u.Reason})
	}
	return g
}
