package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/flakyhq/flaky/agent"
)

const (
	// connectGrace is how long to wait after the JVM exited for a hello
	// that may still be on its way.
	connectGrace = time.Second
	// closeGrace bounds the wait for a connection to close after the JVM exited.
	closeGrace = 5 * time.Second
	// outputGrace bounds the wait for the output pipe to drain.
	outputGrace = 2 * time.Second
	// exitGrace is how long a JVM may take to exit after the runner reported
	// the end of its order before the driver kills it.
	exitGrace = 2 * time.Second
	// markerEnv marks the environment of a test JVM and everything it starts,
	// so the processes it leaves behind can be found and ended.
	markerEnv = "FLAKY_JVM"
)

// jvmSeq numbers the JVMs this process launches, for markerEnv.
var jvmSeq atomic.Int64

// watch connects one runner invocation to launch.
type watch struct {
	handle       func(m agent.Message, now time.Time) // every message but the hello
	deadline     func() time.Time                     // when to kill for the test timeout; zero for never
	timeout      func() time.Duration                 // the test timeout that deadline applies; nil for Options.TestTimeout
	ended        func() bool                          // the runner reported the end of its work; nil for never
	abandon      func() string                        // why to kill the JVM now, checked after each message; nil or "" for never
	agentOptions agent.Options                        // the agent's options but the port
	keepTmp      bool                                 // keep the JVM's temporary directory
	// standby, for a standby JVM, is where a run takes it; the run's
	// watch then replaces this one.
	standby *standbyJVM
	// connected, when set, gets a way to send commands to the JVM once it
	// has connected.
	connected func(send func(agent.Message) error)
}

// launched is what launch saw of one JVM.
type launched struct {
	start, end time.Time
	killed     string // why flaky killed the JVM; empty when it ended by itself
	status     int
	signal     string
	output     string
	tmpDir     string        // the JVM's temporary directory, when kept
	notes      []string      // what the driver did or refused that the user should know
	cpu        time.Duration // the JVM's CPU time (user and system)
	maxRSS     int64         // the JVM's peak resident memory in bytes
	runDelay   time.Duration // how long its threads waited for a core (see jvmLoad.untrack)
	delayKnown bool          // whether the system said runDelay
}

// describe says how the JVM ended, for error messages.
func (p *launched) describe() string {
	how := fmt.Sprintf("exit status %d", p.status)
	if p.signal != "" {
		how = "killed by " + p.signal
	}
	if p.killed != "" {
		how = p.killed + ", " + how
	}
	return how
}

// connectAttempts bounds the JVMs launch starts for one runner invocation
// whose JVMs fail to connect (on a loaded machine a JVM may give up on its
// handshake before the driver gets to it); relaunchPause, times the attempt
// number, is the pause before the next one.
const (
	connectAttempts = 3
	relaunchPause   = 500 * time.Millisecond
)

// startedHook, when set (by tests), is called after the JVM of the given
// attempt started, with its pid, and before the driver records the pid: a
// slow driver.
var startedHook func(attempt, pid int)

// launch runs one runner invocation in a new JVM, feeds its messages to w,
// kills the JVM's process group on timeouts, and returns once the JVM is
// gone and its connection is drained. A JVM that exits without connecting
// ran no test (the agent connects before the runner starts): it is
// relaunched, up to connectAttempts JVMs in all, each failure noted in the
// result; a JVM that still never connects is an error wrapping
// errNotConnected. One that flaky killed (run timeout, cancellation) before
// it connected is not relaunched.
func (l *Launcher) launch(ctx context.Context, mainArgs []string, w *watch) (*launched, error) {
	var notes []string
	for attempt := 1; ; attempt++ {
		p, err := l.launchOnce(ctx, mainArgs, w, attempt)
		var nc *notConnected
		if !errors.As(err, &nc) || nc.p.killed != "" || attempt == connectAttempts {
			if nc != nil {
				nc.attempts = attempt
			}
			if p != nil {
				p.notes = append(notes, p.notes...)
			}
			return p, err
		}
		notes = append(append(notes, nc.p.notes...), fmt.Sprintf(
			"a test JVM did not connect to flaky (%s%s); flaky relaunched it (attempt %d of %d)",
			nc.p.describe(), lastLine(nc.p.output), attempt+1, connectAttempts))
		select {
		case <-time.After(time.Duration(attempt) * relaunchPause):
		case <-ctx.Done():
			return nil, fmt.Errorf("test JVM stopped: %w", ctx.Err())
		}
	}
}

