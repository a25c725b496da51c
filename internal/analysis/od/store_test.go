package od

import (
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

func TestPositionOutcomes(t *testing.T) {
	tr := func(test string, o launcher.Outcome) launcher.TestResult {
		return launcher.TestResult{Test: test, Outcome: o, Message: test}
	}
	cases := []struct {
		name  string
		order []string
		tests []launcher.TestResult
		want  []launcher.Outcome
	}{
		{"plain", []string{"a.A#x", "a.B#y"},
			[]launcher.TestResult{tr("a.A#x", launcher.Pass), tr("a.B#y", launcher.Fail)},
			[]launcher.Outcome{launcher.Pass, launcher.Fail}},
		{"twice in one JVM", []string{"a.A#x", "a.A#x"},
			[]launcher.TestResult{tr("a.A#x", launcher.Pass), tr("a.A#x", launcher.Fail)},
			[]launcher.Outcome{launcher.Pass, launcher.Fail}},
		{"template invocations, worst wins", []string{"a.A#p", "a.B#y"},
			[]launcher.TestResult{tr("a.A#p[1]", launcher.Pass), tr("a.A#p[2]", launcher.Fail), tr("a.A#p[3]", launcher.Pass), tr("a.B#y", launcher.Pass)},
			[]launcher.Outcome{launcher.Fail, launcher.Pass}},
		{"template twice", []string{"a.A#p", "a.A#p"},
			[]launcher.TestResult{tr("a.A#p[1]", launcher.Pass), tr("a.A#p[2]", launcher.Pass), tr("a.A#p[1]", launcher.Pass), tr("a.A#p[2]", launcher.Error)},
			[]launcher.Outcome{launcher.Pass, launcher.Error}},
		{"declared method order differs", []string{"a.A#x", "a.A#y"},
			[]launcher.TestResult{tr("a.A#y", launcher.Fail), tr("a.A#x", launcher.Pass)},
			[]launcher.Outcome{launcher.Pass, launcher.Fail}},
		{"crash, then not run", []string{"a.A#x", "a.A#y", "a.B#z"},
			[]launcher.TestResult{tr("a.A#x", launcher.Pass), tr("a.A#y", launcher.Crash), tr("a.B#z", launcher.NotRun)},
			[]launcher.Outcome{launcher.Pass, launcher.Crash, ""}},
	}
	for _, c := range cases {
		got := positionOutcomes(c.order, c.tests)
		var outcomes []launcher.Outcome
		for _, g := range got {
			outcomes = append(outcomes, g.outcome)
		}
		if !slices.Equal(outcomes, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, outcomes, c.want)
		}
	}
}

func TestStoreAnswersForPrefixes(t *testing.T) {
	s := newStore()
	run := func(label string, order []string, outcomes ...launcher.Outcome) {
		r := &launcher.Result{Order: order}
		for i, o := range outcomes {
			r.Tests = append(r.Tests, launcher.TestResult{Test: order[i], Outcome: o, Message: "m-" + label})
		}
		s.add(label, r)
	}
	run("one", []string{"x", "v", "y"}, launcher.Pass, launcher.Fail, launcher.Pass)
	run("two", []string{"x", "v"}, launcher.Pass, launcher.Pass)
	run("three", []string{"v", "v"}, launcher.Pass, launcher.Fail)
	run("four", []string{"y"}, launcher.Skipped)

	if got := s.get([]string{"x", "v"}); got.tally != (tally{pass: 1, fail: 1}) || got.label != "one" || got.message != "m-one" {
		t.Errorf("x,v: %+v", got)
	}
	if got := s.get([]string{"x"}); got.tally != (tally{pass: 2}) {
		t.Errorf("x: %+v", got)
	}
	if got := s.get([]string{"y"}); got.runs() != 0 || got.skipped != 1 {
		t.Errorf("y alone: %+v", got)
	}
	if got := s.get([]string{"v", "x"}); got.runs() != 0 {
		t.Errorf("never run: %+v", got)
	}
	var orders [][]string
	for _, o := range s.observed("v", false) {
		orders = append(orders, o.order)
	}
	if want := [][]string{{"v"}, {"x", "v"}}; !slices.EqualFunc(orders, want, slices.Equal) {
		t.Errorf("observed v: %v, want %v", orders, want)
	}
	if rep := s.observed("v", true); len(rep) != 1 || !slices.Equal(rep[0].order, []string{"v", "v"}) || !rep[0].fails() {
		t.Errorf("observed v repeated: %+v", rep)
	}
}
