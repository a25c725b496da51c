package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// TestDataflow records the data dependencies of the dataflow fixture in
// an instrumented reference run of the original order and refines
// them in real JVMs: the PraDeT paper's example resolves
// source-first (t3 -> t2 tested first and manifest, t3 -> t1 deferred
// while it would make a cycle, then benign; t2 -> t1 benign), the
// counter's shared reads are tested-benign, and the findings are exactly
// the fixture's expected ones, each with its writer and root (the victims
// of a file in the working directory and of the default locale included).
func TestDataflow(t *testing.T) {
	t.Parallel()
	p := fixture(t, "dataflow")
	ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
	defer cancel()
	infos, err := p.launcher.List(ctx, launcher.Selection{TestClassesDir: p.setup.TestClassesDir})
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	for _, ti := range infos {
		tests = append(tests, ti.ID)
	}
	var log []string
	sink := func(_, line string) { log = append(log, line) }
	res, err := dataflow.Run(ctx, p.launcher, dataflow.Config{Tests: tests, Confirmations: 2, Log: logs.New(sink, sink)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", strings.Join(log, "\n"))

	const paper = "fixture.dataflow.PaperTest#"
	edge := func(reader, writer string) *dataflow.Edge {
		for _, e := range res.Graph.Edges {
			if e.Reader == reader && e.Writer == writer && e.Reference == "original" {
				return e
			}
		}
		t.Fatalf("no data dependency %s -> %s in the original reference run", reader, writer)
		return nil
	}
	for _, c := range []struct {
		reader, writer string
		root           string
		status         dataflow.Status
		order          []string
	}{
		{paper + "t3", paper + "t2", "fixture.dataflow.PaperTest.foo", dataflow.Manifest, []string{paper + "t1", paper + "t3"}},
		{paper + "t2", paper + "t1", "fixture.dataflow.PaperTest.initialized", dataflow.Benign, []string{paper + "t2"}},
		{paper + "t3", paper + "t1", "fixture.dataflow.PaperTest.initialized", dataflow.Benign, []string{paper + "t2", paper + "t3"}},
		{"fixture.dataflow.CounterTest#bCounts", "fixture.dataflow.CounterTest#aCounts", "fixture.dataflow.Counter.hits", dataflow.Benign, []string{"fixture.dataflow.CounterTest#bCounts"}},
	} {
		e := edge(c.reader, c.writer)
		if !slices.ContainsFunc(e.Roots, func(r dataflow.Root) bool { return r.Name == c.root }) {
			t.Errorf("%s -> %s: roots %v, want %s among them", c.reader, c.writer, e.Roots, c.root)
		}
		if e.Status != c.status || !slices.Equal(e.Order, c.order) {
			t.Errorf("%s -> %s: %s in %v, want %s in %v", c.reader, c.writer, e.Status, e.Order, c.status, c.order)
		}
	}
	// Source-first: t3 -> t2 was the first edge of the paper's component tested.
	first := slices.IndexFunc(log, func(l string) bool { return strings.Contains(l, paper) && strings.Contains(l, " is ") })
	if first < 0 || !strings.HasPrefix(log[first], "dataflow: "+paper+"t3 -> "+paper+"t2 is manifest") {
		t.Errorf("first tested edge of the paper's example: %q, want t3 -> t2 manifest", log[max(first, 0)])
	}
	if n := res.Graph.Count(dataflow.Untested); n != 0 {
		t.Errorf("%d edges untested, want 0", n)
	}

	want := p.expected.Findings
	if len(res.Findings) != len(want) {
		t.Fatalf("%d findings, want %d: %+v", len(res.Findings), len(want), res.Findings)
	}
	for _, w := range want {
		i := slices.IndexFunc(res.Findings, func(f dataflow.Finding) bool { return f.Test == w.Test })
		if i < 0 {
			t.Errorf("no finding for %s", w.Test)
			continue
		}
		f := res.Findings[i]
		if string(f.Kind) != w.Kind || fmt.Sprint(f.Polluters) != fmt.Sprint(nonNil(w.Polluters)) || fmt.Sprint(f.Setters) != fmt.Sprint(nonNil(w.Setters)) {
			t.Errorf("%s: %s polluters %v setters %v, want %s %v %v", f.Test, f.Kind, f.Polluters, f.Setters, w.Kind, w.Polluters, w.Setters)
		}
		if got := f.PollutedState(); fmt.Sprint(got) != fmt.Sprint(w.PollutedState) {
			t.Errorf("%s: polluted state %v, want %v", f.Test, got, w.PollutedState)
		}
	}
	t.Logf("%d JVM runs: %d reference, %d refinement, %d confirmation", res.Runs, res.ReferenceRuns, res.RefinementRuns, res.ConfirmationRuns)
}

// nonNil returns groups, or an empty list for none.
func nonNil(groups [][]string) [][]string {
	if groups == nil {
		return [][]string{}
	}
	return groups
}

// TestDataflowJUnit4 runs the dataflow strategy alone on the junit4
// fixture: it finds every known victim and brittle with exactly its
// polluters or setters (the pair of polluters of HealthCheckTest included)
// and nothing else, in fewer JVM runs than the suite has tests (the order
// generators' isolation runs alone need one per test).
func TestDataflowJUnit4(t *testing.T) {
	t.Parallel()
	p := fixture(t, "junit4")
	ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
	defer cancel()
	infos, err := p.launcher.List(ctx, launcher.Selection{TestClassesDir: p.setup.TestClassesDir, Includes: p.setup.Includes, Excludes: p.setup.Excludes})
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	for _, ti := range infos {
		tests = append(tests, ti.ID)
	}
	fixtures, _ := od.FixtureClasses(infos)
	res, err := dataflow.Run(ctx, p.launcher, dataflow.Config{Tests: tests, Confirmations: 1, Fixtures: fixtures})
	if err != nil {
		t.Fatal(err)
	}
	want := append(p.expected.ofKind("od-victim"), p.expected.ofKind("od-brittle")...)
	if len(res.Findings) != len(want) {
		t.Errorf("%d findings, want %d", len(res.Findings), len(want))
	}
	for _, w := range want {
		i := slices.IndexFunc(res.Findings, func(f dataflow.Finding) bool { return f.Test == w.Test })
		if i < 0 {
			t.Errorf("no finding for %s", w.Test)
			continue
		}
		f := res.Findings[i]
		if string(f.Kind) != w.Kind || fmt.Sprint(f.Polluters) != fmt.Sprint(nonNil(w.Polluters)) || fmt.Sprint(f.Setters) != fmt.Sprint(nonNil(w.Setters)) {
			t.Errorf("%s: %s polluters %v setters %v, want %s %v %v", f.Test, f.Kind, f.Polluters, f.Setters, w.Kind, w.Polluters, w.Setters)
		}
	}
	if res.Runs >= len(tests) {
		t.Errorf("%d JVM runs for %d tests, want fewer", res.Runs, len(tests))
	}
	if n := res.Graph.Count(dataflow.Benign); n == 0 {
		t.Errorf("no tested-benign dependency; the fixture's shared reads (PriceCache, ConnectionPool) are benign")
	}
	t.Logf("%d JVM runs: %d reference, %d refinement; %d dependencies, %d manifest, %d benign",
		res.Runs, res.ReferenceRuns, res.RefinementRuns, len(res.Graph.Edges), res.Graph.Count(dataflow.Manifest), res.Graph.Count(dataflow.Benign))
}
