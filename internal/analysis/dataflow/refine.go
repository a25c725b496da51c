package dataflow

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// Runner runs orders, each in a fresh JVM, possibly in parallel, and
// returns their results in the same order; *launcher.Launcher is one.
type Runner interface {
	RunAll(ctx context.Context, orders [][]string) ([]*launcher.Result, error)
}

// Options bound a refinement.
type Options struct {
	// Deadline stops refinement from starting new rounds; zero means none.
	Deadline time.Time
	// Log receives progress notes (Logf) and one line per dependency
	// tested, its status, or left untested (Debugf); the zero Logger drops
	// them.
	Log logs.Logger
	// Fixtures names the classes with class-level fixtures, whose tests
	// must run in one stretch (as under Surefire).
	Fixtures map[string]bool
}

// Refine tests the graph's untested edges until each is manifest, benign,
// or cannot be tested (its inversion would make a cycle with the edges
// that remain). Each round picks, in every weakly connected component of
// every reference, the first edge in source-first order that can be
// inverted, and runs all the picks at once (independent components run in
// parallel JVMs). It returns the number of JVM runs it made.
func Refine(ctx context.Context, r Runner, g *Graph, opts Options) (int, error) {
	log := opts.Log
	runs, err := refineAnti(ctx, r, g, opts.Fixtures, log)
	if err != nil {
		return runs, err
	}
	for {
		if !opts.Deadline.IsZero() && time.Now().After(opts.Deadline) {
			log.Logf("dataflow: the budget ended with %d edge(s) untested", g.Count(Untested))
			return runs, nil
		}
		var picks []*Edge
		var orders [][]string
		for _, ref := range g.References {
			for _, comp := range g.components(ref.Name) {
				var untested []*Edge
				for _, e := range comp {
					if e.Status == Untested {
						untested = append(untested, e)
					}
				}
				for _, e := range sourceFirst(ref, untested) {
					if order, ok := schedule(ref, comp, e); ok {
						picks = append(picks, e)
						orders = append(orders, order)
						break
					}
				}
			}
		}
		if len(picks) == 0 {
			return runs, nil
		}
		res, err := r.RunAll(ctx, orders)
		if err != nil {
			return runs, fmt.Errorf("refine data dependencies: %w", err)
		}
		runs += len(res)
		for i, e := range picks {
			e.Order = orders[i]
			e.Outcome, e.message = outcomeOf(res[i], e.Reader)
			if changed(e.RefOutcome, e.Outcome) {
				e.Status = Manifest
			} else {
				e.Status = Benign
			}
			log.Debugf("dataflow: %s -> %s is %s (%s in the reference, %s without the writer before it)", e.Reader, e.Writer, e.Status, e.RefOutcome, e.Outcome)
		}
	}
}

// maxSingles bounds the later writers of one reader that refineAnti tries
// one by one; a reader with more keeps its Anti edges untested.
const maxSingles = 16

// refineAnti tests the Anti edges: for each reader, one run of all its
// later writers and the tests its Flow edges make it depend on (in the
// reference order), then the reader; when that changes the reader's
// outcome and more than one test ran before it, one run of each writer
// alone before the reader. Writers that change it alone are manifest; when
// none does, all of them are, together with the tests that ran before them
// (the finding's group is that whole run). The others are benign. A reader
// whose run changed with more than maxSingles later writers keeps its
// edges untested.
//
// Flow runs are subsequences of the reference order, so a class with
// class-level fixtures stays in one stretch; in an Anti run the reader
// moves behind later tests, so its class's tests move with it when it has
// class fixtures.
func refineAnti(ctx context.Context, r Runner, g *Graph, fixtures map[string]bool, log logs.Logger) (int, error) {
	groups := g.antiGroups()
	if len(groups) == 0 {
		return 0, nil
	}
	orders := make([][]string, len(groups))
	for i, gr := range groups {
		orders[i] = g.antiOrder(gr, fixtures)
	}
	res, err := r.RunAll(ctx, orders)
	if err != nil {
		return 0, fmt.Errorf("refine data dependencies: %w", err)
	}
	runs := len(res)
	singles := judgeAnti(groups, orders, res, log)
	if len(singles.orders) > 0 {
		res, err := r.RunAll(ctx, singles.orders)
		if err != nil {
			return runs, fmt.Errorf("refine data dependencies: %w", err)
		}
		runs += len(res)
		singles.judge(res)
	}
	for _, e := range g.Edges {
		if e.Kind == Anti && e.Status != Untested {
			log.Debugf("dataflow: %s after %s (a later writer) is %s (%s in the reference, %s after it)", e.Reader, e.Writer, e.Status, e.RefOutcome, e.Outcome)
		}
	}
	return runs, nil
}

// antiGroup is the untested Anti edges of one reader in one reference.
type antiGroup struct {
	reader string
	edges  []*Edge
}

