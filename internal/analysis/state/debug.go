package state

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// Runner runs orders in fresh JVMs with per-run agent options
// (*launcher.Launcher).
type Runner interface {
	RunJobs(ctx context.Context, jobs []launcher.Job) ([]*launcher.Result, error)
}

// Target is one OD finding to debug: a victim with its failing order (a
// polluter group, then the test), a brittle with its passing order (a
// setter group, then the test), or an NIO test with its failing order
// [t, t] (its passing state is the one its first run started with).
type Target struct {
	Test         string
	Kind         report.Kind
	FailingOrder []string
	PassingOrder []string
	// Hint are roots the test reads and its polluters (setters) write,
	// by a dataflow record: differing roots among them are tried first,
	// and the others only when none of them is confirmed.
	Hint []string
}

// Debugger names and confirms the polluted state of OD findings.
type Debugger struct {
	Runner Runner
	// TmpDir holds the restore files; it must exist.
	TmpDir string
	// Base are the state options of every run (class selection, bounds);
	// the debugger adds its capture points and restore files.
	Base agent.StateOptions
	// MaxRoots bounds the differing roots tried one by one; 0 means 40.
	MaxRoots int
}

// Debugged is what Debug found for one target.
type Debugged struct {
	Target Target
	Items  []report.StateItem
	// Runs counts the JVMs started for the target; Duration is the time from
	// the start of Debug until the target's result was known.
	Runs     int
	Duration time.Duration
	// Cut names roots whose capture reached a bound (so a difference
	// beyond it may be missed).
	Cut []string
	// Err says why the target could not be debugged (its other fields are then empty).
	Err error

	failing, passing Snapshot
	// passOrder and passIndex are the order and position of the passing capture.
	passOrder []string
	passIndex int
	diff      []Key
	confirmed []Key
}

// maxChanges bounds the paths reported per root.
const maxChanges = 3

// maxUnconfirmed bounds the roots reported when none is confirmed.
const maxUnconfirmed = 10

// Debug captures the state right before each target's test in its failing
// and its passing order, diffs it root by root, and confirms each differing
// root by restoring its passing value right before the test in the failing
// order. It reports the smallest confirmed set, or the differing roots
// unconfirmed when no set makes the test pass. The targets' runs share the
// launcher's workers: all captures at once, then all single-root restores.
// An error that concerns one target is its Debugged.Err; the error returned
// ends them all (a cancelled context, a launcher failure).
func (d *Debugger) Debug(ctx context.Context, targets []Target) ([]*Debugged, error) {
	start := time.Now()
	outs := make([]*Debugged, len(targets))
	for i, t := range targets {
		outs[i] = &Debugged{Target: t}
	}
	if err := d.capture(ctx, outs); err != nil {
		return nil, err
	}
	var hinted, trials []trial
	for _, o := range outs {
		if o.Err != nil {
			continue
		}
		o.diff = differing(o.failing, o.passing)
		for _, k := range o.diff {
			if o.passing[k].Cut+o.failing[k].Cut != "" {
				o.Cut = append(o.Cut, k.Root)
			}
		}
		for _, k := range o.diff[:min(len(o.diff), d.maxRoots())] {
			if slices.Contains(o.Target.Hint, k.Root) {
				hinted = append(hinted, trial{of: o, keys: []Key{k}})
			} else {
				trials = append(trials, trial{of: o, keys: []Key{k}})
			}
		}
	}
	// The hinted roots first; a target with one of them confirmed needs
	// no other trial.
	if err := d.confirmSingles(ctx, hinted); err != nil {
		return nil, err
	}
	trials = slices.DeleteFunc(trials, func(tr trial) bool { return len(tr.of.confirmed) > 0 })
	if err := d.confirmSingles(ctx, trials); err != nil {
		return nil, err
	}
	trials = append(hinted, trials...)
	// A passing value that cannot be rebuilt (a lambda, a proxy, a part cut
	// at the bounds) is confirmed the other way round: its failing value set
	// right before the test in the passing order makes the test fail.
	var reverse []trial
	for _, tr := range trials {
		if !slices.Contains(tr.of.confirmed, tr.keys[0]) && !rebuildable(tr.of.passing[tr.keys[0]]) && rebuildable(tr.of.failing[tr.keys[0]]) {
			reverse = append(reverse, trial{of: tr.of, keys: tr.keys, reverse: true})
		}
	}
	if err := d.confirmSingles(ctx, reverse); err != nil {
		return nil, err
	}
	for _, o := range outs {
		if o.Err != nil {
			continue
		}
		if len(o.confirmed) == 0 && len(o.diff) > 1 {
			var err error
			if o.confirmed, err = d.confirmTogether(ctx, o); err != nil {
				return nil, err
			}
		}
		slices.SortFunc(o.confirmed, func(a, b Key) int { return slices.Index(o.diff, a) - slices.Index(o.diff, b) })
		o.report()
		o.Duration = time.Since(start)
	}
	return outs, nil
}

