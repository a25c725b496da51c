package launcher

import (
	"context"
	"sync"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// A standby JVM is a test JVM started before its run is known, while a
// core would otherwise idle: its agent connected, and its runner loaded the
// test engines, as every run does before its first test class. It then
// waits for an order file's path on its standard input. A run with the
// same agent options takes it instead of starting a JVM, and so skips the
// JVM's start, the agent's and the engines' set-up: about 40% of a
// one-test JVM's CPU time. Before the order arrives it has done only what
// every run does before its first test class (no test class loads, no test
// runs), in the same order, so the run is the one a fresh JVM makes; only
// the JVM is older.

// standbyArgs are the runner's arguments in a standby JVM.
var standbyArgs = []string{"run", "--standby", "true"}

// standbyPool holds a launcher's standby JVMs. Its zero value is ready.
type standbyPool struct {
	mu       sync.Mutex
	ctx      context.Context // ends the JVMs never taken (close)
	cancel   context.CancelFunc
	closed   bool
	wg       sync.WaitGroup
	ready    map[string][]*standbyJVM // connected and waiting, by agent options
	starting map[string]int           // started and not yet connected, by agent options
}

// standbyJVM is where a run takes one standby JVM.
type standbyJVM struct {
	key    string
	claims chan standbyClaim // a run taking the JVM; received only while the JVM waits
	gone   chan struct{}     // closed once the JVM no longer takes a run
	// Guarded by the pool's mu:
	readied, taken bool
	// claimed is the run that took the JVM; set by launchOnce.
	claimed *standbyClaim
	// early are the messages the JVM sent before a run took it, handed to
	// the run's watch when it does.
	early []timedMessage
}

// timedMessage is an agent message and when it arrived.
type timedMessage struct {
	m  agent.Message
	at time.Time
}

// standbyClaim is a run taking a standby JVM: its context and watch, the
// order file its runner reads, and where its outcome goes.
type standbyClaim struct {
	ctx       context.Context
	w         *watch
	orderFile string
	result    chan launchResult
}

// launchResult is what launchOnce returned for a claimed standby JVM.
type launchResult struct {
	p   *launched
	err error
}

// standbyKey is the pool's key of agent options: their encoding without the
// port, which every JVM of the launcher shares.
func standbyKey(opts agent.Options) (string, error) {
	opts.Port = 0
	return opts.Encode()
}

// Prestart starts a standby JVM with agent options opts, unless upTo with
// them are waiting or starting already; the next run with those options
// (RunOptions.AgentOptions) takes one. It reports whether it started one.
// Close ends the standby JVMs that no run took.
func (l *Launcher) Prestart(opts agent.Options, upTo int) bool {
	key, err := standbyKey(opts)
	if err != nil {
		return false
	}
	p := &l.standby
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.ready[key])+p.starting[key] >= upTo {
		return false
	}
	if p.ctx == nil {
		p.ctx, p.cancel = context.WithCancel(context.Background())
		p.ready, p.starting = map[string][]*standbyJVM{}, map[string]int{}
	}
	p.starting[key]++
	p.wg.Add(1)
	go l.runStandby(p.ctx, key, opts)
	return true
}

// runStandby runs one standby JVM until a run took it and it ended (the
// run gets what launchOnce returns), or it ended untaken (by itself, or
// cancelled by close).
func (l *Launcher) runStandby(ctx context.Context, key string, opts agent.Options) {
	defer l.standby.wg.Done()
	s := &standbyJVM{key: key, claims: make(chan standbyClaim), gone: make(chan struct{})}
	w := &watch{
		handle:       func(m agent.Message, now time.Time) { s.early = append(s.early, timedMessage{m, now}) },
		deadline:     func() time.Time { return time.Time{} },
		agentOptions: opts,
		standby:      s,
	}
	p, err := l.launchOnce(ctx, standbyArgs, w, 1)
	l.standby.drop(s)
	close(s.gone)
	if s.claimed != nil {
		s.claimed.result <- launchResult{p, err}
	}
}

// readied moves s from starting to ready: its agent connected.
func (p *standbyPool) readied(s *standbyJVM) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.readied || s.taken {
		return
	}
	s.readied = true
	p.starting[s.key]--
	p.ready[s.key] = append(p.ready[s.key], s)
}

// drop removes s from the pool, wherever it is.
func (p *standbyPool) drop(s *standbyJVM) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.taken {
		return
	}
	s.taken = true
	if !s.readied {
		p.starting[s.key]--
		return
	}
	ready := p.ready[s.key]
	for i, r := range ready {
		if r == s {
			p.ready[s.key] = append(ready[:i:i], ready[i+1:]...)
			break
		}
	}
}

// take returns a waiting standby JVM with agent options opts, removed from
// the pool, or nil.
func (p *standbyPool) take(opts agent.Options) *standbyJVM {
	key, err := standbyKey(opts)
	if err != nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ready := p.ready[key]
	if len(ready) == 0 {
		return nil
	}
	s := ready[0]
	p.ready[key] = ready[1:]
	s.taken = true
	return s
}

// close ends the standby JVMs no run took and waits for them.
func (p *standbyPool) close() {
	p.mu.Lock()
	p.closed = true
	cancel := p.cancel
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	p.wg.Wait()
}

// launchRun runs the order file in a waiting standby JVM with w's agent
// options, else in a new JVM (launch).
func (l *Launcher) launchRun(ctx context.Context, orderFile string, w *watch) (*launched, error) {
	if s := l.standby.take(w.agentOptions); s != nil {
		c := standbyClaim{ctx: ctx, w: w, orderFile: orderFile, result: make(chan launchResult, 1)}
		select {
		case s.claims <- c:
			r := <-c.result
			return r.p, r.err
		case <-s.gone:
			// It ended before the run took it: start one.
		}
	}
	return l.launch(ctx, []string{"run", "--order", orderFile}, w)
}
