package od

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// TestEvidenceSaysWhichFailure checks that evidence names a failure with the
// launcher's outcome (an exception is "error", as run-order says), not "fail".
func TestEvidenceSaysWhichFailure(t *testing.T) {
	s := newStore()
	order := []string{"a.P#p", "a.V#t"}
	for _, o := range []launcher.Outcome{launcher.Pass, launcher.Error, launcher.Fail} {
		s.add("confirm", &launcher.Result{Order: order, Tests: []launcher.TestResult{
			{Test: "a.P#p", Outcome: launcher.Pass},
			{Test: "a.V#t", Outcome: o, Message: string(o)},
		}})
	}
	o := s.get(order)
	if o.failure != launcher.Error || o.message != "error" {
		t.Errorf("first failure %q %q, want error", o.failure, o.message)
	}
	tests := []struct {
		obs  Observation
		want string
	}{
		{Observation{Pass: 2}, "pass"},
		{Observation{Fail: 3, Failure: launcher.Error}, "error"},
		{Observation{Fail: 1, Failure: launcher.Timeout}, "timeout"},
		{Observation{Pass: 1, Fail: 2, Failure: launcher.Fail}, "pass 1, fail 2"},
		{Observation{Pass: 2, Fail: 1, Failure: launcher.Crash}, "pass 2, crash 1"},
	}
	for _, tt := range tests {
		if got := outcomeWord(tt.obs); got != tt.want {
			t.Errorf("outcomeWord(%+v) = %q, want %q", tt.obs, got, tt.want)
		}
	}
}

// exitingSuite runs orders in which the class fixture of a.Exit ends the
// JVM: its first test in an order crashes and every test after it gets
// no result, as a System.exit in @BeforeClass does (issue 53, item 13);
// a.Hang#slow times out whenever it runs after a.Stable#one, and passes
// otherwise.
type exitingSuite struct{}

func (exitingSuite) RunAll(_ context.Context, orders [][]string) ([]*launcher.Result, error) {
	var out []*launcher.Result
	for _, order := range orders {
		r := &launcher.Result{Order: order}
		ended, stable := false, false
		for _, id := range order {
			o := launcher.Pass
			switch {
			case ended:
				o = launcher.NotRun
			case testid.ClassOf(id) == "a.Exit":
				o, ended = launcher.Crash, true
			case id == "a.Hang#slow" && stable:
				o = launcher.Timeout
			}
			stable = stable || id == "a.Stable#one"
			r.Tests = append(r.Tests, launcher.TestResult{Test: id, Outcome: o})
		}
		out = append(out, r)
	}
	return out, nil
}

// TestNeverRanNamesTestsWithoutAnOutcome: the tests that crashed or got
// no result in every run are NeverRan (not those Skip names, nor one that
// timed out in some runs and passed in others), so that a clean-looking
// count can say what did not run.
func TestNeverRanNamesTestsWithoutAnOutcome(t *testing.T) {
	tests := []string{"a.Exit#one", "a.Exit#two", "a.Exit#three", "a.Hang#slow", "a.Stable#one", "a.Stable#two", "a.Zed#skip"}
	res, err := Run(context.Background(), exitingSuite{}, Config{Tests: tests, Seed: 1, Workers: 2, Budget: time.Hour, Skip: map[string]bool{"a.Zed#skip": true}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.Exit#one", "a.Exit#two", "a.Exit#three"}; !slices.Equal(res.Coverage.NeverRan, want) {
		t.Errorf("NeverRan = %v, want %v", res.Coverage.NeverRan, want)
	}
	if got := res.Coverage.Report().NeverRan; !slices.Equal(got, res.Coverage.NeverRan) {
		t.Errorf("report's neverRan = %v", got)
	}
}
