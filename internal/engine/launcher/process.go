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

	"github.com/flakyhq/flaky/internal/engine/agent"
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

// launchOnce is one attempt of launch: one JVM. It starts the JVM (start),
// follows it until it is gone and its connections are drained (follow),
// and reads how it ended (result).
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

	j := &jvmRun{l: l, run: run, ctx: ctx, done: ctx.Done(), w: w}
	if j.tmpDir, err = os.MkdirTemp(l.opts.TmpDir, "jvm-"); err != nil {
		return nil, fmt.Errorf("create the test JVM's temp dir: %w", err)
	}
	defer func() {
		if !j.w.keepTmp || err != nil { // j.w: the watch of the run that took a standby JVM
			os.RemoveAll(j.tmpDir)
		}
	}()
	shareArgs, classList := l.cds.args(records(mainArgs, w.agentOptions))
	if classList != "" {
		j.classList, j.recording = classList, true
		defer func() {
			if err != nil {
				os.Remove(classList) // a JVM that failed loaded too few classes
			}
			l.cds.recorded(classList)
		}()
	}
	defer j.release()
	if err = j.start(mainArgs, shareArgs, attempt); err != nil {
		return nil, err
	}
	j.follow()
	return j.result()
}

// jvmRun is the JVM of one launchOnce: what start set up, and what follow
// has seen of it so far.
type jvmRun struct {
	l   *Launcher
	run *agent.Run
	// ctx, done and w are the runner invocation's; for a standby JVM they
	// become those of the run that takes it (take).
	ctx  context.Context
	done <-chan struct{}
	w    *watch

	tmpDir    string
	classList string // the class list the JVM records for the CDS archive; "" for none
	recording bool   // the class list is still being recorded
	marker    string // markerEnv=value in the JVM's environment
	cmd       *exec.Cmd
	jail      *jail
	output    *os.File // the read end of the JVM's output pipe
	stdin     *os.File // the write end of a standby JVM's input pipe
	jvm       *jvmProcess
	tracked   bool          // the JVM is in l.load
	out       *headTail     // the JVM's output
	copied    chan struct{} // closed once the output pipe is drained into out
	p         *launched

	waited            <-chan struct{} // closed once the JVM exited; nil once seen
	exited, connected bool
	open              int                 // the JVM's connections open
	claims            <-chan standbyClaim // a standby JVM's, until a run takes it
	grace, lingering  <-chan time.Time
	runTimeout        <-chan time.Time
	testTimer         *time.Timer
	testDeadline      time.Time
	ctxErr            error // why the context ended, once it did
}

// release frees what start and follow acquired, last first.
func (j *jvmRun) release() {
	if j.testTimer != nil {
		j.testTimer.Stop()
	}
	if j.tracked {
		_, _ = j.l.load.untrack(j.jvm.pid)
	}
	if j.jail != nil {
		j.jail.close()
	}
	if j.stdin != nil {
		j.stdin.Close()
	}
	if j.output != nil {
		j.output.Close()
	}
}

// start starts the JVM: its command and environment, its pipes, its
// confinement, and (started) what follows its output and exit.
func (j *jvmRun) start(mainArgs, shareArgs []string, attempt int) error {
	l := j.l
	args, err := l.command(l.server.Port(), j.w.agentOptions, mainArgs, j.tmpDir)
	if err != nil {
		return err
	}
	j.cmd = j.command(append(shareArgs, args...))
	pw, stdinRead, err := j.pipes()
	if err != nil {
		return err
	}
	j.p = &launched{start: time.Now()}
	if j.w.keepTmp {
		j.p.tmpDir = j.tmpDir
	}
	if l.confine != nil {
		jl, err := l.newJail()
		if err != nil {
			pw.Close()
			return err
		}
		j.jail = jl
	}
	jvm, err := startJVM(j.cmd, j.jail)
	pw.Close()
	if j.jail != nil {
		j.jail.child.Close() // the supervisor has its copy
		j.jail.child = nil
	}
	if stdinRead != nil {
		stdinRead.Close()
	}
	if err != nil {
		return fmt.Errorf("start test JVM: %w", err)
	}
	j.started(jvm, attempt)
	return nil
}

// command is the JVM's command line args, run in the build's directory,
// with the agent's token and the marker in its environment.
func (j *jvmRun) command(args []string) *exec.Cmd {
	l := j.l
	cmd := exec.Command(l.env.Java, args...)
	cmd.Dir = l.env.Dir
	// The token travels in the environment, which only the JVM's owner can read.
	j.marker = fmt.Sprintf("%s=%d-%d", markerEnv, os.Getpid(), jvmSeq.Add(1))
	cmd.Env = append(append(l.environ(), l.env.Env...), agent.TokenEnv+"="+j.run.Token, j.marker)
	if !slices.ContainsFunc(l.env.Env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }) {
		cmd.Env = append(cmd.Env, "TMPDIR="+j.tmpDir)
	}
	return cmd
}

