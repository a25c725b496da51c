// The analysis' output: Finding, Observation, Coverage and Result, and
// reporting, which builds them from what the stages recorded (with the
// sweep that makes every test that flipped in one order NOD).

package od

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// Finding is one flaky test the analysis confirmed.
type Finding struct {
	Test string
	Kind report.Kind
	// Polluters, Setters and Cleaners are groups of tests, each minimal and
	// in the order they ran.
	Polluters [][]string
	Setters   [][]string
	Cleaners  [][]string
	// FailingOrder and PassingOrder are the shortest orders (the test
	// last) in which the test failed and passed.
	FailingOrder []string
	PassingOrder []string
	Message      string
	Evidence     []Observation
	// Runs and Fails count all the test's runs with an outcome and the
	// failed ones (NOD findings).
	Runs, Fails int
	// Incomplete says the budget ended before its minimisation did.
	Incomplete bool
	// DetectedAfter and DetectedIn say when the test was first seen both
	// passing and failing: after how many orders run, how long into the analysis.
	DetectedAfter int
	DetectedIn    time.Duration
}

// milestone is when something happened in the analysis.
type milestone struct {
	orders  int
	elapsed time.Duration
}

// Observation is what the runs of one order showed for a finding's test.
type Observation struct {
	Label   string   // the step or generated order that ran it first
	Order   []string // the order up to the finding's test
	Pass    int
	Fail    int
	Failure launcher.Outcome // the first failure's outcome (fail, error, timeout, crash)
	Message string
}

// Coverage says how much of the suite's order space the analysis explored.
type Coverage struct {
	Seed            int64
	Tests           int            // tests in the suite
	Orders          int            // orders run (JVMs started) by the analysis
	Generators      map[string]int // orders run per generator
	Rounds          int            // exploration orders run
	RoundsPlanned   int            // exploration orders planned
	Pairs           int            // ordered pairs of distinct tests
	PairsCovered    int            // of those, the ones run right after each other in the original or an exploration order (with a Focus that names shared state: the first before the second with no writer of that state between)
	TestsAlone      int            // tests run alone
	Budget          time.Duration
	BudgetWhy       string // how the budget was chosen when the caller left it to the analysis
	BudgetExhausted bool
	Unconfirmed     []string // tests whose outcome changed but could not be confirmed in the budget
	Duration        time.Duration
	// Minimising is how long confirming and minimising the candidates took.
	Minimising time.Duration
	// Confirmed and Minimised are how long into the analysis the last
	// candidate was confirmed (or rejected) and the last confirmed one
	// minimised (zero: the analysis did not get there).
	Confirmed, Minimised time.Duration
	// Unminimised are the confirmed OD tests whose minimisation the budget
	// cut: their findings may lack polluters, state-setters or cleaners.
	Unminimised []string
	// Serial are the tests that clashed with another JVM over a resource
	// (a fixed port, a file lock): every order holding them ran alone.
	Serial []string
	// NeverRan are the tests (not skipped by Config.Skip) that some order
	// held but that crashed, timed out or got no result in every run
	// (a System.exit or a hang in their class fixtures, a JVM that ended
	// before them): nothing was judged of them.
	NeverRan []string
	// JVMs is how many test JVMs the analysis started and PeakJVMs the
	// most that ran at once, as the launcher counted them (the caller sets
	// them: see launcher.Launcher.JVMsSince).
	JVMs, PeakJVMs int
	// Workers is how many JVMs ran at once, and WorkersWhy how that was
	// chosen when the analysis sized them (Config.AutoWorkers).
	Workers    int
	WorkersWhy string
	// WarmOrders counts the exploration orders that ran in warm JVMs (of
	// Orders), and WarmJVMs those JVMs (Config.Warm).
	WarmOrders, WarmJVMs int
	// JVMTime and JVMCPU sum the wall and CPU time of the JVMs the
	// analysis ran; Efficiency is JVMTime over Workers times Duration: how
	// busy the workers were.
	JVMTime, JVMCPU time.Duration
	Efficiency      float64
}

// Result is an analysis' findings and coverage.
type Result struct {
	Findings []Finding
	Coverage Coverage
	// Runs are the runs of a shard (Config.Shard), for its partial report.
	Runs []RecordedRun
	// Parts say what a merge's runs (Config.Recorded) checked of each
	// shard's part.
	Parts []PartCheck
}

// reporting is the step after the stages: it takes what they recorded
// (the findings, the outcomes in the prefix store, the coverage counters)
// and gives the Result.
type reporting struct {
	*recorder
}

