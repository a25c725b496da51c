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
		{40 * time.Second, Update{Phase: "minimising", Done: 8, Planned: 0, Findings: 2, Deadline: s.start.Add(70 * time.Second)}, "detect: minimising, 8 runs, 2 flaky, at most 30s left\n"},
		{60 * time.Second, Update{Phase: "minimising", Done: 9, Planned: 100, Findings: 2, Deadline: s.start.Add(70 * time.Second)}, "detect: minimising, 9/100 runs, 2 flaky, at most 10s left\n"},
		// Later, a quarter of the time so far between lines.
		{10 * time.Minute, Update{Phase: "minimising", Done: 50, Planned: 100}, "detect: minimising, 50/100 runs, 0 flaky, about 10m0s left\n"},
		{12 * time.Minute, Update{Phase: "minimising", Done: 60, Planned: 100}, ""},
		{13*time.Minute + 30*time.Second, Update{Phase: "minimising", Done: 70, Planned: 100}, "detect: minimising, 70/100 runs, 0 flaky, about 5m47s left\n"},
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