// pipes connects the JVM's output, and a standby JVM's standard input, to
// pipes; it returns the ends the JVM gets, for the caller to close once
// the JVM started.
func (j *jvmRun) pipes() (pw, stdinRead *os.File, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("create output pipe: %w", err)
	}
	j.output = pr
	j.cmd.Stdout, j.cmd.Stderr = pw, pw
	// A standby JVM reads its order file's path from standard input.
	if j.w.standby != nil {
		if stdinRead, j.stdin, err = os.Pipe(); err != nil {
			pw.Close()
			return nil, nil, fmt.Errorf("create the standby JVM's input pipe: %w", err)
		}
		j.cmd.Stdin = stdinRead
	}
	return pw, stdinRead, nil
}

// started records the started JVM and starts copying its output and
// waiting for its exit.
func (j *jvmRun) started(jvm *jvmProcess, attempt int) {
	if startedHook != nil {
		startedHook(attempt, jvm.pid)
	}
	j.jvm = jvm
	j.run.SetProcess(jvm.pid)
	j.l.load.track(jvm.pid, j.w.standby != nil)
	j.tracked = true
	out, pr, cmd := newHeadTail(j.l.opts.OutputLimit), j.output, j.cmd
	copied, waited := make(chan struct{}), make(chan struct{})
	j.out, j.copied, j.waited = out, copied, waited
	go func() {
		_, _ = io.Copy(out, pr)
		close(copied)
	}()
	go func() {
		_ = cmd.Wait() // the exit status is read from cmd.ProcessState
		close(waited)
	}()
}

// follow feeds the JVM's messages to the watch and acts on its exit, on
// a run taking it (a standby JVM), on the timeouts and on cancellation,
// until the JVM is gone and, unless cancelled, its connections closed.
func (j *jvmRun) follow() {
	if j.w.standby != nil {
		j.claims = j.w.standby.claims // the run's timeout starts when a run takes it
	} else {
		j.startRunTimeout()
	}
	j.testTimer = time.NewTimer(time.Hour)
	j.testTimer.Stop()
	for !j.exited || (j.ctxErr == nil && (!j.connected || j.open > 0)) {
		select {
		case ev := <-j.run.Events():
			j.event(ev)
			j.resetTestTimer()
		case <-j.waited:
			j.exit()
		case c := <-j.claims:
			j.take(c)
		case <-j.grace:
			return
		case <-j.lingering:
			j.linger()
		case <-j.runTimeout:
			j.runTimeout = nil
			j.kill(fmt.Sprintf("the run timed out after %s", j.l.opts.RunTimeout))
		case <-j.testTimer.C:
			j.kill(fmt.Sprintf("timed out after %s without progress (test timeout)", j.testTimeout()))
		case <-j.done:
			j.done, j.claims = nil, nil
			j.ctxErr = j.ctx.Err()
			j.kill("cancelled")
		}
	}
}

// startRunTimeout starts the run timeout, if there is one.
func (j *jvmRun) startRunTimeout() {
	if j.l.opts.RunTimeout > 0 {
		j.runTimeout = time.NewTimer(j.l.opts.RunTimeout).C
	}
}

// event handles one event of the JVM's connections.
func (j *jvmRun) event(ev agent.Event) {
	switch _, hello := ev.Message.(*agent.Hello); {
	case ev.Refused != "":
		j.p.notes = append(j.p.notes, ev.Refused)
	case ev.Closed:
		j.open--
	case hello:
		j.hello(ev.Conn)
	default:
		j.message(ev.Message)
	}
}

// hello handles the hello of the JVM's connection conn.
func (j *jvmRun) hello(conn int) {
	j.connected = true
	j.open++
	if j.w.connected != nil {
		run := j.run
		j.w.connected(func(m agent.Message) error { return run.Send(conn, m) })
	}
	if j.exited {
		j.grace = time.After(closeGrace)
	} else if j.claims != nil {
		j.l.standby.readied(j.w.standby)
	}
}

