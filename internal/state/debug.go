package state

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// Runner runs orders in fresh JVMs with per-run agent options
// (*launcher.Launcher).
type Runner interface {
	RunJobs(ctx context.Context, jobs []launcher.Job) ([]*launcher.Result, error)
}

// Target is one OD finding to debug: a victim with its failing order (a
// polluter group, then the test) or a brittle with its passing order (a
// setter group, then the test).
type Target struct {
	Test         string
	Kind         report.Kind
	FailingOrder []string
	PassingOrder []string
}

// Debugger names and confirms the polluted state of OD findings.
type Debugger struct {
	Runner Runner
	// TmpDir holds the restore files; it must exist.
	TmpDir string
	// AgentOptions are extra state options for every run (state.include, ...).
	AgentOptions []string
	// MaxRoots bounds the differing roots tried one by one; 0 means 40.
	MaxRoots int
}

// Debugged is what Debug found for one target.
type Debugged struct {
	Items    []report.StateItem
	Runs     int
	Duration time.Duration
	// Cut names roots whose capture reached a bound (so a difference
	// beyond it may be missed).
	Cut []string
}

// maxChanges bounds the paths reported per root.
const maxChanges = 3

// maxUnconfirmed bounds the roots reported when none is confirmed.
const maxUnconfirmed = 10

// Debug captures the state right before the test in the failing and the
// passing order, diffs it root by root, and confirms each differing root by
// restoring its passing value right before the test in the failing order.
// It reports the smallest confirmed set, or the differing roots unconfirmed
// when no set makes the test pass.
func (d *Debugger) Debug(ctx context.Context, t Target) (*Debugged, error) {
	start := time.Now()
	out := &Debugged{}
	failing, passing, err := d.capture(ctx, t, out)
	if err != nil {
		return nil, err
	}
	diff := differing(failing, passing)
	for _, k := range diff {
		if c := passing[k].Cut + failing[k].Cut; c != "" {
			out.Cut = append(out.Cut, k.Root)
		}
	}
	limit := d.MaxRoots
	if limit <= 0 {
		limit = 40
	}
	tried := diff
	if len(tried) > limit {
		tried = tried[:limit]
	}
	confirmed, err := d.confirm(ctx, t, tried, passing, out)
	if err != nil {
		return nil, err
	}
	shown := confirmed
	if len(confirmed) == 0 {
		shown = diff[:min(len(diff), maxUnconfirmed)]
	}
	for _, k := range shown {
		pv, _ := passing.value(k)
		fv, _ := failing.value(k)
		changes, _ := Diff(pv, fv, maxChanges)
		for _, c := range changes {
			out.Items = append(out.Items, report.StateItem{
				Kind: k.Kind, Root: k.Root, Path: c.Path, Passing: c.A, Failing: c.B, Confirmed: len(confirmed) > 0,
			})
		}
	}
	out.Duration = time.Since(start)
	return out, nil
}

// capture runs the failing and the passing order with a capture right
// before the test. A victim's passing state is the state before its second
// run in [t, t]; when that run fails (the victim is non-idempotent too) it
// is the state of [t] alone, where each class's roots have their values
// right after its static initialiser.
func (d *Debugger) capture(ctx context.Context, t Target, out *Debugged) (failing, passing Snapshot, err error) {
	last := len(t.FailingOrder) - 1
	var passOrder []string
	var passPoints []string
	if t.Kind == report.ODBrittle {
		passOrder = t.PassingOrder
		passPoints = []string{fmt.Sprintf("before:%d", len(passOrder)-1)}
	} else {
		passOrder = []string{t.Test, t.Test}
		passPoints = []string{"before:0", "before:1"}
	}
	jobs := []launcher.Job{
		{Order: t.FailingOrder, RunOptions: launcher.RunOptions{AgentOptions: d.options("state=" + fmt.Sprintf("before:%d", last))}},
		{Order: passOrder, RunOptions: launcher.RunOptions{AgentOptions: d.options("state=" + strings.Join(passPoints, "+"))}},
	}
	res, err := d.Runner.RunJobs(ctx, jobs)
	if err != nil {
		return nil, nil, fmt.Errorf("capture state of %s: %w", t.Test, err)
	}
	out.Runs += len(jobs)
	failing, ok := At(res[0].States, Before(last))
	if !ok {
		return nil, nil, fmt.Errorf("capture state of %s: the failing order's JVM sent no state before the test%s", t.Test, noteTail(res[0]))
	}
	p := Before(len(passOrder) - 1)
	if t.Kind != report.ODBrittle && failedAt(res[1], 1, t.Test) {
		p = Before(0)
	}
	passing, ok = At(res[1].States, p)
	if !ok {
		return nil, nil, fmt.Errorf("capture state of %s: the passing order's JVM sent no state before the test%s", t.Test, noteTail(res[1]))
	}
	return failing, passing, nil
}