// antiGroups returns g's untested Anti edges grouped by reference and
// reader, in the edges' order.
func (g *Graph) antiGroups() []*antiGroup {
	var groups []*antiGroup
	byReader := map[[2]string]*antiGroup{}
	for _, e := range g.Edges {
		if e.Kind != Anti || e.Status != Untested {
			continue
		}
		key := [2]string{e.Reference, e.Reader}
		if byReader[key] == nil {
			byReader[key] = &antiGroup{reader: e.Reader}
			groups = append(groups, byReader[key])
		}
		byReader[key].edges = append(byReader[key].edges, e)
	}
	return groups
}

// antiOrder returns the order of gr's run: its reader's later writers and
// the tests its Flow edges make it depend on, in the reference order, then
// the reader (with its class's tests when the class has class-level
// fixtures).
func (g *Graph) antiOrder(gr *antiGroup, fixtures map[string]bool) []string {
	ref := g.reference(gr.edges[0].Reference)
	before := g.flowAncestors(ref.Name, gr.reader)
	for _, e := range gr.edges {
		before[e.Writer] = true
	}
	var order []string
	for t := range before {
		order = append(order, t)
	}
	slices.SortFunc(order, func(x, y string) int { return cmp.Compare(ref.index[x], ref.index[y]) })
	order = append(order, gr.reader)
	if c := testid.ClassOf(gr.reader); fixtures[c] {
		rest := slices.DeleteFunc(slices.Clone(order), func(t string) bool { return testid.ClassOf(t) == c })
		order = append(rest, slices.DeleteFunc(slices.Clone(order), func(t string) bool { return testid.ClassOf(t) != c })...)
	}
	return order
}

// antiSingles are the runs of each later writer alone before its reader,
// for the groups whose run changed the reader's outcome (split).
type antiSingles struct {
	orders [][]string
	edges  []*Edge // of each order
	split  []*antiGroup
}

// judgeAnti sets the status of each group's edges from its run (the
// result res[i] of orders[i]): benign when the reader's outcome did not
// change, else manifest (untested with more than maxSingles writers), and
// returns the single runs that find which writers suffice, for a group
// whose run had more than one test before the reader.
func judgeAnti(groups []*antiGroup, orders [][]string, res []*launcher.Result, log logs.Logger) antiSingles {
	var s antiSingles
	for i, gr := range groups {
		out, msg := outcomeOf(res[i], gr.reader)
		if !changed(gr.edges[0].RefOutcome, out) {
			for _, e := range gr.edges {
				e.Status, e.Order, e.Outcome = Benign, orders[i], out
			}
			continue
		}
		for _, e := range gr.edges {
			e.Status, e.Order, e.Outcome, e.message = Manifest, orders[i], out, msg
		}
		if len(gr.edges) > maxSingles {
			// Finding the writers that suffice would take a run per writer.
			for _, e := range gr.edges {
				e.Status = Untested
			}
			log.Debugf("dataflow: %s changed after its %d later writers: too many to try one by one, left untested", gr.reader, len(gr.edges))
			continue
		}
		if len(orders[i]) > 2 {
			s.split = append(s.split, gr)
			for _, e := range gr.edges {
				s.orders = append(s.orders, []string{e.Writer, e.Reader})
				s.edges = append(s.edges, e)
			}
		}
	}
	return s
}

// judge reads the single runs' results res: a writer that changes the
// reader alone is manifest with its run's order, and in a group where some
// writer does, the others are benign; when none does, all stay manifest.
func (s antiSingles) judge(res []*launcher.Result) {
	alone := map[*Edge]bool{}
	for i, e := range s.edges {
		out, msg := outcomeOf(res[i], e.Reader)
		if changed(e.RefOutcome, out) {
			alone[e] = true
			e.Order, e.Outcome, e.message = s.orders[i], out, msg
		}
	}
	for _, gr := range s.split {
		if slices.ContainsFunc(gr.edges, func(e *Edge) bool { return alone[e] }) {
			for _, e := range gr.edges {
				if !alone[e] {
					e.Status = Benign
				}
			}
		}
	}
}

// flowAncestors returns the tests that reader depends on through the Flow
// edges of reference ref that are not benign, transitively.
func (g *Graph) flowAncestors(ref, reader string) map[string]bool {
	before := map[string][]string{}
	for _, e := range g.Edges {
		if e.Reference == ref && e.Kind == Flow && e.Status != Benign {
			before[e.Reader] = append(before[e.Reader], e.Writer)
		}
	}
	need := map[string]bool{}
	stack := slices.Clone(before[reader])
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !need[t] {
			need[t] = true
			stack = append(stack, before[t]...)
		}
	}
	return need
}

// outcomeOf returns test's outcome and message in r (the last ones: the
// reader runs last).
func outcomeOf(r *launcher.Result, test string) (launcher.Outcome, string) {
	out, msg := launcher.NotRun, ""
	for _, t := range r.Tests {
		if t.Test == test {
			out, msg = t.Outcome, t.Message
		}
	}
	return out, msg
}

// changed reports whether a test that had outcome ref in the reference run
// passed where it failed or failed where it passed; skipped and not-run
// outcomes change nothing.
func changed(ref, now launcher.Outcome) bool {
	if ref == launcher.Pass {
		return now.Failed()
	}
	if ref.Failed() {
		return now == launcher.Pass
	}
	return false
}
