// Package progress shows how far a long analysis (detect, chaos, repair,
// verify) has come: a progress bar with the orders done and planned, the
// flaky tests found so far and an estimate of the time left on a terminal,
// a plain line every 15 s otherwise (also while no run ends), nothing when
// quiet.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Update is where an analysis stands.
type Update struct {
	Phase    string    // what it does now: "detecting", "confirming", "minimising", ...
	Done     int       // runs (JVMs) finished so far
	Planned  int       // runs planned in all, as far as known (at least Done)
	Findings int       // flaky tests found so far
	Deadline time.Time // when the budget ends; zero when none
}

// Func receives updates; analyses call it after every run. nil is allowed
// and ignored by Report.
type Func func(Update)

// Report calls f with u when f is not nil.
func Report(f Func, u Update) {
	if f != nil {
		f(u)
	}
}

// Mode says how progress is shown.
type Mode int

// The modes.
const (
	Quiet Mode = iota // nothing
	Lines             // a plain line every interval
	Bar               // a progress bar redrawn in place
)

// ModeFor chooses the mode for w: a bar on a terminal, lines otherwise,
// nothing when quiet.
func ModeFor(w io.Writer, quiet bool) Mode {
	switch {
	case quiet:
		return Quiet
	case isTerminal(w):
		return Bar
	}
	return Lines
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Shower shows updates of one analysis named by a label ("detect"). In
// Lines and Bar mode a ticker shows the latest update every interval until
// Finish, whether or not the analysis reported anything since: a phase
// whose JVMs run for minutes without ending (a long data-dependency run,
// naming a victim's polluted state) still prints a line every interval.
type Shower struct {
	// Found is the word for Update.Findings: "flaky" (the default) or,
	// for a repair, "repaired".
	Found    string
	mu       sync.Mutex
	mode     Mode
	w        io.Writer
	label    string
	interval time.Duration
	start    time.Time
	latest   Update // the last update the analysis reported
	bar      *progressbar.ProgressBar
	finish   sync.Once
	done     chan struct{} // closed by Finish: the ticker stops
	stopped  chan struct{} // closed when the ticker has stopped
	// est is the last estimate of the time left that left gave, at estAt
	// (zero before the first).
	est   time.Duration
	estAt time.Time
}

// DefaultInterval is how often Lines mode prints: one line every interval
// of wall time, with the latest update, however long the run.
const DefaultInterval = 15 * time.Second

// startPhase is the phase shown until the analysis names its first one.
const startPhase = "preparing"

// New returns a Shower writing to w in mode; in Lines and Bar mode its
// ticker runs until Finish. Its clock is the time package's (a synctest
// bubble's fake clock in tests).
func New(w io.Writer, mode Mode, label string) *Shower {
	s := &Shower{Found: "flaky", mode: mode, w: w, label: label, interval: DefaultInterval, start: time.Now(), latest: Update{Phase: startPhase}}
	if mode == Bar {
		s.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30),
		)
	}
	if mode != Quiet {
		s.done, s.stopped = make(chan struct{}), make(chan struct{})
		go s.tick(time.NewTicker(s.interval))
	}
	return s
}

// tick shows the latest update on every tick until Finish.
func (s *Shower) tick(t *time.Ticker) {
	defer close(s.stopped)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.mu.Lock()
			s.show()
			s.mu.Unlock()
		}
	}
}

// Func returns the Shower as a progress Func.
func (s *Shower) Func() Func { return s.Update }

// Update takes u as the latest update: the bar shows it at once, Lines
// mode on its next tick. An update without a phase keeps the phase shown
// (runs counted before any phase was named are "preparing", not "").
func (s *Shower) Update(u Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.Phase == "" {
		u.Phase = s.latest.Phase
	}
	s.latest = u
	if s.mode == Bar {
		s.show()
	}
}

// show draws the latest update: the bar, or one line. s.mu is held.
func (s *Shower) show() {
	u := s.latest
	switch s.mode {
	case Bar:
		if u.Planned > 0 {
			s.bar.ChangeMax(max(u.Planned, u.Done))
		}
		s.bar.Describe(s.describe(u))
		_ = s.bar.Set(u.Done)
	case Lines:
		fmt.Fprintf(s.w, "%s: %s\n", s.label, s.describe(u))
	}
}