func noteTail(r *launcher.Result) string {
	if len(r.Notes) == 0 {
		return ""
	}
	return " (" + strings.Join(r.Notes, "; ") + ")"
}

// options returns the agent options of a run: its own, then d's.
func (d *Debugger) options(own ...string) []string {
	return append(own, d.AgentOptions...)
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

// confirm restores each root alone in the failing order; when none makes
// the test pass, all of them together, then it drops roots one at a time
// while the test still passes. It returns the confirmed roots.
func (d *Debugger) confirm(ctx context.Context, t Target, keys []Key, passing Snapshot, out *Debugged) ([]Key, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	sets := make([][]Key, len(keys))
	for i, k := range keys {
		sets[i] = []Key{k}
	}
	passed, err := d.tryRestores(ctx, t, sets, passing, out)
	if err != nil {
		return nil, err
	}
	var confirmed []Key
	for i, ok := range passed {
		if ok {
			confirmed = append(confirmed, keys[i])
		}
	}
	if len(confirmed) > 0 || len(keys) == 1 {
		// Each confirmed root alone makes the test pass: every one is a smallest set.
		return confirmed, nil
	}
	all := append([]Key(nil), keys...)
	passed, err = d.tryRestores(ctx, t, [][]Key{all}, passing, out)
	if err != nil || !passed[0] {
		return nil, err
	}
	for i := 0; i < len(all) && len(all) > 1; {
		without := append(append([]Key(nil), all[:i]...), all[i+1:]...)
		passed, err := d.tryRestores(ctx, t, [][]Key{without}, passing, out)
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

// tryRestores runs the failing order once per set of roots, restoring the
// set's passing values right before the test, and reports for each set
// whether the test passed.
func (d *Debugger) tryRestores(ctx context.Context, t Target, sets [][]Key, passing Snapshot, out *Debugged) ([]bool, error) {
	last := len(t.FailingOrder) - 1
	jobs := make([]launcher.Job, len(sets))
	for i, set := range sets {
		rf := restoreFile{Index: last}
		for _, k := range set {
			v, _ := passing.value(k)
			rf.Roots = append(rf.Roots, restoreEntry{Kind: k.Kind, Root: k.Root, Tree: v.Tree, Initial: v.Initial})
		}
		data, err := json.Marshal(rf)
		if err != nil {
			return nil, fmt.Errorf("encode restore file: %w", err)
		}
		f, err := os.CreateTemp(d.TmpDir, "restore-*.json")
		if err != nil {
			return nil, fmt.Errorf("write restore file: %w", err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("write restore file: %w", err)
		}
		defer os.Remove(f.Name())
		jobs[i] = launcher.Job{Order: t.FailingOrder, RunOptions: launcher.RunOptions{
			AgentOptions: d.options("state.restore=" + agent.EscapeListItem(filepath.Clean(f.Name()))),
		}}
	}
	res, err := d.Runner.RunJobs(ctx, jobs)
	if err != nil {
		return nil, fmt.Errorf("confirm state of %s: %w", t.Test, err)
	}
	out.Runs += len(jobs)
	passed := make([]bool, len(res))
	for i, r := range res {
		o, ok := outcomeAt(r, last, t.Test)
		passed[i] = ok && o == launcher.Pass
	}
	return passed, nil
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