// confirmSingles runs single-root trials and records the roots they confirm.
func (d *Debugger) confirmSingles(ctx context.Context, trials []trial) error {
	ok, err := d.tryRestores(ctx, trials)
	if err != nil {
		return err
	}
	for i, tr := range trials {
		if ok[i] {
			tr.of.confirmed = append(tr.of.confirmed, tr.keys[0])
		}
	}
	return nil
}

// rebuildable reports whether the agent can rebuild a root's value exactly:
// its tree has no skipped, opaque or cut part.
func rebuildable(r Root) bool {
	return r.Initial || !bytes.Contains(r.Tree, []byte(`"@skip"`)) && !bytes.Contains(r.Tree, []byte(`"@opaque"`)) && !bytes.Contains(r.Tree, []byte(`"@cut"`))
}

func (d *Debugger) maxRoots() int {
	if d.MaxRoots <= 0 {
		return 40
	}
	return d.MaxRoots
}

// report fills Items: the confirmed roots' differing paths, or, when none
// is confirmed, those of the first differing roots.
func (o *Debugged) report() {
	shown := o.confirmed
	if len(shown) == 0 {
		shown = o.diff[:min(len(o.diff), maxUnconfirmed)]
	}
	for _, k := range shown {
		pv, _ := o.passing.value(k)
		fv, _ := o.failing.value(k)
		changes, _ := Diff(pv, fv, maxChanges)
		for _, c := range changes {
			o.Items = append(o.Items, report.StateItem{
				Kind: k.Kind, Root: k.Root, Path: c.Path, Passing: c.A, Failing: c.B, Confirmed: len(o.confirmed) > 0,
			})
		}
	}
}

// capture runs each target's failing and passing order with a capture
// right before the test. A victim's passing state is the state before its
// second run in [t, t]; when that run fails (the victim is non-idempotent
// too) it is the state of its first run, where each class's roots have
// their values right after its static initialiser.
func (d *Debugger) capture(ctx context.Context, outs []*Debugged) error {
	var jobs []launcher.Job
	for _, o := range outs {
		t := o.Target
		passOrder, passPoints := []string{t.Test, t.Test}, []int{0, 1}
		if t.Kind == report.ODBrittle {
			passOrder, passPoints = t.PassingOrder, []int{len(t.PassingOrder) - 1}
		}
		failing, passing := d.Base, d.Base
		failing.Before, passing.Before = []int{len(t.FailingOrder) - 1}, passPoints
		jobs = append(jobs,
			launcher.Job{Order: t.FailingOrder, RunOptions: launcher.RunOptions{AgentOptions: agent.Options{State: failing}}},
			launcher.Job{Order: passOrder, RunOptions: launcher.RunOptions{AgentOptions: agent.Options{State: passing}}})
	}
	res, err := d.Runner.RunJobs(ctx, jobs)
	if err != nil {
		return fmt.Errorf("capture state: %w", err)
	}
	for i, o := range outs {
		t, fr, pr := o.Target, res[2*i], res[2*i+1]
		o.Runs += 2
		var ok bool
		if o.failing, ok = At(fr.States, Before(len(t.FailingOrder)-1)); !ok {
			o.Err = fmt.Errorf("the failing order's JVM sent no state before the test%s", noteTail(fr))
			continue
		}
		p := Before(len(pr.Order) - 1)
		if t.Kind != report.ODBrittle && failedAt(pr, 1, t.Test) {
			p = Before(0)
		}
		o.passOrder, o.passIndex = pr.Order, p.Index
		if o.passing, ok = At(pr.States, p); !ok {
			o.Err = fmt.Errorf("the passing order's JVM sent no state before the test%s", noteTail(pr))
		}
	}
	return nil
}

func noteTail(r *launcher.Result) string {
	if len(r.Notes) == 0 {
		return ""
	}
	return " (" + strings.Join(r.Notes, "; ") + ")"
}

// differing returns the roots whose values differ between a and b (both
// known), sorted: static fields first, then properties, defaults and files.
func differing(a, b Snapshot) []Key {
	keys := map[Key]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []Key
	for k := range keys {
		av, aok := a.value(k)
		bv, bok := b.value(k)
		if aok && bok && !same(av, bv) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return kindRank(out[i].Kind) < kindRank(out[j].Kind)
		}
		return out[i].Root < out[j].Root
	})
	return out
}

