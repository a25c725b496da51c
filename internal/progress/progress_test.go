package progress

import (
	"strings"
	"testing"
	"time"
)

func TestLines(t *testing.T) {
	var b strings.Builder
	s := New(&b, Lines, "detect")
	clock := s.start
	s.now = func() time.Time { return clock }
	steps := []struct {
		after time.Duration
		u     Update
		want  string // "" when nothing is printed
	}{
		{time.Second, Update{Phase: "detecting", Done: 1, Planned: 10}, ""},
		{20 * time.Second, Update{Phase: "detecting", Done: 5, Planned: 10, Findings: 1}, "detect: detecting, 5/10 runs, 1 flaky, about 20s left\n"},
		{21 * time.Second, Update{Phase: "detecting", Done: 6, Planned: 10}, ""},
		{40 * time.Second, Update{Phase: "minimising", Done: 8, Planned: 0, Findings: 2, Deadline: s.start.Add(70 * time.Second)}, "detect: minimising, 8 runs, 2 flaky, at most 30s left in this phase\n"},
		{60 * time.Second, Update{Phase: "minimising", Done: 9, Planned: 100, Findings: 2, Deadline: s.start.Add(70 * time.Second)}, "detect: minimising, 9/100 runs, 2 flaky, at most 10s left in this phase\n"},
		// Later, a quarter of the time so far between lines.
		{10 * time.Minute, Update{Phase: "minimising", Done: 50, Planned: 100}, "detect: minimising, 50/100 runs, 0 flaky, about 10m0s left\n"},
		{12 * time.Minute, Update{Phase: "minimising", Done: 60, Planned: 100}, ""},
		// The rate gives 5m47s; 3m30s after the last estimate (10m0s, so
		// 6m30s now) the smoothed one is all but there.
		{13*time.Minute + 30*time.Second, Update{Phase: "minimising", Done: 70, Planned: 100}, "detect: minimising, 70/100 runs, 0 flaky, about 5m48s left\n"},
	}
	for i, st := range steps {
		before := b.Len()
		clock = s.start.Add(st.after)
		s.Update(st.u)
		if got := b.String()[before:]; got != st.want {
			t.Errorf("step %d printed %q, want %q", i, got, st.want)
		}
	}
}

func TestQuietPrintsNothing(t *testing.T) {
	var b strings.Builder
	s := New(&b, Quiet, "detect")
	s.now = func() time.Time { return s.start.Add(time.Hour) }
	s.Update(Update{Phase: "detecting", Done: 1})
	s.Finish()
	if b.Len() != 0 {
		t.Errorf("quiet printed %q", b.String())
	}
}

func TestModeFor(t *testing.T) {
	var b strings.Builder
	if m := ModeFor(&b, false); m != Lines {
		t.Errorf("a buffer gets mode %v, want lines", m)
	}
	if m := ModeFor(&b, true); m != Quiet {
		t.Errorf("quiet gets mode %v", m)
	}
}

func TestTracker(t *testing.T) {
	var got []Update
	tr := NewTracker(func(u Update) { got = append(got, u) })
	deadline := time.Unix(100, 0)
	tr.Phase("detecting", 3, deadline)
	tr.Ran()
	tr.Ran()
	tr.Found(1)
	tr.Ran()
	tr.Ran() // one more than planned
	tr.Phase("minimising", 0, time.Time{})
	tr.FoundMore(2)
	want := Update{Phase: "minimising", Done: 4, Planned: 4, Findings: 3}
	if last := got[len(got)-1]; last != want {
		t.Errorf("last update %+v, want %+v", last, want)
	}
	if got[0].Planned != 3 || got[0].Deadline != deadline {
		t.Errorf("first update %+v", got[0])
	}
	var none *Tracker
	none.Phase("x", 1, deadline)
	none.Ran()
	none.Found(2)
	none.FoundMore(1)
}

// The estimate does not jump when the plan changes: after a phase cut by
// its deadline ("at most 1m35s left in this phase") one that plans many
// more runs raises it step by step towards what the rate gives, which it
// then follows.
func TestEstimateSmoothed(t *testing.T) {
	var b strings.Builder
	s := New(&b, Lines, "verify")
	clock := s.start
	s.now = func() time.Time { return clock }
	at := func(after time.Duration, u Update) string {
		clock = s.start.Add(after)
		return s.describe(u)
	}
	// Detection: 20 of 100 orders in 2m (6 s a run), 8m by the rate, but
	// its share of the budget ends in 1m35s.
	if got := at(2*time.Minute, Update{Phase: "detecting", Done: 20, Planned: 100, Deadline: s.start.Add(2*time.Minute + 95*time.Second)}); got != "detecting, 20/100 runs, 0 flaky, at most 1m35s left in this phase" {
		t.Fatalf("detection: %q", got)
	}
	// Confirmation plans more at once: 95 runs left after 30 s, 9m30s at
	// 6 s a run. Every 30 s the estimate takes a step towards it.
	prev := 65 * time.Second // 1m35s less the 30 s
	for i := 1; i <= 12; i++ {
		done := 20 + 5*i
		rate := time.Duration(6*(120-done)) * time.Second
		clock = s.start.Add(2*time.Minute + time.Duration(i)*30*time.Second)
		left, bound, ok := s.left(Update{Phase: "confirming", Done: done, Planned: 120})
		if !ok || bound {
			t.Fatalf("step %d: ok %v, bound %v", i, ok, bound)
		}
		switch {
		case i == 1 && (left < prev || left > prev+(rate-prev)/2):
			t.Errorf("the first estimate after the plan grew is %s: from %s it jumped towards %s", left, prev, rate)
		case left < prev && left < rate:
			t.Errorf("step %d: %s after %s, while the rate gives %s: the estimate fell on its way up", i, left, prev, rate)
		case i >= 10 && (left < rate*9/10 || left > rate*11/10):
			t.Errorf("step %d: the estimate is %s, the rate %s", i, left, rate)
		}
		prev = left - 30*time.Second
	}
}
