package launcher

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Outcome is what happened to one test. Its values are flaky's one
// vocabulary of outcomes: the CLI, report.json evidence, the console and the
// Surefire-format reports all use them (Surefire maps fail to <failure>,
// error, timeout and crash to <error>, skipped to <skipped>).
type Outcome string

// Outcomes of a TestResult. The first four come from the runner; the driver
// decides the last three.
const (
	Pass    Outcome = "pass"
	Fail    Outcome = "fail"    // an assertion failed
	Error   Outcome = "error"   // any other throwable
	Skipped Outcome = "skipped" // @Ignore, @Disabled, or an assumption failed
	Timeout Outcome = "timeout" // flaky killed the JVM while the test ran
	Crash   Outcome = "crash"   // the JVM ended while the test ran
	NotRun  Outcome = "not-run" // the test got no result
)

// assumption is the runner's outcome for a failed assumption (see
// agent/PROTOCOL.md), which flaky reports as skipped, as Surefire does.
const assumption = "assumption"

// ParseOutcome turns an outcome of the runner (a test-end event, a fork
// record) into flaky's vocabulary: a failed assumption is skipped.
func ParseOutcome(s string) Outcome {
	if s == assumption {
		return Skipped
	}
	return Outcome(s)
}

// Failed reports whether o is a failure: fail, error, timeout or crash.
func (o Outcome) Failed() bool {
	switch o {
	case Fail, Error, Timeout, Crash:
		return true
	}
	return false
}

// TestResult is the outcome of one test of a run.
type TestResult struct {
	Test        string  `json:"test"`
	Outcome     Outcome `json:"outcome"`
	TimeMs      int64   `json:"timeMs"`
	FailureType string  `json:"failureType,omitempty"`
	Message     string  `json:"message,omitempty"`
	Stack       string  `json:"stack,omitempty"`
}

// Exit describes how the test JVM ended.
type Exit struct {
	Status     int    // exit status; -1 when killed by a signal
	Signal     string // e.g. "SIGKILL"; empty unless killed by a signal
	SystemExit bool   // System.exit was called before the run ended
	Stack      string // the thread that called System.exit, when known
}

// Result is the outcome of running one order in one JVM.
type Result struct {
	Order []string
	// Tests has one entry per executed test in execution order, then one
	// not-run entry for every order entry that got no result.
	Tests       []TestResult
	ClassErrors []agent.ClassError
	// ClassScopes counts, per class, the class-fixture scopes the run
	// opened (class-start events): how often the class's fixtures
	// (@BeforeClass, @BeforeAll, ...) ran. More than one means the order
	// split the class, or the framework could not keep it in one scope
	// (Jupiter repeating a method); Surefire runs each class's fixtures once.
	ClassScopes map[string]int
	// Perturbations are the perturbed call sites the agent reported, in
	// the order they arrived (only when perturbation was enabled).
	Perturbations []agent.Perturbation
	// States are the agent's state events in the order they arrived
	// (only when state capture was enabled).
	States []agent.State
	// Invariants are the invariant tracer's per-test samples in the order
	// they arrived (only when tracing was enabled).
	Invariants []agent.Invariants
	// Dataflow are the agent's per-test data dependencies in the order
	// they arrived (only with the agent option dataflow=true).
	Dataflow []agent.Dataflow
	Exit     Exit
	// TmpDir is the JVM's temporary directory when RunOptions.KeepTmp
	// kept it; the caller removes it.
	TmpDir   string
	TimedOut bool // the driver killed the JVM (run or test timeout)
	// Serial says the order ran alone, with no other JVM of the launcher
	// running, because it holds tests that clashed over a resource; Clashed
	// names the tests whose clash in a parallel run made it rerun so.
	Serial  bool
	Clashed []string
	// Warm says the order ran in a warm JVM (RunWarm), after other orders
	// of that JVM in class loaders of their own: evidence for exploring,
	// never for a finding.
	Warm bool
	// Notes say what the driver ignored, refused or cleaned up during the
	// run (a result for a test not in the order, a second connection, ...).
	Notes    []string
	Output   string // the JVM's stdout and stderr, head and tail when long
	Duration time.Duration
	// Ended is when the order's last result arrived: its JVM ended or, in a
	// warm JVM, the order's last event came (its result is handed over only
	// when the warm JVM ends).
	Ended time.Time
	// Resumed says where a run with RunOptions.Resume went on in a fresh
	// JVM after one ended early; Exit, Output and TmpDir are then the last
	// JVM's (Output keeps the earlier ones' too, bounded), TimedOut says
	// whether any JVM was killed, Duration adds them up.
	Resumed []Resumption

	covered  []bool // order entries that got a result
	resumeAt int    // where a resumed run goes on: after the last entry that got a result, len(Order) when done
	ending   string // how the last JVM ended early: "timeout", "crash", "System.exit"; empty when it did not
	victim   string // the test the last JVM was running when it ended early, if any
	// CPU is the JVM's CPU time (user and system) and MaxRSS its peak
	// resident memory in bytes, as the kernel counted them (0 when unknown).
	CPU    time.Duration
	MaxRSS int64
	// RunDelay is how long the JVM's threads were ready to run but waited
	// for a core, busy with other processes; DelayKnown says whether the
	// system said (Linux does). CPU plus RunDelay is what the JVM demanded
	// of the cores, which other processes' load does not change.
	RunDelay   time.Duration
	DelayKnown bool
}

