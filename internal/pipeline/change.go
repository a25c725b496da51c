package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/gate/impact"
	"github.com/flakyhq/flaky/internal/gate/knowledge"
	"github.com/flakyhq/flaky/internal/report"
)

// ChangeOptions narrow detection to what a change can affect.
type ChangeOptions struct {
	// Change is what changed since the base (change.Since).
	Change *change.Change
	// Knowledge is what earlier full analyses knew of the tests; nil
	// takes it from the module's knowledge store (Options.Knowledge): when
	// there is none (missing, corrupt, of another format), the change gets
	// a full analysis, which then records the store.
	Knowledge *impact.Knowledge
	// Known are the tests earlier full analyses found flaky and how (from
	// the store, with Knowledge).
	Known map[string][]knowledge.Finding

	// full says why the change got a full analysis for want of
	// knowledge ("" when it did not).
	full string
}

// Inert says why the change needs no analysis at all ("" when it needs
// one): nothing changed, or only documentation and files outside the
// module's code.
func (c *ChangeOptions) Inert() string {
	switch {
	case len(c.Change.Files) == 0:
		return "nothing to analyse: nothing changed"
	case c.Change.Inert():
		return "nothing to analyse: only documentation changed"
	}
	return ""
}

// loadKnowledge fills c's Knowledge and Known from the module's knowledge
// store in dir; when there is no usable store it returns why (the store's
// note, which says "full analysis") and leaves them nil.
func (c *ChangeOptions) loadKnowledge(dir string) string {
	st, note, err := knowledge.Load(dir)
	if st == nil {
		if err != nil {
			return fmt.Sprintf("%s (%v)", note, err)
		}
		return note.Text
	}
	k := &impact.Knowledge{Tests: map[string]impact.Record{}}
	c.Known = map[string][]knowledge.Finding{}
	for id, t := range st.Tests {
		r := impact.Record{Classes: t.Classes, Methods: t.Methods}
		for _, root := range t.Reads {
			r.Reads = append(r.Reads, root.Root)
		}
		for _, root := range t.Writes {
			r.Writes = append(r.Writes, root.Root)
		}
		k.Tests[id] = r
		if len(t.Findings) > 0 {
			c.Known[id] = t.Findings
		}
	}
	c.Knowledge = k
	return ""
}

// knownAs reports whether earlier full analyses found fd's test flaky
// the same way (the same kind).
func (c *ChangeOptions) knownAs(fd report.Finding) bool {
	return slices.ContainsFunc(c.Known[fd.Test], func(k knowledge.Finding) bool { return k.Kind == fd.Kind })
}

// judgeKnown says, in st, which findings of a change's analysis are of
// tests earlier full analyses found flaky the same way (Known: still
// flaky, not new), and which victims found before were not found now
// though every pair of one of their polluters and them ran (PossiblyFixed).
// A test whose flip could not be confirmed is neither, and nothing is
// possibly fixed when the budget cut the pairs' orders.
func (c *ChangeOptions) judgeKnown(st *report.ChangeStats, f *od.Focus, cov *report.Coverage, findings []report.Finding) {
	found := map[string]bool{}
	for _, fd := range findings {
		found[fd.Test] = true
		if c.knownAs(fd) && !slices.Contains(st.Known, fd.Test) {
			st.Known = append(st.Known, fd.Test)
		}
	}
	ran := map[[2]string]bool{}
	for _, p := range f.Pairs {
		ran[p] = true
	}
	for t := range f.Settled {
		if !found[t] {
			st.Settled = append(st.Settled, t)
		}
	}
	for _, t := range f.Targets {
		if len(f.Settled[t]) > 0 {
			continue // known and not judged again
		}
		if found[t] || slices.Contains(cov.Unconfirmed, t) || cov.BudgetExhausted || slices.Contains(st.PossiblyFixed, t) {
			continue
		}
		if slices.ContainsFunc(c.Known[t], func(k knowledge.Finding) bool {
			return k.Kind == report.ODVictim && slices.ContainsFunc(k.Polluters, func(g []string) bool { return len(g) == 1 && ran[[2]string{g[0], t}] })
		}) {
			st.PossiblyFixed = append(st.PossiblyFixed, t)
		}
	}
	slices.Sort(st.Known)
	slices.Sort(st.PossiblyFixed)
	slices.Sort(st.Settled)
}

// everything says why a change makes every test affected.
func everything(c *change.Change) string {
	files := slices.Concat(c.Build, c.Resources)
	const most = 3
	if len(files) > most {
		files = append(files[:most:most], fmt.Sprintf("%d more", len(files)-most))
	}
	return "every test is analysed: " + strings.Join(files, ", ") + " changed"
}

// everyTest returns the report's account of a change that affects every
// test of tests.
func everyTest(c *change.Change, tests []string, why string) *report.ChangeStats {
	st := changeStats(c, nil, why)
	reason := []string{strings.TrimPrefix(why, "every test is analysed: ")}
	for _, t := range tests {
		st.Affected = append(st.Affected, report.AffectedTest{Test: t, Reasons: reason})
	}
	return st
}

// changeStats returns the report's account of a change's analysis.
func changeStats(c *change.Change, im *impact.Impact, summary string) *report.ChangeStats {
	st := &report.ChangeStats{Ref: c.Ref, Base: c.Base, Head: c.Head, Files: len(c.Files), Affected: []report.AffectedTest{}, Summary: summary}
	if im != nil {
		for _, t := range im.Tests {
			st.Affected = append(st.Affected, report.AffectedTest{Test: t.ID, Reasons: t.Reasons, New: t.New})
		}
		st.Pairs, st.Because = len(im.Pairs), im.Because
	}
	return st
}

