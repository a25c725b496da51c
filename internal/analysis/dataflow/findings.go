package dataflow

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/launcher"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/report"
)

// Finding is an OD finding made from the manifest edges of one reader,
// with the roots they read.
type Finding struct {
	od.Finding
	Roots []Root
}

// Findings turns the manifest edges into OD findings, one per reader: a
// reader whose outcome needs its writers before it (it passed in the
// reference and failed without a Flow edge's writer, or failed in the
// reference and passed after an Anti edge's writers) is brittle, with the
// writers as setters; one that the writers before it make fail is a
// victim, with the writers as polluters. Each
// finding's failing and passing orders are rerun until each has k
// agreeing outcomes (k < 2: no reruns); a finding whose reruns disagree is
// dropped. It returns the findings and the JVM runs it made.
func Findings(ctx context.Context, r Runner, g *Graph, k int, log logs.Logger) ([]Finding, int, error) {
	out := g.manifestFindings()
	if k < 2 || len(out) == 0 {
		return out, 0, nil
	}
	return confirmFindings(ctx, r, out, k, log)
}

// manifestFindings turns the manifest edges of g into findings, one per
// reader, with the edges' writers as its setters or polluters and the
// reference run and the edge's run as its evidence, each run once.
func (g *Graph) manifestFindings() []Finding {
	var out []Finding
	at := map[string]int{}
	for _, e := range g.Edges {
		if e.Status != Manifest {
			continue
		}
		ref := g.reference(e.Reference)
		prefix := slices.Clone(ref.Order[:ref.index[e.Reader]+1])
		refRun := od.Observation{Label: "dataflow reference run (" + ref.Name + ")", Order: prefix, Failure: e.RefOutcome, Message: ref.messages[e.Reader]}
		run := od.Observation{Label: "dataflow: " + e.Reader + " without " + e.Writer + " before it", Order: e.Order, Failure: e.Outcome, Message: e.message}
		group := []string{e.Writer}
		if e.Kind == Anti {
			run.Label = "dataflow: " + e.Reader + " after " + strings.Join(e.Order[:len(e.Order)-1], ", ")
			group = e.Order[:len(e.Order)-1]
		}
		// failed is the observation the reader failed in.
		failed, passed := &refRun, &run
		if e.RefOutcome == launcher.Pass {
			failed, passed = &run, &refRun
		}
		failed.Fail, passed.Pass = 1, 1
		passed.Failure = ""
		passed.Message = ""
		victim := (e.Kind == Flow) == e.RefOutcome.Failed()
		i, ok := at[e.Reader]
		if !ok {
			f := Finding{Finding: od.Finding{Test: e.Reader, Kind: report.ODBrittle, FailingOrder: failed.Order, PassingOrder: passed.Order,
				Message: failed.Message, Evidence: []od.Observation{*failed, *passed}, DetectedAfter: 1}}
			if victim {
				f.Kind = report.ODVictim
			}
			out = append(out, f)
			i = len(out) - 1
			at[e.Reader] = i
		}
		f := &out[i]
		groups := &f.Setters
		if f.Kind == report.ODVictim {
			groups = &f.Polluters
		}
		if !slices.ContainsFunc(*groups, func(g []string) bool { return slices.Equal(g, group) }) {
			*groups = append(*groups, group)
		}
		for _, r := range e.Roots {
			if !slices.Contains(f.Roots, r) {
				f.Roots = append(f.Roots, r)
			}
		}
	}
	return out
}

// confirmFindings reruns the failing and passing orders of out k-1 times
// more (orders they share run once a round), and keeps the findings whose
// reruns agree, their evidence counting k runs. It returns them and the
// JVM runs it made.
func confirmFindings(ctx context.Context, r Runner, out []Finding, k int, log logs.Logger) ([]Finding, int, error) {
	var needed [][]string
	for _, f := range out {
		needed = append(needed, f.FailingOrder, f.PassingOrder)
	}
	orders, runOf := shared(needed)
	var batch [][]string
	for range k - 1 {
		batch = append(batch, orders...)
	}
	res, err := r.RunAll(ctx, batch)
	if err != nil {
		return nil, 0, fmt.Errorf("confirm data dependencies: %w", err)
	}
	kept := out[:0]
	for i, f := range out {
		agree := true
		for j := range k - 1 {
			fail, _ := outcomeOf(res[j*len(orders)+runOf[2*i]], f.Test)
			pass, _ := outcomeOf(res[j*len(orders)+runOf[2*i+1]], f.Test)
			if !fail.Failed() || pass != launcher.Pass {
				agree = false
			}
		}
		if !agree {
			log.Logf("dataflow: %s changed its outcome in a rerun of its orders: not reported", f.Test)
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

// shared returns the runs that cover orders, each order being served by
// a run it is a prefix of (its tests run the same whatever follows), and
// for each order the index of its run.
func shared(orders [][]string) ([][]string, []int) {
	idx := make([]int, len(orders))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return len(orders[y]) - len(orders[x]) })
	var runs [][]string
	runOf := make([]int, len(orders))
	for _, i := range idx {
		o := orders[i]
		at := slices.IndexFunc(runs, func(r []string) bool { return len(r) >= len(o) && slices.Equal(r[:len(o)], o) })
		if at < 0 {
			runs = append(runs, o)
			at = len(runs) - 1
		}
		runOf[i] = at
	}
	return runs, runOf
}