// message hands a message but the hello to the watch, and kills the JVM
// when the watch abandons it, or sets it a time to exit once the runner
// reported the end of its work.
func (j *jvmRun) message(m agent.Message) {
	switch m.(type) {
	case *agent.TestStart:
		j.l.load.testBoundary(j.jvm.pid, true)
	case *agent.TestEnd:
		j.l.load.testBoundary(j.jvm.pid, false)
		if j.recording {
			j.l.cds.snapshot(j.classList) // the archive need not wait for the run's end
			j.recording = false
		}
	}
	j.w.handle(m, time.Now())
	if j.w.abandon != nil {
		if why := j.w.abandon(); why != "" {
			j.kill(why)
		}
	}
	if j.lingering == nil && !j.exited && j.w.ended != nil && j.w.ended() {
		j.lingering = time.After(exitGrace)
	}
}

// resetTestTimer moves the test timer to the watch's deadline when that moved.
func (j *jvmRun) resetTestTimer() {
	d := j.w.deadline()
	if d.Equal(j.testDeadline) {
		return
	}
	j.testDeadline = d
	j.testTimer.Stop()
	if !d.IsZero() {
		j.testTimer.Reset(time.Until(d))
	}
}

// testTimeout is the test timeout the watch's deadline applies.
func (j *jvmRun) testTimeout() time.Duration {
	if j.w.timeout != nil {
		return j.w.timeout()
	}
	return j.l.opts.TestTimeout
}

// exit handles the JVM's exit: it ends what the JVM left running and
// gives its connections closeGrace to close, or a hello still on its way
// connectGrace to arrive.
func (j *jvmRun) exit() {
	j.exited, j.waited = true, nil
	if j.claims != nil {
		j.claims = nil // no run takes a JVM that is gone
		j.l.standby.drop(j.w.standby)
	}
	p := j.p
	p.end = time.Now()
	p.runDelay, p.delayKnown = j.l.load.untrack(j.jvm.pid)
	killGroup(j.jvm.pid) // stray children
	j.jvm.finish()
	if killed := append(j.jvm.killed, killMarked(j.marker)...); len(killed) > 0 {
		p.notes = append(p.notes, fmt.Sprintf("killed %d process(es) the test JVM left running: %s", len(killed), strings.Join(killed, ", ")))
	}
	if j.connected {
		j.grace = time.After(closeGrace)
	} else {
		j.grace = time.After(connectGrace)
	}
}

// take hands the standby JVM to the run c: its messages so far go to c's
// watch, its order file's path to the runner, and from now on the run's
// context, timeouts and temporary directory apply.
func (j *jvmRun) take(c standbyClaim) {
	s := j.w.standby
	s.claimed, j.claims = &c, nil
	j.l.load.claim(j.jvm.pid)
	j.w, j.ctx, j.done = c.w, c.ctx, c.ctx.Done()
	j.p.start = time.Now()
	if j.w.keepTmp {
		j.p.tmpDir = j.tmpDir
	}
	j.startRunTimeout()
	for _, m := range s.early {
		j.w.handle(m.m, m.at)
	}
	if _, err := io.WriteString(j.stdin, c.orderFile+"\n"); err != nil {
		j.p.notes = append(j.p.notes, fmt.Sprintf("could not hand the order to the standby JVM: %v", err))
	}
	j.stdin.Close() // a test that reads standard input sees its end, as with no input
}

// linger kills a JVM that outlived the end of its work by exitGrace.
func (j *jvmRun) linger() {
	j.lingering = nil
	if !j.exited {
		j.p.notes = append(j.p.notes, fmt.Sprintf("the JVM did not exit within %s after its last test (a shutdown hook or a non-daemon thread?); flaky killed it and kept its results", exitGrace))
		killGroup(j.jvm.pid)
	}
}

// kill kills the JVM's process group, unless the JVM exited; the first
// reason is the one the result keeps.
func (j *jvmRun) kill(reason string) {
	if j.exited {
		return
	}
	if j.p.killed == "" {
		j.p.killed = reason
	}
	killGroup(j.jvm.pid)
}

// result reads how the JVM ended once follow returned: its output (the
// pipe gets outputGrace to drain), exit status, CPU time and memory.
func (j *jvmRun) result() (*launched, error) {
	select {
	case <-j.copied:
	case <-time.After(outputGrace):
	}
	p, state := j.p, j.cmd.ProcessState
	p.output = j.out.String()
	p.status, p.signal = exitStatus(state)
	if j.jvm.signal != "" {
		p.status, p.signal = -1, j.jvm.signal
	}
	p.cpu = state.UserTime() + state.SystemTime()
	p.maxRSS = maxRSS(state)
	switch {
	case j.ctxErr != nil:
		return nil, fmt.Errorf("test JVM stopped: %w", j.ctxErr)
	case !j.connected:
		return nil, &notConnected{p: p, attempts: 1, hint: agentHint(j.l.env.JVMArgs)}
	}
	return p, nil
}
