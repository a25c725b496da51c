package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// Bounds on time in these tests, where a bound is the point (a hang must
// end, a budget must cover an analysis), are sized from a control run of
// the same work measured on this machine at the time, never fixed: on a
// machine busy with other builds a JVM takes many times as long, and a
// fixed test timeout fired there before the first test began.

// limits are the test timeout and run timeout of a launcher whose runs
// include a test that hangs, and an analysis' budget, sized from a
// control run (see measureHangLimits, measureAnalysisLimits) so that on a
// slow or busy machine only a hang reaches them.
type limits struct {
	Test   time.Duration // launcher.Options.TestTimeout: a test, or the runner's start before the first one, without progress
	Run    time.Duration // launcher.Options.RunTimeout: one JVM
	Budget time.Duration // chaos.Config.Budget; 0 from measureHangLimits
}

// The least timeouts measureHangLimits gives, the tests' fixed ones from
// before they were sized: a quiet machine's control run takes about a
// second.
const (
	minTestTimeout = 3 * time.Second
	minRunTimeout  = time.Minute
)

// measureHangLimits runs control (the tests of the runs to come less those
// that hang or end their JVM: the same work up to the hang) once in a fresh
// JVM of p without a test timeout, and sizes the limits from how long that
// JVM took on this machine now (see limitsFrom).
func measureHangLimits(t *testing.T, p *prepared, control []string) limits {
	t.Helper()
	return limitsFrom(t, measureControl(t, p.setup, launcher.Options{}, control), minTestTimeout, minRunTimeout)
}

// limitsFrom sizes a launcher's timeouts from c, a control run's JVM. No
// stretch between two of the runner's events in the runs to come (its
// start, a test's start or end) is longer than such a whole JVM, start-up
// included, so the test timeout (three such JVMs, at least minTest) cannot
// fire on a slow machine before a test that does not hang; a JVM that
// hangs once takes a control run and the test timeout, and the run timeout
// (at least minRun) leaves ten more control runs.
func limitsFrom(t *testing.T, c, minTest, minRun time.Duration) limits {
	t.Helper()
	lim := limits{Test: max(minTest, 3*c)}
	lim.Run = max(minRun, lim.Test+10*c)
	t.Logf("control run: %s; test timeout %s, run timeout %s", c.Round(100*time.Millisecond), lim.Test.Round(100*time.Millisecond), lim.Run.Round(100*time.Millisecond))
	return lim
}

// measureControl runs order once in a JVM of a launcher of setup with
// opts (less its timeouts) and returns how long the JVM took, start to end; it
// fails t unless the JVM ran every test to its end (a control run holds no
// hang and no exit; a test's failure does not make it shorter).
func measureControl(t *testing.T, setup *mvn.TestSetup, opts launcher.Options, order []string) time.Duration {
	t.Helper()
	opts.TestTimeout, opts.RunTimeout = 0, 10*time.Minute
	l, err := newLauncher(setup, javaBin(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := runOrders(t, l, order)[0]
	for _, tr := range r.Tests {
		if tr.Outcome == launcher.NotRun || tr.Outcome == launcher.Timeout || tr.Outcome == launcher.Crash {
			t.Fatalf("control run of %d tests: %s = %s\n%s", len(order), tr.Test, tr.Outcome, describe(r))
		}
	}
	if len(r.Tests) < len(order) || r.Exit.Status != 0 {
		t.Fatalf("control run of %d tests: %d results, exit %+v\n%s", len(order), len(r.Tests), r.Exit, describe(r))
	}
	return r.Duration
}

// context returns a context for jvms JVMs in a row, each bounded by the
// run timeout, and with an analysis' budget, with one run timeout and the
// budget again to spare: only a launcher or analysis that ignored its own
// bounds reaches it.
func (lim limits) context(jvms int) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Duration(jvms+1)*lim.Run+2*lim.Budget)
}

// Chaos analyses' floors, as the tests had them on a quiet machine (with
// their own test timeouts, see measureAnalysisLimits), which also cover
// what does not grow with the machine's load, the perturbations' own
// sleeps and delays (SLEEP_INCREASE's 2 s per sleep, NETWORK_DELAY's
// seconds per connect).
const (
	minChaosRunTimeout = 2 * time.Minute
	minChaosBudget     = 10 * time.Minute
)

// measureAnalysisLimits runs tests, a fixture's suite, unperturbed once in
// a JVM of a launcher of setup with opts (the analysis' launcher's, so
// that the JVM starts as the analysis' do), and sizes a chaos analysis of
// runs suite runs (single mode's strategies and its unperturbed run) from
// it: the launcher's timeouts as limitsFrom does (the test timeout at
// least minTest, the test's own on a quiet machine), and a budget of three times
// the runs one after another on top of minChaosBudget. The perturbed runs
// get two thirds of a budget, twice what they cost even when the cores run
// them one at a time; attribution's third covers its reruns, each a JVM of
// the suite or less.
func measureAnalysisLimits(t *testing.T, setup *mvn.TestSetup, opts launcher.Options, tests []string, runs int, minTest time.Duration) limits {
	t.Helper()
	c := measureControl(t, setup, opts, tests)
	lim := limitsFrom(t, c, minTest, minChaosRunTimeout)
	lim.Budget = minChaosBudget + time.Duration(3*runs)*c
	t.Logf("budget for %d suite runs: %s", runs, lim.Budget.Round(time.Second))
	return lim
}