// notConnected is the error of a JVM that never said hello, the last of
// attempts JVMs in a row.
type notConnected struct {
	p        *launched
	attempts int
	hint     string // which of the build's agents the JVM started, and what to try (agentHint)
}

func (e *notConnected) Error() string {
	how := e.p.describe()
	if e.attempts > 1 {
		how = fmt.Sprintf("%s; the last of %d JVMs in a row that did not connect", how, e.attempts)
	}
	return fmt.Sprintf("%s (%s)%s%s", errNotConnected, how, e.hint, outputTail(e.p.output))
}

func (e *notConnected) Unwrap() error { return errNotConnected }

// lastLine returns ": " and the last non-blank line of output, or "".
func lastLine(output string) string {
	if tail := tailLines(output, 1); tail != "" {
		return ": " + strings.TrimSpace(tail)
	}
	return ""
}

// launchOnce is one attempt of launch: one JVM.
func (l *Launcher) launchOnce(ctx context.Context, mainArgs []string, w *watch, attempt int) (_ *launched, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The parent-death signal follows the thread that started the JVM (or
	// its supervisor): keep it until the JVM is gone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	run, err := l.server.RegisterProcess()
	if err != nil {
		return nil, err
	}
	defer run.Close()

	tmpDir, err := os.MkdirTemp(l.opts.TmpDir, "jvm-")
	if err != nil {
		return nil, fmt.Errorf("create the test JVM's temp dir: %w", err)
	}
	defer func() {
		if !w.keepTmp || err != nil {
			os.RemoveAll(tmpDir)
		}
	}()
	shareArgs, classList := l.cds.args(records(mainArgs, w.agentOptions))
	recording := classList != ""
	if recording {
		defer func() {
			if err != nil {
				os.Remove(classList) // a JVM that failed loaded too few classes
			}
			l.cds.recorded(classList)
		}()
	}
	args, err := l.command(l.server.Port(), w.agentOptions, mainArgs, tmpDir)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(l.env.Java, append(shareArgs, args...)...)
	cmd.Dir = l.env.Dir
	// The token travels in the environment, which only the JVM's owner can read.
	marker := fmt.Sprintf("%s=%d-%d", markerEnv, os.Getpid(), jvmSeq.Add(1))
	cmd.Env = append(append(l.environ(), l.env.Env...), agent.TokenEnv+"="+run.Token, marker)
	if !slices.ContainsFunc(l.env.Env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }) {
		cmd.Env = append(cmd.Env, "TMPDIR="+tmpDir)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create output pipe: %w", err)
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	// A standby JVM reads its order file's path from standard input.
	var stdin, stdinRead *os.File
	if w.standby != nil {
		if stdinRead, stdin, err = os.Pipe(); err != nil {
			pw.Close()
			return nil, fmt.Errorf("create the standby JVM's input pipe: %w", err)
		}
		defer stdin.Close()
		cmd.Stdin = stdinRead
	}
	p := &launched{start: time.Now()}
	if w.keepTmp {
		p.tmpDir = tmpDir
	}
	var jl *jail
	if l.confine != nil {
		if jl, err = l.newJail(); err != nil {
			pw.Close()
			return nil, err
		}
		defer jl.close()
	}
	jvm, err := startJVM(cmd, jl)
	pw.Close()
	if jl != nil {
		jl.child.Close() // the supervisor has its copy
		jl.child = nil
	}
	if stdinRead != nil {
		stdinRead.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("start test JVM: %w", err)
	}
	if startedHook != nil {
		startedHook(attempt, jvm.pid)
	}
	run.SetProcess(jvm.pid)
	l.load.track(jvm.pid, w.standby != nil)
	defer func() { _, _ = l.load.untrack(jvm.pid) }()
	out := newHeadTail(l.opts.OutputLimit)
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, pr)
		close(copied)
	}()
	waited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit status is read from cmd.ProcessState
		close(waited)
	}()

	var runTimeout <-chan time.Time
	startRunTimeout := func() {
		if l.opts.RunTimeout > 0 {
			t := time.NewTimer(l.opts.RunTimeout)
			runTimeout = t.C
		}
	}
	var claims <-chan standbyClaim
	if w.standby != nil {
		claims = w.standby.claims // the run's timeout starts when a run takes it
	} else {
		startRunTimeout()
	}
	testTimer := time.NewTimer(time.Hour)
	testTimer.Stop()
	defer testTimer.Stop()
	var testDeadline time.Time

	exited, connected, open := false, false, 0
	var grace, lingering <-chan time.Time
	done := ctx.Done()
	var ctxErr error
	// take hands the standby JVM to the run c: its messages so far go to
	// c's watch, its order file's path to the runner, and from now on the
	// run's context, timeouts and temporary directory apply.
	take := func(c standbyClaim) {
		s := w.standby
		s.claimed, claims = &c, nil
		l.load.claim(jvm.pid)
		w, ctx, done = c.w, c.ctx, c.ctx.Done()
		p.start = time.Now()
		if w.keepTmp {
			p.tmpDir = tmpDir
		}
		startRunTimeout()
		for _, m := range s.early {
			w.handle(m.m, m.at)
		}
		if _, err := io.WriteString(stdin, c.orderFile+"\n"); err != nil {
			p.notes = append(p.notes, fmt.Sprintf("could not hand the order to the standby JVM: %v", err))
		}
		stdin.Close() // a test that reads standard input sees its end, as with no input
	}
	kill := func(reason string) {
		if exited {
			return
		}
		if p.killed == "" {
			p.killed = reason
		}
		killGroup(jvm.pid)
	}
