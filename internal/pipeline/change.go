package pipeline

import (
	"context"
	"fmt"

	"github.com/flakyhq/flaky/internal/change"
	"github.com/flakyhq/flaky/internal/dataflow"
	"github.com/flakyhq/flaky/internal/impact"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/od"
	"github.com/flakyhq/flaky/internal/report"
)

// ChangeOptions narrow detection to what a change can affect.
type ChangeOptions struct {
	// Change is what changed since the base (change.Since).
	Change *change.Change
	// Knowledge is what earlier full analyses knew of the tests; nil
	// knows nothing (every affected test is then new).
	Knowledge *impact.Knowledge
}

// Inert says why the change needs no analysis at all ("" when it needs
// one): it touches only documentation and files outside the module's code.
func (c *ChangeOptions) Inert() string {
	if c.Change.Inert() {
		return "nothing to analyse: only documentation changed"
	}
	return ""
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
	return c
}

// focus runs the module's tests once in their original order with the
// agent recording each test's classes and shared state, and returns what
// the change can affect: the tests to judge and the pairs to run.
func focus(ctx context.Context, m Module, c *ChangeOptions, log Log) (*impact.Impact, error) {
	runs, err := m.Fast.RunJobs(ctx, []launcher.Job{{Order: m.Tests, RunOptions: launcher.RunOptions{AgentOptions: dataflow.AgentOptions}}})
	if err != nil {
		return nil, fmt.Errorf("traced run of the change: %w", err)
	}
	im := impact.Of(c.Change, m.Tests, runs[0].Dataflow, c.Knowledge)
	log.logf(StageOrders)("change since %s: %s", c.Change.Ref, im.Summary())
	return im, nil
}

// odFocus is the od analysis's focus on what a change affects.
func odFocus(im *impact.Impact) *od.Focus {
	return &od.Focus{Targets: im.IDs(), Pairs: im.Pairs, Alone: im.New(), Via: im.Via()}
}
