package knowledge

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// Run is what one full analysis of a module learned, for Record.
type Run struct {
	Module string    // the module's path from the project root
	Commit string    // see Commit
	Time   time.Time // when the analysis ended
	// Classes are the module's class hashes (see HashClasses).
	Classes map[string]string
	// Tests is the suite the analysis ran, in its original order.
	Tests []string
	// Findings are the findings of its report (those of tests not in Tests
	// are left out); Unconfirmed the tests whose outcome changed without a
	// confirmation (report Coverage.Unconfirmed).
	Findings    []report.Finding
	Unconfirmed []string
	// References are the data-dependency reference runs (made with the
	// agent's dataflow option); Original the caller's own runs of the
	// suite (verify: the Surefire fork and its reruns).
	References []*launcher.Result
	Original   []*launcher.Result
}

// Suspect marks tests whose outcome flipped in a change's analysis
// without a confirmation as suspected, so that the next full analysis
// knows them; a test the store has no record of gets one that knows
// nothing else (not Traced). It reports whether anything changed.
func (s *Store) Suspect(tests []string, commit string) bool {
	changed := false
	for _, id := range tests {
		t := s.Tests[id]
		if t == nil {
			t = &Test{LastCommit: commit}
			s.Tests[id] = t
		}
		if !t.Suspected {
			t.Suspected, changed = true, true
		}
	}
	return changed
}

// Record returns the store old (nil: none) updated with run: every test of
// the run gets a new record (duration, reads, writes, classes, findings,
// suspicion), keeping old's outcome counts, to which the run's are added,
// and its last durations; tests old knows that the run did not run (another
// Surefire fork's, or tests since deleted) keep their records. The
// module-level fields are the run's. A store of another module is ignored.
func Record(old *Store, run Run) *Store {
	s := &Store{Format: Format, Module: run.Module, Commit: run.Commit, Time: run.Time, Classes: run.Classes, Tests: map[string]*Test{}}
	if s.Classes == nil {
		s.Classes = map[string]string{}
	}
	if old != nil && old.Module == run.Module {
		for id, t := range old.Tests {
			s.Tests[id] = t
		}
	}
	for _, id := range run.Tests {
		t := &Test{LastCommit: run.Commit}
		if prev := s.Tests[id]; prev != nil {
			t.Durations = slices.Clone(prev.Durations)
			for k, o := range prev.Outcomes {
				t.add(k, o)
			}
		}
		if ms, ok := duration(id, run.Original, run.References); ok {
			t.DurationMs = ms
			t.Durations = append(t.Durations, ms)
			t.Durations = t.Durations[max(0, len(t.Durations)-MaxDurations):]
		} else if prev := s.Tests[id]; prev != nil {
			t.DurationMs = prev.DurationMs
		}
		t.MedianMs = median(t.Durations)
		t.add(RunOriginal, outcomes(id, run.Original))
		t.add(RunReference, outcomes(id, run.References))
		t.flow(id, run.References)
		for _, f := range run.Findings {
			if f.Test != id {
				continue
			}
			t.Findings = append(t.Findings, Finding{Kind: f.Kind, Polluters: f.Polluters, Setters: f.Setters, Cleaners: f.Cleaners})
			var o Outcomes
			for _, e := range f.Evidence {
				o.count(launcher.ParseOutcome(e.Outcome))
			}
			t.add(RunOrders, o)
		}
		t.Suspected = len(t.Findings) == 0 && slices.Contains(run.Unconfirmed, id)
		s.Tests[id] = t
	}
	return s
}

// add adds o to the test's counts of kind (none when o is empty).
func (t *Test) add(kind string, o Outcomes) {
	if o == (Outcomes{}) {
		return
	}
	if t.Outcomes == nil {
		t.Outcomes = map[string]Outcomes{}
	}
	c := t.Outcomes[kind]
	c.Pass += o.Pass
	c.Fail += o.Fail
	t.Outcomes[kind] = c
}

// count counts one outcome: a pass or a failure (others are neither).
func (o *Outcomes) count(out launcher.Outcome) {
	switch {
	case out == launcher.Pass:
		o.Pass++
	case out.Failed():
		o.Fail++
	}
}

// outcomes counts test id's passes and failures in runs.
func outcomes(id string, runs []*launcher.Result) Outcomes {
	var o Outcomes
	for _, r := range runs {
		for _, tr := range r.Tests {
			if tr.Test == id {
				o.count(tr.Outcome)
			}
		}
	}
	return o
}

// duration is test id's duration in the first of runs, then of more, that
// ran it to an end (passed or failed).
func duration(id string, runs, more []*launcher.Result) (int64, bool) {
	for _, r := range append(slices.Clone(runs), more...) {
		for _, tr := range r.Tests {
			if tr.Test == id && (tr.Outcome == launcher.Pass || tr.Outcome.Failed()) {
				return tr.TimeMs, true
			}
		}
	}
	return 0, false
}

// median is the median of ms (the lower middle one of an even count); 0
// for none.
func median(ms []int64) int64 {
	if len(ms) == 0 {
		return 0
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// flow sets the test's reads, writes, classes and methods from its dataflow
// messages in refs (their union); it leaves them nil when refs recorded
// none for it.
func (t *Test) flow(id string, refs []*launcher.Result) {
	reads, writes, classes, methods := map[Root]bool{}, map[Root]bool{}, map[string]bool{}, map[string]bool{}
	seen := false
	for _, r := range refs {
		for _, d := range r.Dataflow {
			if d.Test != id {
				continue
			}
			seen = true
			for _, rd := range d.Reads {
				reads[Root{rd.Root, rd.Kind}] = true
			}
			touched := d.Touched
			if d.Exposed != nil {
				touched = d.Exposed
			}
			for _, rt := range touched {
				reads[Root{rt.Root, rt.Kind}] = true
			}
			for _, w := range d.Writes {
				writes[Root{w.Root, w.Kind}] = true
			}
			for _, c := range d.Classes {
				classes[c] = true
			}
			for _, m := range d.Methods {
				methods[m] = true
			}
		}
	}
	if !seen {
		return
	}
	t.Traced = true
	t.Reads, t.Writes = sortedRoots(reads), sortedRoots(writes)
	for c := range classes {
		t.Classes = append(t.Classes, c)
	}
	slices.Sort(t.Classes)
	for m := range methods {
		t.Methods = append(t.Methods, m)
	}
	slices.Sort(t.Methods)
}

// sortedRoots returns the roots of set by name and kind; nil for none.
func sortedRoots(set map[Root]bool) []Root {
	var out []Root
	for r := range set {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Root) int { return cmp.Or(cmp.Compare(a.Root, b.Root), cmp.Compare(a.Kind, b.Kind)) })
	return out
}

// HashClasses returns the sha256 (hex) of every .class file under dirs,
// by binary name (pkg.Outer$Inner); a missing directory holds none.
func HashClasses(dirs ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if path == dir && os.IsNotExist(err) {
					return fs.SkipDir
				}
				return err
			}
			if e.IsDir() || !strings.HasSuffix(path, ".class") {
				return nil
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			out[strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".class"), "/", ".")] = hex.EncodeToString(sum[:])
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("hash classes: %w", err)
		}
	}
	return out, nil
}

// Commit returns the commit checked out in dir (git rev-parse HEAD), or ""
// when dir is in no git repository or git is missing.
func Commit(ctx context.Context, dir string) string {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