// sweepNOD records a NOD finding wherever a test's outcome differed
// between runs of the same order, replacing any other finding for it.
// With a Focus, only its targets are judged.
func (rp *reporting) sweepNOD() {
	judged := rp.s.tests
	if rp.cfg.Focus != nil {
		judged = rp.targets
	}
	for _, t := range judged {
		if rp.cfg.Skip[t] || (rp.cfg.Focus != nil && len(rp.cfg.Focus.Via[t]) > 0) {
			continue
		}
		var flip *obs
		var pass, fail int
		for _, o := range rp.unexplained(t, rp.st.all(t)) {
			pass += o.pass
			fail += o.fail
			if o.mixed() && (flip == nil || len(o.order) < len(flip.order)) {
				flip = &o
			}
		}
		if flip == nil {
			continue
		}
		rp.findings[t] = map[report.Kind]*Finding{report.NOD: {
			Test: t, Kind: report.NOD, FailingOrder: flip.order, PassingOrder: flip.order,
			Message: strings.TrimSpace(fmt.Sprintf("%s (passed %d and failed %d times in the same order)", report.FirstLine(flip.message), flip.pass, flip.fail)),
			Runs:    pass + fail,
			Fails:   fail,
		}}
	}
}

// result builds the findings: NOD wherever a test's outcome differed
// between runs of the same order (sweepNOD), then the confirmed ones, and
// the coverage. With a Focus, only its targets are judged, NOD included.
func (rp *reporting) result() *Result {
	rp.sweepNOD()
	res := &Result{Coverage: rp.cov, Runs: rp.runs}
	for _, t := range rp.s.tests {
		for _, kind := range []report.Kind{report.NOD, report.ODVictim, report.ODBrittle, report.NIO} {
			if f := rp.findings[t][kind]; f != nil && rp.cfg.Focus.reported(f) {
				f.Evidence = rp.evidence(f)
				f.DetectedAfter, f.DetectedIn = rp.flipped[t].orders, rp.flipped[t].elapsed
				f.Polluters, f.Setters, f.Cleaners = sortedGroups(f.Polluters), sortedGroups(f.Setters), sortedGroups(f.Cleaners)
				res.Findings = append(res.Findings, *f)
				if f.Incomplete && (kind == report.ODVictim || kind == report.ODBrittle) {
					res.Coverage.Unminimised = append(res.Coverage.Unminimised, t)
				}
			}
		}
	}
	for _, t := range rp.targets {
		if rp.findings[t] != nil {
			continue
		}
		var pass, fail bool
		for _, o := range rp.unexplained(t, rp.st.all(t)) {
			pass, fail = pass || o.pass > 0, fail || o.fail > 0
		}
		if pass && fail {
			res.Coverage.Unconfirmed = append(res.Coverage.Unconfirmed, t)
		}
	}
	if len(rp.cfg.Recorded) > 0 {
		res.Parts = rp.partChecks()
	}
	for _, t := range rp.s.tests {
		// A merge counts the shards' runs alone (candidates' evidence).
		if rp.st.get([]string{t}).runs() > 0 || rp.warm.get([]string{t}).runs() > 0 {
			res.Coverage.TestsAlone++
		}
		if rp.tried[t] && !rp.completed[t] && !rp.cfg.Skip[t] {
			res.Coverage.NeverRan = append(res.Coverage.NeverRan, t)
		}
	}
	res.Coverage.PairsCovered = len(rp.pairs)
	if rp.cfg.Focus != nil {
		res.Coverage.PairsCovered = 0
		for p := range rp.required() {
			if rp.pairs[p] {
				res.Coverage.PairsCovered++
			}
		}
	}
	res.Coverage.Duration = time.Since(rp.start)
	res.Coverage.Workers = rp.cfg.Workers
	if res.Coverage.Duration > 0 {
		res.Coverage.Efficiency = float64(res.Coverage.JVMTime) / float64(time.Duration(rp.cfg.Workers)*res.Coverage.Duration)
	}
	return res
}

// evidence lists, for a finding, the runs of its failing and passing orders
// and the generated order that first showed the flip.
func (rp *reporting) evidence(f *Finding) []Observation {
	var out []Observation
	add := func(label string, o obs) {
		if o.runs() == 0 || slices.ContainsFunc(out, func(x Observation) bool { return slices.Equal(x.Order, o.order) }) {
			return
		}
		if o.label != genConfirm && o.label != genMinimise {
			label += ", first run by " + o.label
		}
		out = append(out, Observation{Label: label, Order: o.order, Pass: o.pass, Fail: o.fail, Failure: o.failure, Message: o.message})
	}
	if f.Kind == report.NOD {
		add("same order", rp.st.get(f.FailingOrder))
		return out
	}
	add("failing order", rp.st.get(f.FailingOrder))
	add("passing order", rp.st.get(f.PassingOrder))
	for _, o := range rp.st.observed(f.Test, false) {
		if o.label == genConfirm || o.label == genMinimise || len(o.order) < 2 {
			continue
		}
		if (f.Kind == report.ODVictim && o.fail > 0) || (f.Kind == report.ODBrittle && o.pass > 0) {
			add("found", o)
			break
		}
	}
	return out
}

// add records a finding, replacing one of the same test and kind.
func (rec *recorder) add(f *Finding) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.findings[f.Test] == nil {
		rec.findings[f.Test] = map[report.Kind]*Finding{}
	}
	rec.findings[f.Test][f.Kind] = f
}