// ending says why and how a run's JVM stopped; it is the input to assembler.finish.
type ending struct {
	killed string // why the driver killed the JVM (a timeout); empty otherwise
	status int
	signal string
	output string
}

// running is a test that started and has not ended.
type running struct {
	test  string
	index int
	start time.Time
}

// assembler turns a run's events into per-test results.
type assembler struct {
	order         []string
	covered       []bool
	seen          map[position]bool // results accepted, by order position and test id
	notes         []string
	logs          []agent.Log // the runner's and agent's diagnostics, the first maxLogs
	last          int         // highest order index that got a result, -1 before any
	tests         []TestResult
	classErrors   []agent.ClassError
	classScopes   map[string]int
	perturbations []agent.Perturbation
	states        []agent.State
	invariants    []agent.Invariants
	dataflow      []agent.Dataflow
	current       *running
	class         string // class whose fixtures are active (class-start seen, class-end not)
	classStart    time.Time
	exit          *agent.Exit
	started       bool // run-start seen
	ended         bool // run-end seen
	progress      time.Time
	onTestEnd     func(TestResult, []agent.Perturbation) // RunOptions.OnTestEnd
	sites         map[string][]agent.Perturbation        // the perturbations by test (or class), kept for onTestEnd
	handoff       *Handoff                               // RunOptions.Handoff
	cut           int                                    // where the JVM's order ends: its length, or where it handed the rest over
}

// position is one result's place: an order index and the test id (a test
// template's entry gets one result per invocation id).
type position struct {
	index int
	test  string
}

func newAssembler(order []string) *assembler {
	return &assembler{order: order, covered: make([]bool, len(order)), seen: map[position]bool{}, last: -1, classScopes: map[string]int{}, cut: len(order)}
}

// clash returns a watch.abandon that, when on, gives a reason to stop the
// JVM once a test has failed over a resource clash; nil when off.
func (a *assembler) clash(on bool) func() string {
	if !on {
		return nil
	}
	checked := 0
	return func() string {
		for ; checked < len(a.tests); checked++ {
			if t := a.tests[checked]; Clashes(t) {
				return fmt.Sprintf("stopped: %s clashed with another JVM over a resource", t.Test)
			}
		}
		return ""
	}
}

