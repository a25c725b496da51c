package chaos

import (
	"context"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// TestEarlyWorkWhileTheCombinedRunGoesOn reports the combined run's tests
// as they end: the control runs and the first round of its failures start
// before it has ended, and the analysis judges them as it would after it.
// Each failing test gets ControlRuns control runs in all, whichever batch
// it was planned in, and one that fails a control run is NOD. The
// runner's delays run on the bubble's fake clock.
func TestEarlyWorkWhileTheCombinedRunGoesOn(t *testing.T) {
	synctest.Test(t, testEarlyWorkWhileTheCombinedRunGoesOn)
}

func testEarlyWorkWhileTheCombinedRunGoesOn(t *testing.T) {
	var unperturbed atomic.Int32
	r := &fakeRunner{stream: true, slowCombined: 400 * time.Millisecond, suite: map[string]behaviour{
		"p.A#dice": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
		// Hits no call site, fails in the combined run and in the third
		// unperturbed run (the second control run, the suite's one first).
		"p.B#flips": {fails: func(on map[string]bool) bool {
			if on["chaos=RANDOM_MAX+LOCALE"] {
				return true
			}
			if !on["chaos=RANDOM_MAX"] && !on["chaos=LOCALE"] {
				return unperturbed.Add(1) == 3
			}
			return false
		}},
		"p.C#ok":     {},
		"p.D#locale": {sites: map[string][]siteAt{"LOCALE": {localeSite}}, fails: anyOf("LOCALE")},
	}}
	order := []string{"p.A#dice", "p.B#flips", "p.C#ok", "p.D#locale"}
	res, err := Run(context.Background(), r, Config{Tests: order, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{{"p.A#dice", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}, {"p.D#locale", "LOCALE", true, []report.CallSite{cs(localeSite)}}}
	if got := summarize(res.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	if want := []NOD{{Test: "p.B#flips", Runs: 6, Failures: 1, PerturbedRuns: 1, PerturbedFailures: 1}}; !reflect.DeepEqual(rates(res.NOD), want) {
		t.Errorf("nod = %+v, want %+v", res.NOD, want)
	}
	controls := map[string]int{}
	for _, j := range r.jobs {
		if !perturbs(j) && len(j.Order) < len(order) {
			for _, e := range j.Order {
				controls[e]++
			}
		}
	}
	if want := map[string]int{"p.A#dice": ControlRuns, "p.B#flips": ControlRuns, "p.D#locale": ControlRuns}; !reflect.DeepEqual(controls, want) {
		t.Errorf("control runs per test = %v, want %v", controls, want)
	}
	if r.duringCombined < 2 {
		t.Errorf("%d jobs started while the combined run ran (jobs %q), want the unperturbed run's and early ones", r.duringCombined, jobNames(r))
	}
}

// jobNames names r's jobs by their options and orders.
func jobNames(r *fakeRunner) []string {
	var out []string
	for _, j := range r.jobs {
		out = append(out, strings.Join(encoded(j.AgentOptions), ",")+" "+strings.Join(j.Order, ","))
	}
	return out
}

// TestEarlyWorkCutByTheBudgetRunsAgain lets the budget end while an early
// run goes on: the run is cut without ending the analysis' budget, and
// attribution runs it again in its share after the combined run. The
// runner's delays and the budget run on the bubble's fake clock, so the
// cut comes at 1.55s of fake time however busy the machine is.
func TestEarlyWorkCutByTheBudgetRunsAgain(t *testing.T) {
	synctest.Test(t, testEarlyWorkCutByTheBudgetRunsAgain)
}

func testEarlyWorkCutByTheBudgetRunsAgain(t *testing.T) {
	suite := map[string]behaviour{"p.E#dice": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")}}
	order := []string{"p.A#a", "p.B#b", "p.C#c", "p.D#d", "p.E#dice", "p.F#f", "p.G#g", "p.H#h"}
	for _, test := range order {
		if _, ok := suite[test]; !ok {
			suite[test] = behaviour{}
		}
	}
	// The dice test ends 1.5s into the combined run; its early first round
	// runs until 1.6s, past the budget's end at 1.55s.
	r := &fakeRunner{stream: true, slowCombined: 2400 * time.Millisecond, delay: 100 * time.Millisecond, suite: suite}
	res, err := Run(context.Background(), r, Config{Tests: order, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"),
		Workers: 2, Budget: 1550 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summarize(res.Findings), []summary{{"p.E#dice", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	if res.BudgetExhausted {
		t.Errorf("budget exhausted: the early run it cut ran again")
	}
	n := 0
	for _, name := range jobNames(r) {
		if name == "chaos=RANDOM_MAX p.E#dice" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("the first round's run ran %d times, want three (cut, then again, then confirmation's rerun): %q", n, jobNames(r))
	}
}

// While the combined run goes on, early hands out attribution's queued runs
// before control runs (a later failure's attribution need not wait); once
// it has ended, every failure is known and the longer one goes first, a
// control run's tests timed by the unperturbed run and an attribution run's
// by the combined run, so that no long run starts last.
func TestEarlyOrderOnceTheCombinedRunHasEnded(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name     string
		combined *launcher.Result // the combined run's result: nil while it runs
		queued   time.Duration    // how long the queued run's test took in the combined run
		want     earlyKind
	}{
		{"the combined run goes on", nil, ms(100), earlyFirst},
		{"ended, the control run longer", &launcher.Result{}, ms(100), earlyControl},
		{"ended, the attribution run longer", &launcher.Result{}, ms(3000), earlyFirst},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Unperturbed, each failing test took 500 ms: a control run of both, 1 s.
			baseline := &launcher.Result{Tests: []launcher.TestResult{{Test: "p.A#a", Outcome: launcher.Pass, TimeMs: 500}, {Test: "p.B#b", Outcome: launcher.Pass, TimeMs: 500}}}
			a := &analysis{cfg: Config{Tests: []string{"p.A#a", "p.B#b"}}, res: &Result{}, baseline: []*launcher.Result{baseline}}
			e := a.newEarly(mustLookup("RANDOM_MAX", "LOCALE"), 2)
			e.queue = []earlyJob{{job: launcher.Job{Order: []string{"p.A#a"}}, strategy: mustLookup("RANDOM_MAX")[0], kind: earlyFirst}}
			e.tests = []string{"p.A#a", "p.B#b"}
			e.took[testid.Parse("p.A#a").Base()] = tt.queued
			jobs := e.more([]*launcher.Result{tt.combined, {}})
			if len(jobs) != 1 || len(e.handed) != 1 || e.handed[0].kind != tt.want {
				t.Fatalf("handed %+v, want one of kind %d", e.handed, tt.want)
			}
			if tt.want == earlyControl && (perturbs(jobs[0]) || len(jobs[0].Order) != 2) {
				t.Errorf("control job %+v, want both failing tests unperturbed", jobs[0])
			}
		})
	}
}
