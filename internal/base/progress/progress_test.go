package progress

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// lockedBuffer is a strings.Builder the Shower's ticker may write to while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the lines written since the last call.
func (l *lockedBuffer) lines(from *int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()[*from:]
	*from = l.b.Len()
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")[:strings.Count(s, "\n")]
}

// TestLinesEveryInterval runs a Shower in Lines mode on a synctest
// bubble's fake clock: it prints the latest update every 15 s of wall
// time, with the time left as of then, also through 11 minutes in which
// no update arrives (issue 53, item 14: mvn -Pflaky verify printed no
// progress line for 7 to 11 minutes while long JVMs ran), and nothing
// after Finish, whose ticker ends (or the bubble would not end).
func TestLinesEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b lockedBuffer
		s := New(&b, Lines, "detect")
		start, read := time.Now(), 0
		steps := []struct {
			at   time.Duration // when the update comes
			u    *Update
			upTo time.Duration // when the lines are read
			want []string
		}{
			{time.Second, &Update{Phase: "detecting", Done: 1, Planned: 10}, 14 * time.Second, nil},
			{14 * time.Second, nil, 16 * time.Second, []string{"detect: detecting, 1/10 runs, 0 flaky, about 2m15s left"}},
			// The rate gives 30s; the estimate is smoothed from the 2m0s
			// left of the last one (see TestEstimateSmoothed).
			{20 * time.Second, &Update{Phase: "detecting", Done: 5, Planned: 10, Findings: 1}, 31 * time.Second, []string{"detect: detecting, 5/10 runs, 1 flaky, about 1m40s left"}},
			{40 * time.Second, &Update{Phase: "minimising", Done: 8, Findings: 2, Deadline: start.Add(70 * time.Second)}, 61 * time.Second,
				[]string{"detect: minimising, 8 runs, 2 flaky, at most 25s left in this phase", "detect: minimising, 8 runs, 2 flaky, at most 10s left in this phase"}},
		}
		for i, st := range steps {
			time.Sleep(time.Until(start.Add(st.at)))
			if st.u != nil {
				s.Update(*st.u)
			}
			time.Sleep(time.Until(start.Add(st.upTo)))
			synctest.Wait()
			if got := b.lines(&read); !slices.Equal(got, st.want) {
				t.Errorf("step %d: printed %q, want %q", i, got, st.want)
			}
		}
		// 11 minutes without an update: a line every 15 s all the same.
		time.Sleep(11*time.Minute + 30*time.Second)
		synctest.Wait()
		got := b.lines(&read)
		if len(got) != 46 {
			t.Errorf("%d lines in 11m30s without updates, want 46 (one every 15 s)", len(got))
		}
		for _, l := range got {
			if l != "detect: minimising, 8 runs, 2 flaky" {
				t.Errorf("line %q, want the latest update", l)
				break
			}
		}
		s.Finish()
		s.Finish()
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := b.lines(&read); len(got) > 0 {
			t.Errorf("printed %q after Finish", got)
		}
	})
}

// TestLinesBeforeTheFirstUpdate: before an analysis names its first
// phase, Lines mode says it is preparing.
func TestLinesBeforeTheFirstUpdate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b lockedBuffer
		s := New(&b, Lines, "[flaky] progress")
		defer s.Finish()
		time.Sleep(16 * time.Second)
		synctest.Wait()
		read := 0
		if got, want := b.lines(&read), []string{"[flaky] progress: preparing, 0 runs, 0 flaky"}; !slices.Equal(got, want) {
			t.Errorf("printed %q, want %q", got, want)
		}
	})
}

// TestRunsBeforeAPhaseKeepThePhase checks that runs counted before any
// phase is named show the phase shown so far, not an empty one (flaky
// chaos --explain printed "chaos: , 1 runs, 0 flaky"), and a named phase
// replaces it.
func TestRunsBeforeAPhaseKeepThePhase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b lockedBuffer
		s := New(&b, Lines, "chaos")
		defer s.Finish()
		tr := NewTracker(s.Func())
		tr.Ran()
		time.Sleep(16 * time.Second)
		synctest.Wait()
		read := 0
		if got, want := b.lines(&read), []string{"chaos: preparing, 1 runs, 0 flaky"}; !slices.Equal(got, want) {
			t.Errorf("printed %q, want %q", got, want)
		}
		tr.Phase("explaining p.T#a", 1, time.Time{})
		tr.Ran()
		time.Sleep(15 * time.Second)
		synctest.Wait()
		if got, want := b.lines(&read), []string{"chaos: explaining p.T#a, 2/2 runs, 0 flaky"}; !slices.Equal(got, want) {
			t.Errorf("printed %q, want %q", got, want)
		}
	})
}

func TestQuietPrintsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b lockedBuffer
		s := New(&b, Quiet, "detect")
		s.Update(Update{Phase: "detecting", Done: 1})
		time.Sleep(time.Hour)
		s.Finish()
		if read := 0; len(b.lines(&read)) != 0 {
			t.Errorf("quiet printed %q", b.b.String())
		}
	})
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
	synctest.Test(t, testEstimateSmoothed)
}

// testEstimateSmoothed is TestEstimateSmoothed on a synctest bubble's
// fake clock, with a Shower without a ticker (which would estimate too).
func testEstimateSmoothed(t *testing.T) {
	s := &Shower{Found: "flaky", mode: Lines, label: "verify", start: time.Now()}
	sleepTo := func(after time.Duration) { time.Sleep(time.Until(s.start.Add(after))) }
	at := func(after time.Duration, u Update) string {
		sleepTo(after)
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
		sleepTo(2*time.Minute + time.Duration(i)*30*time.Second)
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
