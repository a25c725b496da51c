package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/tools/bench/suite"
)

// PraDeT's published figures (ICST'18, Table I, serial, one machine): the
// data dependencies it collected and refined, the manifest ones it found
// and its analysis cost, against DTDetector's exhaustive search.
const pradetFigures = "PraDeT (ICST'18, Table I, serial): Crystal 76 tests, 93 data dependencies, 8 manifest in 46 s; " +
	"XML Security 108, 118, 4 in 146 s; Synoptic 118, 204, 2 in 106 s; jodatime 3,861 tests, 37,418 data dependencies, " +
	"4 manifest in 14,914 s (about 4 hours), where DTDetector's exhaustive search did not finish in 2 days and its isolated " +
	"and reversed runs found 1 each"

// dfmd collects the data-dependency benchmark's table in Markdown, for
// docs/order-dependent.md's Data dependencies section.
var dfmd strings.Builder

// dfFigures is what the data-dependency benchmark measured on one module.
type dfFigures struct {
	tests, known int // tests, and known victims and brittles
	// dataflow alone: JVM runs, wall time, known findings reported with
	// their polluters or setters, other findings, dependencies tested benign
	// and left untested.
	dfRuns                                 int
	dfTime                                 time.Duration
	dfFound, dfOther, dfBenign, dfUntested int
	// the order generators within dataflow's wall time, and (on the
	// fixtures) their full analysis with its default budget.
	budgeted odRun
	full     *odRun
}

// odRun is one analysis of the order generators.
type odRun struct {
	runs    int
	time    time.Duration
	found   int // known findings reported with their polluters or setters
	flipped int // orders until every known test flipped; 0 when not all did
}

// runDataflow runs the data-dependency benchmark on the fixtures and, when
// suiteToo, on the generated suite.
func runDataflow(fixtures []string, suiteToo bool, seed int64) error {
	if (len(fixtures) == 0 || fixtures[0] == "") && !suiteToo {
		return nil
	}
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	fmt.Printf("\ndata dependencies (dataflow) vs the order generators (seed %d): JVM runs and wall time until every known victim and brittle is reported with its polluter or setter\n", seed)
	fmt.Printf("%-14s %5s %5s | %5s %8s %5s %6s %6s %8s | %5s %5s | %5s %8s %5s %8s\n", "module", "tests", "known", "runs", "time", "found", "other", "benign", "untested",
		"runs", "found", "runs", "time", "found", "flipped")
	fmt.Fprintf(&dfmd, "Data dependencies against the order generators (seed %d, 3 confirmations, with the class-data sharing archive): JVM runs and wall time until every known victim and brittle is reported with its polluter or setter; the order generators within the wall-clock time dataflow took, and (on the fixtures) their full analysis with its default budget:\n\n", seed)
	dfmd.WriteString("| module | tests | known OD | dataflow: runs, time | found | tested-benign (untested) | orders in dataflow's time: runs, found | orders, full analysis: runs, time, found (all flipped after) |\n|---|---|---|---|---|---|---|---|\n")
	row := func(name string, f dfFigures) {
		full, fullMd := "", "—"
		if o := f.full; o != nil {
			flipped := fmt.Sprintf("%d orders", o.flipped)
			if o.flipped == 0 {
				flipped = "not all"
			}
			full = fmt.Sprintf("%5d %8s %5d %8s", o.runs, o.time.Round(100*time.Millisecond), o.found, flipped)
			fullMd = fmt.Sprintf("%d runs, %s, %d of %d (%s)", o.runs, secs(o.time), o.found, f.known, flipped)
		}
		b := f.budgeted
		fmt.Printf("%-14s %5d %5d | %5d %8s %5d %6d %6d %8d | %5d %5d | %s\n", name, f.tests, f.known, f.dfRuns, f.dfTime.Round(100*time.Millisecond),
			f.dfFound, f.dfOther, f.dfBenign, f.dfUntested, b.runs, b.found, full)
		fmt.Fprintf(&dfmd, "| %s | %d | %d | %d runs, %s | %d of %d (%d other) | %d (%d) | %d runs (%s), %d of %d | %s |\n", name, f.tests, f.known,
			f.dfRuns, secs(f.dfTime), f.dfFound, f.known, f.dfOther, f.dfBenign, f.dfUntested, b.runs, secs(b.time), b.found, f.known, fullMd)
	}
	for _, name := range fixtures {
		if name == "" {
			continue
		}
		f, err := benchDataflowFixture(name, seed, jars)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		row(name, f)
	}
	if suiteToo {
		f, err := benchDataflowSuite(seed, jars)
		if err != nil {
			return fmt.Errorf("generated suite: %w", err)
		}
		row("generated", f)
	}
	fmt.Fprintf(&dfmd, "\n%s.\n\n", pradetFigures)
	fmt.Println(pradetFigures)
	return nil
}