func kindRank(kind string) int {
	switch kind {
	case StaticField:
		return 0
	case SystemProperty:
		return 1
	case JDKDefault:
		return 2
	}
	return 3
}

// confirmTogether restores all of a target's tried roots at once; when
// that makes the test pass, it drops roots one at a time while the test
// still passes, and returns what is left.
func (d *Debugger) confirmTogether(ctx context.Context, o *Debugged) ([]Key, error) {
	all := append([]Key(nil), o.diff[:min(len(o.diff), d.maxRoots())]...)
	passed, err := d.tryRestores(ctx, []trial{{of: o, keys: all}})
	if err != nil || !passed[0] {
		return nil, err
	}
	for i := 0; i < len(all) && len(all) > 1; {
		without := append(append([]Key(nil), all[:i]...), all[i+1:]...)
		passed, err := d.tryRestores(ctx, []trial{{of: o, keys: without}})
		if err != nil {
			return nil, err
		}
		if passed[0] {
			all = without
		} else {
			i++
		}
	}
	return all, nil
}

// trial is one run of a target's failing order with keys set to their
// passing values, or, reversed, of its passing order with keys set to their
// failing values.
type trial struct {
	of      *Debugged
	keys    []Key
	reverse bool
}

// restoreFile is the agent's state.restore file.
type restoreFile struct {
	Index int            `json:"index"`
	Roots []restoreEntry `json:"roots"`
}

type restoreEntry struct {
	Kind    string          `json:"kind"`
	Root    string          `json:"root"`
	Tree    json.RawMessage `json:"tree,omitempty"`
	Initial bool            `json:"initial,omitempty"`
}

// tryRestores runs each trial once, setting its roots right before the
// test, and reports for each whether it confirmed them: the test passed in
// the failing order, or, reversed, failed in the passing order.
func (d *Debugger) tryRestores(ctx context.Context, trials []trial) ([]bool, error) {
	if len(trials) == 0 {
		return nil, nil
	}
	jobs := make([]launcher.Job, len(trials))
	for i, tr := range trials {
		order, index, values := tr.of.Target.FailingOrder, len(tr.of.Target.FailingOrder)-1, tr.of.passing
		if tr.reverse {
			order, index, values = tr.of.passOrder, tr.of.passIndex, tr.of.failing
		}
		rf := restoreFile{Index: index}
		for _, k := range tr.keys {
			v, _ := values.value(k)
			rf.Roots = append(rf.Roots, restoreEntry{Kind: k.Kind, Root: k.Root, Tree: v.Tree, Initial: v.Initial})
		}
		name, err := d.writeRestore(rf)
		if err != nil {
			return nil, err
		}
		defer os.Remove(name)
		restore := d.Base
		restore.Restore = name
		jobs[i] = launcher.Job{Order: order, RunOptions: launcher.RunOptions{AgentOptions: agent.Options{State: restore}}}
	}
	res, err := d.Runner.RunJobs(ctx, jobs)
	if err != nil {
		return nil, fmt.Errorf("confirm state: %w", err)
	}
	confirmed := make([]bool, len(res))
	for i, r := range res {
		tr := trials[i]
		tr.of.Runs++
		index := len(tr.of.Target.FailingOrder) - 1
		if tr.reverse {
			index = tr.of.passIndex
		}
		o, ok := outcomeAt(r, index, tr.of.Target.Test)
		confirmed[i] = ok && (o == launcher.Pass) != tr.reverse && (o == launcher.Pass || o.Failed())
	}
	return confirmed, nil
}

// writeRestore writes a restore file into d.TmpDir and returns its path.
func (d *Debugger) writeRestore(rf restoreFile) (string, error) {
	data, err := json.Marshal(rf)
	if err != nil {
		return "", fmt.Errorf("encode restore file: %w", err)
	}
	f, err := os.CreateTemp(d.TmpDir, "restore-*.json")
	if err != nil {
		return "", fmt.Errorf("write restore file: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write restore file: %w", err)
	}
	return f.Name(), nil
}

// outcomeAt returns the outcome of test at order position index: results
// come in execution order, so it is test's k-th result when index is its
// k-th entry in the order.
func outcomeAt(r *launcher.Result, index int, test string) (launcher.Outcome, bool) {
	want := 0
	for i := 0; i <= index && i < len(r.Order); i++ {
		if r.Order[i] == test {
			want++
		}
	}
	seen := 0
	for _, tr := range r.Tests {
		if tr.Test == test {
			seen++
			if seen == want {
				return tr.Outcome, true
			}
		}
	}
	return "", false
}

// failedAt reports whether test failed at order position index.
func failedAt(r *launcher.Result, index int, test string) bool {
	o, ok := outcomeAt(r, index, test)
	return ok && o.Failed()
}