// handle applies one event received at now.
func (a *assembler) handle(m agent.Message, now time.Time) {
	switch m := m.(type) {
	case *agent.RunStart:
		a.started = true
		a.progress = now
	case *agent.ClassStart:
		a.class, a.classStart = m.Class, now
		a.classScopes[m.Class]++
		a.progress = now
	case *agent.ClassEnd:
		a.class = ""
		a.progress = now
	case *agent.TestStart:
		a.current = &running{test: m.Test, index: m.Index, start: now}
		a.progress = now
		if a.handoff != nil {
			a.handoff.ran(m.Index)
		}
	case *agent.HandoffAt:
		if a.handoff != nil && a.handoff.answered(m.At) && m.At >= 0 && m.At < a.cut {
			a.cut = m.At
		}
	case *agent.TestEnd:
		if a.current != nil && a.current.test == m.Test {
			a.current = nil
		}
		if a.cover(m.Test, m.Index) < 0 {
			return
		}
		r := TestResult{
			Test: m.Test, Outcome: ParseOutcome(m.Outcome), TimeMs: m.TimeMs,
			FailureType: m.FailureType, Message: m.Message, Stack: m.Stack,
		}
		r.Message = messageOf(r)
		a.tests = append(a.tests, r)
		a.progress = now
		if a.onTestEnd != nil {
			a.onTestEnd(r, a.sitesOf(r.Test))
		}
	case *agent.ClassError:
		a.classErrors = append(a.classErrors, *m)
	case *agent.Perturbation:
		a.perturbations = append(a.perturbations, *m)
		if a.onTestEnd != nil {
			if a.sites == nil {
				a.sites = map[string][]agent.Perturbation{}
			}
			a.sites[m.Test] = append(a.sites[m.Test], *m)
		}
	case *agent.State:
		a.states = append(a.states, *m)
		a.progress = now
	case *agent.Invariants:
		a.invariants = append(a.invariants, *m)
		a.progress = now
	case *agent.Dataflow:
		a.dataflow = append(a.dataflow, *m)
		a.progress = now
	case *agent.RunEnd:
		a.ended = true
		a.current = nil
	case *agent.Exit:
		a.exit = m
	case *agent.Log:
		if len(a.logs) < maxLogs {
			a.logs = append(a.logs, *m)
		}
	}
}

// sitesOf returns the perturbations received so far for test's class's
// fixtures, then for test.
func (a *assembler) sitesOf(test string) []agent.Perturbation {
	return slices.Concat(a.sites[testid.ClassOf(test)], a.sites[test])
}

// messageOf is a result's message; for a failure without one (a runner
// that predates describing them), its type and the first frame of its
// stack, so that a failure's message is never empty.
func messageOf(t TestResult) string {
	if t.Message != "" || !t.Outcome.Failed() {
		return t.Message
	}
	msg := t.FailureType
	if msg == "" {
		msg = string(t.Outcome)
	}
	msg += " (no message)"
	for _, line := range strings.Split(t.Stack, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "at "); ok {
			return msg + " (at " + f + ")"
		}
	}
	return msg
}

// maxLogs bounds the log events a run keeps.
const maxLogs = 20

// deadline returns when the run counts as stuck: timeout after the latest
// progress while the run is executing. It is zero when no deadline applies.
func (a *assembler) deadline(timeout time.Duration) time.Time {
	if timeout <= 0 || !a.started || a.ended {
		return time.Time{}
	}
	return a.progress.Add(timeout)
}

// timeout is the test timeout for the test running now: its entry's in
// per when that is shorter than dflt (or dflt is 0), else dflt.
func (a *assembler) timeout(dflt time.Duration, per map[string]time.Duration) time.Duration {
	if a.current == nil || a.current.index < 0 || a.current.index >= len(a.order) {
		return dflt
	}
	if t, ok := per[a.order[a.current.index]]; ok && t > 0 && (dflt <= 0 || t < dflt) {
		return t
	}
	return dflt
}

// matches reports whether a result for test answers the order entry:
// the same id, or an invocation "entry[i]" of a test template.
func matches(entry, test string) bool {
	return testid.IsInvocation(test, entry)
}

// cover finds the order entry a result for test at index answers, marks it
// and returns its index. It returns -1, and notes why, for a test that is in
// no entry of the order and for a second result at one position: such
// results are ignored.
func (a *assembler) cover(test string, index int) int {
	i := -1
	if index >= 0 && index < len(a.order) && matches(a.order[index], test) {
		i = index
	} else {
		for j, entry := range a.order {
			if matches(entry, test) && (i < 0 || !a.covered[j] && a.covered[i]) {
				i = j
			}
		}
	}
	switch {
	case i < 0:
		a.notes = append(a.notes, fmt.Sprintf("ignored a result for %q, which is not in the order", test))
		return -1
	case a.seen[position{i, test}]:
		a.notes = append(a.notes, fmt.Sprintf("ignored a second result for %q at position %d of the order", test, i))
		return -1
	}
	a.seen[position{i, test}] = true
	a.covered[i] = true
	a.last = max(a.last, i)
	return i
}

