package launcher

import (
	"fmt"
	"slices"
	"sync"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Handoff splits a running order between its JVM and others, as Surefire's
// forks share a module's classes: while the run goes on, Split asks the
// JVM to stop before a class run it has not begun (the runner's handoff
// command), and the caller runs the rest of the order in another JVM. Only
// whole class runs move, so every class's fixtures run as they would in one
// JVM; the tests after the cut miss only the classes before it, as in a
// fork that got other classes first. A run's Result then ends at the cut.
// Set it as RunOptions.Handoff; one Handoff serves one run.
type Handoff struct {
	mu      sync.Mutex
	send    func(agent.Message) error // the running JVM's connection; nil while none is connected
	base    int                       // where the running JVM's order starts in the run's order
	end     int                       // where the run's order ends: its length, or the last cut
	started int                       // the last entry the running JVM started, in the run's order; -1 before any
	waiting chan int                  // the answer a Split waits for; nil when none waits
	refused bool                      // the JVM had no class run left to hand over
	ready   bool                      // the running JVM has started a test: its runner takes commands
}

// NewHandoff returns a Handoff for one run.
func NewHandoff() *Handoff {
	return &Handoff{end: -1, started: -1}
}

// Split asks the running JVM to hand over what is left of its order after
// the class run it has begun: a run that mostly waits (a sleep made longer,
// a connect made slow) spreads the most that way, and the JVM that takes
// the rest can be asked again. It returns the part [from, to) of the run's
// order the JVM will not run, for the caller to run elsewhere; false when
// the JVM
// refused (it has begun its last class run), none is connected (it has not
// started, has ended, or a resumed run is between JVMs), or JVMs run alone
// (a resource clash), which would leave nothing to gain.
func (h *Handoff) Split() (from, to int, ok bool) {
	h.mu.Lock()
	if !h.open() {
		h.mu.Unlock()
		return 0, 0, false
	}
	next := h.started + 1
	answer := make(chan int, 1)
	h.waiting = answer
	send := h.send
	base := h.base
	h.mu.Unlock()
	if err := send(&agent.Handoff{Index: max(next-base, 0)}); err != nil {
		h.mu.Lock()
		h.waiting = nil
		h.mu.Unlock()
		return 0, 0, false
	}
	at := <-answer
	h.mu.Lock()
	defer h.mu.Unlock()
	if at < 0 {
		h.refused = at == refusal
		return 0, 0, false
	}
	from, to = h.base+at, h.end
	h.end = from
	return from, to, true
}

// begin tells h that a JVM runs the run's order from base up to its end:
// send reaches it once it is connected (see connected).
func (h *Handoff) begin(base, end int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.base, h.ready = base, false
	if h.end < 0 {
		h.end = end
	}
}

// limit returns where the run's order ends now: at the last cut, or at n,
// its length, when there was none.
func (h *Handoff) limit(n int) int {
	if h == nil {
		return n
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.end < 0 {
		return n
	}
	return h.end
}

// connected gives h the running JVM's connection.
func (h *Handoff) connected(send func(agent.Message) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.send = send
}

// ran notes that the running JVM started the entry at index of its order.
func (h *Handoff) ran(index int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.started = max(h.started, h.base+index)
	h.ready = true
}

// open reports whether a Split may ask the running JVM now: one is
// connected and has started a test (a runner takes commands once it has
// read its order), none is asked already, and none refused. The caller
// holds h.mu.
func (h *Handoff) open() bool {
	return h.send != nil && h.ready && h.waiting == nil && !h.refused
}

// answered hands the JVM's answer (an index of its order, -1 for a
// refusal) to the Split that waits for it; it reports false when none
// waits, and the JVM's cut is then not honoured (it cannot happen with a
// runner that answers only commands).
func (h *Handoff) answered(at int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiting == nil {
		return false
	}
	h.waiting <- at
	h.waiting = nil
	return true
}

// gone says the running JVM has ended: a Split waiting for its answer gets
// a refusal.
func (h *Handoff) gone() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.send, h.ready = nil, false
	if h.waiting != nil {
		h.waiting <- ended
		h.waiting = nil
	}
}

// refusal is the JVM's answer when it has no class run left to hand over;
// ended is the answer a Split gets when the JVM ended first.
const (
	refusal = -1
	ended   = -2
)

// Join appends to r, a run of an order up to entry len(r.Order), the run
// of the order's entries from there that another JVM ran beside it after a
// Split: r then describes the whole, with a Resumption (Why HandedOver)
// where the other JVM began. Its Exit and Output are the last JVM's as for
// a resumed run; Duration spans from the first JVM's start to the last
// one's end, CPU adds the JVMs' up.
func (r *Result) Join(rest *Result) {
	at := len(r.Order)
	r.Order = append(slices.Clip(r.Order), rest.Order...)
	r.Resumed = append(r.Resumed, Resumption{At: at, From: r.Order[at], Why: HandedOver})
	for _, res := range rest.Resumed {
		res.At += at
		r.Resumed = append(r.Resumed, res)
	}
	ran := func(t TestResult) bool { return t.Outcome != NotRun }
	r.Tests = slices.Concat(
		slices.DeleteFunc(slices.Clone(r.Tests), func(t TestResult) bool { return !ran(t) }),
		slices.DeleteFunc(slices.Clone(rest.Tests), func(t TestResult) bool { return !ran(t) }),
		slices.DeleteFunc(slices.Clone(r.Tests), ran),
		slices.DeleteFunc(slices.Clone(rest.Tests), ran))
	r.covered = append(slices.Clip(r.covered), rest.covered...)
	r.ClassErrors = append(r.ClassErrors, rest.ClassErrors...)
	for c, n := range rest.ClassScopes {
		r.ClassScopes[c] += n
	}
	r.Perturbations = append(r.Perturbations, rest.Perturbations...)
	r.States = append(r.States, rest.States...)
	r.Invariants = append(r.Invariants, rest.Invariants...)
	r.Dataflow = append(r.Dataflow, rest.Dataflow...)
	r.Exit = rest.Exit
	r.TimedOut = r.TimedOut || rest.TimedOut
	r.Serial = r.Serial || rest.Serial
	r.Clashed = append(r.Clashed, rest.Clashed...)
	r.Notes = append(r.Notes, rest.Notes...)
	if len(r.Output) > 4*DefaultOutputLimit {
		r.Output = r.Output[:DefaultOutputLimit] + "\n[... output of earlier JVMs omitted ...]"
	}
	r.Output += fmt.Sprintf("\n[flaky: %s]\n", r.Resumed[len(r.Resumed)-1-len(rest.Resumed)]) + rest.Output
	start := r.Ended.Add(-r.Duration)
	if s := rest.Ended.Add(-rest.Duration); s.Before(start) {
		start = s
	}
	if rest.Ended.After(r.Ended) {
		r.Ended = rest.Ended
	}
	r.Duration = r.Ended.Sub(start)
	r.CPU += rest.CPU
	r.RunDelay += rest.RunDelay
	r.DelayKnown = r.DelayKnown && rest.DelayKnown
	r.MaxRSS = max(r.MaxRSS, rest.MaxRSS)
	r.removeTmp()
	r.TmpDir = rest.TmpDir
	r.ending, r.victim = rest.ending, rest.victim
	r.resumeAt = at + rest.resumeAt
}

// Left returns how many entries of the run's order the running JVM has not
// started (0 when none is connected).
func (h *Handoff) Left() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.open() {
		return 0
	}
	return h.end - (h.started + 1)
}