loop:
	for !exited || (ctxErr == nil && (!connected || open > 0)) {
		select {
		case ev := <-run.Events():
			switch _, hello := ev.Message.(*agent.Hello); {
			case ev.Refused != "":
				p.notes = append(p.notes, ev.Refused)
			case ev.Closed:
				open--
			case hello:
				connected = true
				open++
				if w.connected != nil {
					conn := ev.Conn
					w.connected(func(m agent.Message) error { return run.Send(conn, m) })
				}
				if exited {
					grace = time.After(closeGrace)
				} else if claims != nil {
					l.standby.readied(w.standby)
				}
			default:
				if _, ended := ev.Message.(*agent.TestEnd); ended && recording {
					l.cds.snapshot(classList) // the archive need not wait for the run's end
					recording = false
				}
				w.handle(ev.Message, time.Now())
				if w.abandon != nil {
					if why := w.abandon(); why != "" {
						kill(why)
					}
				}
				if lingering == nil && !exited && w.ended != nil && w.ended() {
					lingering = time.After(exitGrace)
				}
			}
			if d := w.deadline(); !d.Equal(testDeadline) {
				testDeadline = d
				testTimer.Stop()
				if !d.IsZero() {
					testTimer.Reset(time.Until(d))
				}
			}
		case <-waited:
			exited, waited = true, nil
			if claims != nil {
				claims = nil // no run takes a JVM that is gone
				l.standby.drop(w.standby)
			}
			p.end = time.Now()
			p.runDelay, p.delayKnown = l.load.untrack(jvm.pid)
			killGroup(jvm.pid) // stray children
			jvm.finish()
			if killed := append(jvm.killed, killMarked(marker)...); len(killed) > 0 {
				p.notes = append(p.notes, fmt.Sprintf("killed %d process(es) the test JVM left running: %s", len(killed), strings.Join(killed, ", ")))
			}
			if connected {
				grace = time.After(closeGrace)
			} else {
				grace = time.After(connectGrace)
			}
		case c := <-claims:
			take(c)
		case <-grace:
			break loop
		case <-lingering:
			lingering = nil
			if !exited {
				p.notes = append(p.notes, fmt.Sprintf("the JVM did not exit within %s after its last test (a shutdown hook or a non-daemon thread?); flaky killed it and kept its results", exitGrace))
				killGroup(jvm.pid)
			}
		case <-runTimeout:
			runTimeout = nil
			kill(fmt.Sprintf("the run timed out after %s", l.opts.RunTimeout))
		case <-testTimer.C:
			timeout := l.opts.TestTimeout
			if w.timeout != nil {
				timeout = w.timeout()
			}
			kill(fmt.Sprintf("timed out after %s without progress (test timeout)", timeout))
		case <-done:
			done, claims = nil, nil
			ctxErr = ctx.Err()
			kill("cancelled")
		}
	}
	select {
	case <-copied:
	case <-time.After(outputGrace):
	}
	p.output = out.String()
	p.status, p.signal = exitStatus(cmd.ProcessState)
	if jvm.signal != "" {
		p.status, p.signal = -1, jvm.signal
	}
	p.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	p.maxRSS = maxRSS(cmd.ProcessState)
	switch {
	case ctxErr != nil:
		return nil, fmt.Errorf("test JVM stopped: %w", ctxErr)
	case !connected:
		return nil, &notConnected{p: p, attempts: 1, hint: agentHint(l.env.JVMArgs)}
	}
	return p, nil
}