// benchDataflowFixture measures both strategies on a fixture against its
// expected.json's victims and brittles.
func benchDataflowFixture(name string, seed int64, jars agent.Jars) (dfFigures, error) {
	dir, err := fixtureCopy(name)
	if err != nil {
		return dfFigures{}, err
	}
	defer os.RemoveAll(dir)
	expected, _, err := expectedFindings(dir) // the data-dependency fixtures are single modules
	if err != nil {
		return dfFigures{}, err
	}
	known := map[string]string{}
	for _, e := range expected {
		if e.Kind == report.ODVictim || e.Kind == report.ODBrittle {
			known[e.Test] = findingKey(e.Test, e.Kind, e.Polluters, e.Setters)
		}
	}
	return benchDataflowModule(dir, known, seed, true, jars)
}

// benchDataflowSuite generates the large suite and measures both
// strategies on it, the order generators within dataflow's wall time.
func benchDataflowSuite(seed int64, jars agent.Jars) (dfFigures, error) {
	dir, err := os.MkdirTemp("", "flaky-bench-suite-")
	if err != nil {
		return dfFigures{}, err
	}
	defer os.RemoveAll(dir)
	planted, err := suite.Write(dir, suite.Default)
	if err != nil {
		return dfFigures{}, err
	}
	known := map[string]string{}
	for _, p := range planted {
		if p.Kind == report.ODVictim {
			known[p.Test] = findingKey(p.Test, p.Kind, [][]string{{p.Writer}}, nil)
		} else {
			known[p.Test] = findingKey(p.Test, p.Kind, nil, [][]string{{p.Writer}})
		}
	}
	return benchDataflowModule(dir, known, seed, false, jars)
}

// benchDataflowModule runs dataflow alone, then the order generators alone
// within dataflow's wall time and, when full, with their default budget,
// on the module in dir; known maps each known OD test to its finding's key.
func benchDataflowModule(dir string, known map[string]string, seed int64, full bool, jars agent.Jars) (dfFigures, error) {
	f := dfFigures{known: len(known)}
	ctx := context.Background()
	m, err := openSuite(ctx, dir, jars)
	if err != nil {
		return f, err
	}
	defer m.l.Close()
	f.tests = len(m.tests)

	dres, err := m.detect(ctx, pipeline.DetectOptions{Strategy: dataflow.StrategyDataflow})
	if err != nil {
		return f, err
	}
	df := dres.Dataflow
	f.dfRuns, f.dfTime = df.Runs, df.Duration
	f.dfBenign, f.dfUntested = df.Graph.Count(dataflow.Benign), df.Graph.Count(dataflow.Untested)
	for _, finding := range df.Findings {
		if known[finding.Test] == findingKey(finding.Test, finding.Kind, finding.Polluters, finding.Setters) {
			f.dfFound++
		} else {
			f.dfOther++
		}
	}

	if f.budgeted, err = benchOrders(ctx, m, pipeline.DetectOptions{Seed: seed, Budget: df.Duration}, known); err != nil {
		return f, err
	}
	if full {
		o, err := benchOrders(ctx, m, pipeline.DetectOptions{Seed: seed}, known)
		if err != nil {
			return f, err
		}
		f.full = &o
	}
	return f, nil
}

// benchOrders runs the order generators' analysis and counts the known
// findings it reports.
func benchOrders(ctx context.Context, m *benchSuite, d pipeline.DetectOptions, known map[string]string) (odRun, error) {
	var o odRun
	res, err := m.orders(ctx, d)
	if err != nil {
		return o, err
	}
	o.runs, o.time = res.Coverage.Orders, res.Coverage.Duration
	flipped := 0
	for _, finding := range res.Findings {
		if key, ok := known[finding.Test]; ok {
			flipped++
			o.flipped = max(o.flipped, finding.DetectedAfter)
			if key == findingKey(finding.Test, finding.Kind, finding.Polluters, finding.Setters) {
				o.found++
			}
		}
	}
	if flipped < len(known) {
		o.flipped = 0
	}
	return o, nil
}