// describe is one update in words: "minimising, 34/120 runs, 2 flaky,
// about 1m20s left", or "at most 1m20s left in this phase" when the
// phase's deadline comes first.
func (s *Shower) describe(u Update) string {
	d := u.Phase
	if s.mode == Lines {
		if u.Planned > 0 {
			d += fmt.Sprintf(", %d/%d runs", u.Done, max(u.Planned, u.Done))
		} else {
			d += fmt.Sprintf(", %d runs", u.Done)
		}
	}
	d += fmt.Sprintf(", %d %s", u.Findings, s.Found)
	if left, bound, ok := s.left(u); ok {
		// A deadline is the phase's (detection's share of the budget,
		// say): the phases after it have their own.
		if bound {
			d += ", at most " + left.Round(time.Second).String() + " left in this phase"
		} else {
			d += ", about " + left.Round(time.Second).String() + " left"
		}
	}
	return d
}

// estimateWindow is how fast the estimate of the time left follows the
// rate so far: a change of plan (a phase that plans many more runs, a
// phase's deadline that no longer holds) moves it by about two thirds of
// the difference in this time, not at once.
const estimateWindow = time.Minute

// left estimates the time left: the rate so far applied to the runs still
// planned, smoothed (the last estimate, less the time since, moved towards
// it by the time since against estimateWindow), never beyond the budget's
// deadline; bound says the estimate is the deadline (when no runs are
// planned, only the deadline is known).
func (s *Shower) left(u Update) (est time.Duration, bound, ok bool) {
	now := time.Now()
	budget := time.Duration(0)
	if !u.Deadline.IsZero() {
		budget = u.Deadline.Sub(now)
	}
	if u.Done == 0 || u.Planned <= u.Done {
		if budget <= 0 {
			return 0, false, false
		}
		s.est, s.estAt = budget, now
		return budget, true, true
	}
	est = time.Duration(float64(now.Sub(s.start)) / float64(u.Done) * float64(u.Planned-u.Done))
	if !s.estAt.IsZero() {
		since := now.Sub(s.estAt)
		carried := max(0, s.est-since)
		weight := 1 - math.Exp(-float64(since)/float64(estimateWindow))
		est = carried + time.Duration(weight*float64(est-carried))
	}
	if budget > 0 && budget < est {
		est, bound = budget, true
	}
	s.est, s.estAt = est, now
	return est, bound, true
}

// Printf prints a line of the command's own (a note) without breaking the
// bar: the bar is cleared first and drawn again by the next update.
func (s *Shower) Printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bar != nil {
		_ = s.bar.Clear()
	}
	fmt.Fprintf(s.w, format, args...)
}

// Finish stops the ticker and removes the bar (the command's own output
// follows). It may be called more than once.
func (s *Shower) Finish() {
	if s.done != nil {
		s.finish.Do(func() { close(s.done) })
		<-s.stopped
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bar != nil {
		_ = s.bar.Finish()
		_ = s.bar.Clear()
	}
}

// Tracker adds up one command's progress: the analyses announce their
// phases (with the runs they plan and their deadline) and the flaky tests
// found so far, the launcher reports every run that ended, and each change
// goes to a Func. A nil *Tracker ignores everything, so analyses call it
// unconditionally.
type Tracker struct {
	mu   sync.Mutex
	u    Update
	show Func
}

// NewTracker returns a Tracker that passes updates to show.
func NewTracker(show Func) *Tracker {
	return &Tracker{show: show}
}

// Phase starts a phase that plans more runs (0 when unknown) and ends by
// deadline (zero when none).
func (t *Tracker) Phase(phase string, more int, deadline time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.u.Phase = phase
	t.u.Planned = max(t.u.Planned, t.u.Done) + more
	t.u.Deadline = deadline
	u := t.u
	t.mu.Unlock()
	Report(t.show, u)
}

// Ran counts a run that ended.
func (t *Tracker) Ran() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.u.Done++
	u := t.u
	t.mu.Unlock()
	Report(t.show, u)
}

// Found says how many flaky tests are known so far.
func (t *Tracker) Found(n int) {
	t.found(func(int) int { return n })
}

// FoundMore adds n flaky tests to those known so far (an analysis after
// another's).
func (t *Tracker) FoundMore(n int) {
	t.found(func(known int) int { return known + n })
}

// found sets the flaky tests known so far from those known before.
func (t *Tracker) found(from func(known int) int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.u.Findings = from(t.u.Findings)
	u := t.u
	t.mu.Unlock()
	Report(t.show, u)
}