// addChange adds the account of another fork's analysis of the change
// (verify) to c: its affected tests and pairs; the summary is the one of
// the fork that analysed the most.
func addChange(c, o *report.ChangeStats) *report.ChangeStats {
	if c == nil {
		return o
	}
	if len(o.Affected) > len(c.Affected) {
		c.Summary, c.Because = o.Summary, o.Because
	}
	c.Affected = append(c.Affected, o.Affected...)
	c.Pairs += o.Pairs
	c.Known = append(c.Known, o.Known...)
	c.PossiblyFixed = append(c.PossiblyFixed, o.PossiblyFixed...)
	c.Settled = append(c.Settled, o.Settled...)
	return c
}

// focus runs the module's tests once in their original order with the
// agent recording each test's classes and shared state, and returns what
// the change can affect (the tests to judge and the pairs to run) and
// that run, one of the original order's.
func focus(ctx context.Context, m Module, c *ChangeOptions, log logs.Logger) (*impact.Impact, *launcher.Result, error) {
	// The changed sources are split while the suite runs.
	split := make(chan error, 1)
	go func() { split <- splitMembers(ctx, c.Change, m.Fast.Java(), log) }()
	runs, err := m.Fast.RunJobs(ctx, []launcher.Job{{Order: m.Tests, RunOptions: launcher.RunOptions{AgentOptions: dataflow.AgentOptions}}})
	if serr := <-split; err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		return nil, nil, fmt.Errorf("traced run of the change: %w", err)
	}
	im := impact.Of(c.Change, m.Tests, runs[0].Dataflow, c.Knowledge)
	StageOrders.of(log).Logf("change since %s: %s", change.QuoteRef(c.Change.Ref), im.Summary())
	return im, runs[0], nil
}

// odFocus is the od analysis's focus on what a change affects, with the
// polluter and state-setter groups the knowledge has for its targets.
func (c *ChangeOptions) odFocus(im *impact.Impact) *od.Focus {
	f := &od.Focus{Targets: im.IDs(), Pairs: im.Pairs, Alone: im.New(), Via: im.Via(), Shared: im.Shared, Writes: im.Writes, Reads: im.Reads}
	for _, t := range f.Targets {
		for _, k := range c.Known[t] {
			for _, g := range k.Polluters {
				f.Polluters = append(f.Polluters, od.KnownPolluters{Group: g, Cleaners: k.Cleaners})
			}
			f.Setters = append(f.Setters, k.Setters...)
		}
	}
	f.Settled = c.settled(im)
	return f
}

// settled returns the known victims among im's tests whose verdict the
// knowledge keeps, with their known polluter groups: a victim the change
// affects only through others' writes (not itself changed) none of whose
// known polluters the change affects directly. Its failures after a
// known polluter are no evidence; only a failure without one (a new
// polluter) judges it again.
func (c *ChangeOptions) settled(im *impact.Impact) map[string][][]string {
	direct := map[string]bool{}
	for _, t := range im.Tests {
		if len(t.Via) == 0 {
			direct[t.ID] = true
		}
	}
	out := map[string][][]string{}
	for _, t := range im.Tests {
		if direct[t.ID] {
			continue
		}
		var groups [][]string
		changed := false
		for _, k := range c.Known[t.ID] {
			if k.Kind != report.ODVictim {
				continue
			}
			for _, g := range k.Polluters {
				changed = changed || slices.ContainsFunc(g, func(p string) bool { return direct[p] })
				groups = append(groups, g)
			}
		}
		if len(groups) > 0 && !changed {
			out[t.ID] = groups
		}
	}
	return out
}

// splitMembers fills ch.Members: what changed inside each changed test and
// production class, from its members before and after (the source
// editor's split). A file the editor cannot split counts as changed as a
// whole, and says so.
func splitMembers(ctx context.Context, ch *change.Change, java string, log logs.Logger) error {
	classes := slices.Concat(ch.TestClasses, ch.Classes)
	if len(classes) == 0 || ch.Members != nil {
		return nil
	}
	ed, err := editor.StartEditor(ctx, java)
	if err != nil {
		return fmt.Errorf("splitting the changed classes: %w", err)
	}
	defer ed.Close()
	split := func(src string, ok bool) (string, []change.Member, error) {
		if !ok {
			return "", nil, nil
		}
		return ed.Split(src)
	}
	ch.Members = map[string]*change.Members{}
	for _, c := range classes {
		file := ch.Path(c)
		before, okb, err := ch.Before(file)
		if err != nil {
			return err
		}
		after, oka, err := ch.After(file)
		if err != nil {
			return err
		}
		_, old, errb := split(before, okb)
		pkg, cur, erra := split(after, oka)
		if err := errors.Join(errb, erra); err != nil {
			StageOrders.of(log).Logf("change since %s: %s counts as changed as a whole: %v", change.QuoteRef(ch.Ref), c, err)
			ch.Members[c] = &change.Members{Whole: "its source does not parse"}
			continue
		}
		if !oka {
			pkg = c[:max(0, strings.LastIndexByte(c, '.'))]
		}
		if okb && old == nil {
			old = []change.Member{}
		}
		if oka && cur == nil {
			cur = []change.Member{}
		}
		ch.Members[c] = change.DiffMembers(pkg, old, cur)
	}
	return nil
}