// victim finds the test the JVM was busy with when it stopped early: the
// running test, the test the exit event names, or the next test of the class
// whose fixtures were running. fixture reports the last case.
func (a *assembler) victim() (test string, index int, start time.Time, fixture bool) {
	switch {
	case a.current != nil:
		return a.current.test, a.current.index, a.current.start, false
	case a.exit != nil && a.exit.Test != "":
		return a.exit.Test, -1, time.Time{}, false
	case a.class != "":
		for j := a.last + 1; j < len(a.order); j++ {
			if a.covered[j] {
				continue
			}
			if testid.ClassOf(a.order[j]) == a.class {
				return a.order[j], j, a.classStart, true
			}
			break
		}
	}
	return "", -1, time.Time{}, false
}

// resumeAt is the order index a resumed run goes on from: after the last
// entry that got a result when the JVM ended early having got some done,
// else where its order ends (its length, or where it handed the rest over).
func (a *assembler) resumeAt() int {
	if a.ended || a.last < 0 {
		return a.cut
	}
	return min(a.last+1, a.cut)
}

// ending says how a JVM that ended before run-end ended: "timeout" when the
// driver killed it, "System.exit", or "crash"; empty when it ran to the end.
func (a *assembler) ending(killed bool) string {
	switch {
	case a.ended:
		return ""
	case killed:
		return "timeout"
	case a.exit != nil:
		return "System.exit"
	}
	return "crash"
}

// finish completes the results once the JVM is gone.
func (a *assembler) finish(e ending, now time.Time) ([]TestResult, Exit) {
	exit := Exit{Status: e.status, Signal: e.signal}
	if a.exit != nil {
		exit.SystemExit = true
		exit.Stack = a.exit.Stack
	}
	tests := a.tests
	if !a.ended {
		// The JVM ended abnormally: what the runner said may be why.
		for _, l := range a.logs {
			a.notes = append(a.notes, fmt.Sprintf("runner %s: %s", l.Level, strings.TrimRight(l.Message, "\n")))
		}
		if test, index, start, fixture := a.victim(); test != "" && a.cover(test, index) >= 0 {
			r := TestResult{Test: test}
			if !start.IsZero() {
				r.TimeMs = now.Sub(start).Milliseconds()
			}
			if e.killed != "" {
				r.Outcome = Timeout
				r.Message = e.killed
			} else {
				r.Outcome = Crash
				r.Message, r.Stack = a.crashReport(e)
			}
			if fixture {
				r.Message = fmt.Sprintf("in the class fixtures of %s: %s", testid.ClassOf(test), r.Message)
			}
			tests = append(tests, r)
		}
	}
	for i, entry := range a.order[:a.cut] {
		if !a.covered[i] {
			tests = append(tests, TestResult{Test: entry, Outcome: NotRun})
		}
	}
	return tests, exit
}

// crashReport explains a JVM that ended before run-end.
func (a *assembler) crashReport(e ending) (message, stack string) {
	if a.exit != nil {
		status := a.exit.Status
		if status < 0 && e.signal == "" {
			status = e.status // the agent could not tell; the process can
		}
		return fmt.Sprintf("System.exit(%d) was called", status), a.exit.Stack
	}
	how := fmt.Sprintf("exit status %d", e.status)
	if e.signal != "" {
		how = "killed by " + e.signal
	}
	message = "the JVM died (" + how + ")"
	if tail := tailLines(e.output, crashTailLines); tail != "" {
		message += "; output tail:\n" + tail
	}
	return message, ""
}

// crashTailLines is how many output lines a crash message quotes.
const crashTailLines = 20

// tailLines returns the last n non-empty-trailing lines of s.
func tailLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
