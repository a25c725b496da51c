package launcher

import (
	"context"
	"regexp"
	"sync"
	"sync/atomic"
)

// clashPattern matches failures caused by another process holding a
// resource the test needs: a fixed port, a locked file. Such a failure says
// nothing about the test when other JVMs of the analysis ran at the same time.
var clashPattern = regexp.MustCompile(`(?i)address already in use|java\.net\.BindException|port \d+ (is )?(already )?in use|` +
	`OverlappingFileLockException|lock(ed)? (is )?held by another|file is (already )?locked|already locked by`)

// Clashes reports whether a test failed because a resource it needs was
// taken (address in use, file lock), judging by its failure type, message
// and stack.
func Clashes(t TestResult) bool {
	return t.Outcome.Failed() && (clashPattern.MatchString(t.FailureType) || clashPattern.MatchString(t.Message) || clashPattern.MatchString(t.Stack))
}

// lanes runs JVMs side by side until a test clashes with another JVM over
// a resource (a fixed port, a file lock); from then on every JVM runs alone.
// A suite with one such test usually has more (every class starting the
// same server), and learning them one clash at a time costs a wasted run
// each: nanohttpd's chaos runs clashed batch after batch.
type lanes struct {
	running sync.RWMutex // held shared by every JVM, exclusively by a serial one
	clashed atomic.Bool
}

// serial reports whether JVMs run alone: a test has clashed.
func (s *lanes) serial() bool {
	return s.clashed.Load()
}

// RunWith executes order in one fresh JVM with opts. A run in which a test
// failed over a resource clash (a port or file lock taken) while other JVMs
// ran is not trusted: the order runs again alone, and that run is the
// result (Result.Serial says so); every later JVM runs alone too.
func (l *Launcher) RunWith(ctx context.Context, order []string, opts RunOptions) (*Result, error) {
	r, err := l.runLaned(ctx, order, opts)
	if err == nil && l.opts.Ran != nil {
		l.opts.Ran(r)
	}
	return r, err
}

// runLaned is RunWith without the Ran callback. A run beside other JVMs
// stops at its first clash, since it runs again alone anyway.
func (l *Launcher) runLaned(ctx context.Context, order []string, opts RunOptions) (*Result, error) {
	if l.lanes.serial() {
		return l.runSerial(ctx, order, opts, nil)
	}
	l.lanes.running.RLock()
	side := opts
	side.stopAtClash = true
	r, err := l.runResuming(ctx, order, side)
	l.lanes.running.RUnlock()
	if err != nil {
		return nil, err
	}
	clashed := r.clashed()
	if len(clashed) == 0 {
		return r, nil
	}
	r.removeTmp()
	l.lanes.clashed.Store(true)
	return l.runSerial(ctx, order, opts, clashed)
}

// clashed returns the tests that failed over a resource clash.
func (r *Result) clashed() []string {
	var out []string
	for _, t := range r.Tests {
		if Clashes(t) {
			out = append(out, t.Test)
		}
	}
	return out
}

// runSerial runs order with no other JVM of the launcher running.
func (l *Launcher) runSerial(ctx context.Context, order []string, opts RunOptions, clashed []string) (*Result, error) {
	l.lanes.running.Lock()
	defer l.lanes.running.Unlock()
	r, err := l.runResuming(ctx, order, opts)
	if err != nil {
		return nil, err
	}
	r.Serial = true
	r.Clashed = clashed
	return r, nil
}

// Distinct returns an Options.Notef that passes each distinct note to
// print once, however many runs repeat it.
func Distinct(print func(note string)) func(string) {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(note string) {
		mu.Lock()
		defer mu.Unlock()
		if !seen[note] {
			seen[note] = true
			print(note)
		}
	}
}
