package dataflow

import (
	"context"
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/od"
	"github.com/flakyhq/flaky/internal/report"
)

// Finding is an OD finding made from the manifest edges of one reader,
// with the roots they read.
type Finding struct {
	od.Finding
	Roots []Root
}

// Findings turns the manifest edges into OD findings, one per reader: a
// reader that passed in the reference run and failed without a writer
// before it is brittle, with the writers as setters; one that failed in the
// reference and passed is a victim, with the writers as polluters. Each
// finding's failing and passing orders are rerun until each has k
// agreeing outcomes (k < 2: no reruns); a finding whose reruns disagree is
// dropped. It returns the findings and the JVM runs it made.
func Findings(ctx context.Context, r Runner, g *Graph, k int, logf func(string, ...any)) ([]Finding, int, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var out []Finding
	at := map[string]int{}
	for _, e := range g.Edges {
		if e.Status != Manifest {
			continue
		}
		ref := g.reference(e.Reference)
		prefix := ref.Order[:ref.index[e.Reader]+1]
		i, ok := at[e.Reader]
		if !ok {
			f := Finding{Finding: od.Finding{Test: e.Reader}}
			label := "dataflow: " + e.Reader + " without " + e.Writer + " before it"
			if e.RefOutcome.Failed() {
				f.Kind = report.ODVictim
				f.FailingOrder, f.PassingOrder = slices.Clone(prefix), e.Order
				f.Message = ref.messages[e.Reader]
				f.Evidence = []od.Observation{
					{Label: "dataflow reference run (" + ref.Name + ")", Order: f.FailingOrder, Fail: 1, Failure: e.RefOutcome, Message: f.Message},
					{Label: label, Order: e.Order, Pass: 1},
				}
			} else {
				f.Kind = report.ODBrittle
				f.FailingOrder, f.PassingOrder = e.Order, slices.Clone(prefix)
				f.Message = e.message
				f.Evidence = []od.Observation{
					{Label: label, Order: e.Order, Fail: 1, Failure: e.Outcome, Message: e.message},
					{Label: "dataflow reference run (" + ref.Name + ")", Order: f.PassingOrder, Pass: 1},
				}
			}
			f.DetectedAfter = 1
			out = append(out, f)
			i = len(out) - 1
			at[e.Reader] = i
		}
		f := &out[i]
		if f.Kind == report.ODVictim {
			f.Polluters = append(f.Polluters, []string{e.Writer})
		} else {
			f.Setters = append(f.Setters, []string{e.Writer})
		}
		f.Roots = append(f.Roots, e.Roots...)
	}
	if k < 2 || len(out) == 0 {
		return out, 0, nil
	}
	var orders [][]string
	for _, f := range out {
		for range k - 1 {
			orders = append(orders, f.FailingOrder, f.PassingOrder)
		}
	}
	res, err := r.RunAll(ctx, orders)
	if err != nil {
		return nil, 0, fmt.Errorf("confirm data dependencies: %w", err)
	}
	kept := out[:0]
	for i, f := range out {
		agree := true
		for j := range k - 1 {
			fail, _ := outcomeOf(res[2*(i*(k-1)+j)], f.Test)
			pass, _ := outcomeOf(res[2*(i*(k-1)+j)+1], f.Test)
			if !fail.Failed() || pass != "pass" {
				agree = false
			}
		}
		if !agree {
			logf("dataflow: %s changed its outcome in a rerun of its orders: not reported", f.Test)
			continue
		}
		for e := range f.Evidence {
			f.Evidence[e].Pass *= k
			f.Evidence[e].Fail *= k
		}
		kept = append(kept, f)
	}
	return kept, len(res), nil
}

// PollutedState returns a finding's roots as unconfirmed polluted-state
// items (the root-cause step confirms or replaces them).
func (f Finding) PollutedState() []report.StateItem {
	var out []report.StateItem
	for _, r := range f.Roots {
		out = append(out, report.StateItem{Kind: r.Kind, Root: r.Name})
	}
	return out
}

// ODFindings returns the findings' OD parts.
func ODFindings(fs []Finding) []od.Finding {
	out := make([]od.Finding, len(fs))
	for i, f := range fs {
		out[i] = f.Finding
	}
	return out
}
