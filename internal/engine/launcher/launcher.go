// Package launcher starts test JVMs that run the flaky runner with the flaky
// agent attached, follows their events over the agent protocol, enforces
// timeouts, and turns what happened into per-test results.
package launcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Defaults for zero Options fields.
const (
	DefaultRunTimeout  = 10 * time.Minute
	DefaultOutputLimit = 64 << 10
)

// DefaultTestTimeout is the test timeout of every flaky command that runs
// tests (their --test-timeout; Options.TestTimeout itself has no default)
// and of the flaky Surefire provider (-Dflaky.testTimeout): a test that runs
// this long is cut, so a hang ends without waiting for the run timeout.
// Two minutes is about a hundred times what a unit test takes, leaving room
// for a machine many times slower than usual; a suite with longer tests
// raises it (0 turns it off).
const DefaultTestTimeout = 2 * time.Minute

// runnerMain is the runner's main class.
const runnerMain = "dev.flaky.runner.Main"

// Env describes how to start a test JVM for a module.
type Env struct {
	Java      string            // java executable
	Classpath []string          // test classes, classes, dependencies (the runner jar is added)
	JVMArgs   []string          // e.g. Surefire's argLine, already split
	SysProps  map[string]string // passed as -Dkey=value
	Env       []string          // KEY=VALUE added to this process's environment
	Dir       string            // working directory, usually the module directory
}

// Options tune a Launcher.
type Options struct {
	// RunTimeout bounds one JVM; 0 means DefaultRunTimeout, negative means none.
	RunTimeout time.Duration
	// TestTimeout bounds one test (and a class's fixtures); 0 means none.
	TestTimeout time.Duration
	// OutputLimit bounds the captured output per JVM, kept as head and tail;
	// 0 means DefaultOutputLimit.
	OutputLimit int
	// Workers bounds the JVMs RunAll runs at once; 0 means runtime.NumCPU().
	Workers int
	// Notef, when set, receives every note of every run (Result.Notes) as
	// the run ends, for commands that do not print each run's result.
	Notef func(note string)
	// Ran, when set, is called with every result RunWith returns (each
	// order run, however many JVMs it took), for progress displays.
	Ran func(*Result)
	// TmpDir is where each JVM gets its own temporary directory (its
	// java.io.tmpdir and TMPDIR, unless the module's environment sets
	// them), removed after the run; empty means the launcher's own
	// temporary directory, which Close removes.
	TmpDir string
	// Confine, when set, runs every JVM in a sandbox (see Confinement);
	// New fails where the machine has none (ConfinementAvailable). The
	// JVMs' temporary directories then go to a directory of their own, so
	// that a JVM cannot write the launcher's order and class path files.
	Confine *Confinement
	// CDSDir, when set, is where the launcher keeps class-data sharing
	// archives, one per module class path and JDK, which later JVMs of the
	// module start faster with (see cds.go); the JVMs run without one when
	// the module or the JDK cannot share classes.
	CDSDir string
}

// RunOptions tune one run of RunWith.
type RunOptions struct {
	// AgentOptions are the agent options of this run's JVM; the launcher
	// sets their port.
	AgentOptions agent.Options
	// KeepTmp keeps the JVM's temporary directory after the run (as
	// evidence); Result.TmpDir names it and the caller removes it.
	KeepTmp bool
	// Resume goes on with the rest of the order in a fresh JVM when a JVM
	// ends early (a test timed out, the JVM crashed or called
	// System.exit), and again after each such end, so every test gets a
	// result. It suits analyses where the tests run before a test do not
	// matter (API perturbation, unperturbed and repeated runs); never
	// order-dependence, whose prefixes are the point. Result.Resumed says
	// which tests ran in which JVM.
	Resume bool
	// TestTimeouts bound single order entries (a test, or a test template
	// with its invocations) instead of Options.TestTimeout when shorter
	// or when that is 0.
	TestTimeouts map[string]time.Duration
	// OnTestEnd, when set, is called with each test's result as soon as
	// the JVM reports it, long before the run ends, and the perturbations
	// reported so far for the test or its class's fixtures. It is advisory:
	// a run that is then rerun alone (a resource clash) reports its tests
	// again (but not the clash), and results the driver makes up at the end
	// (a timeout, a crash) are not reported. It must not block.
	OnTestEnd func(TestResult, []agent.Perturbation)
	// Handoff, when set, lets the caller hand the end of the order over to
	// another JVM while the run goes on (see Handoff); the Result then
	// ends where the run's JVMs stopped.
	Handoff *Handoff

	// stopAtClash kills the JVM as soon as a test clashes over a resource
	// (the run beside other JVMs is then rerun alone, so its rest is
	// wasted), and a resumed run goes no further.
	stopAtClash bool
}

// Job is one order for RunJobs and the options to run it with.
type Job struct {
	Order []string
	RunOptions
}

// TestInfo is one test found by List. ClassFixtures tells whether its class
// has class-level fixtures (@BeforeClass, @ClassRule, @BeforeAll, a JUnit 3
// suite(), a per-class test instance, class-level extensions, or a runner
// whose class-level behaviour is unknown). Dynamic marks a test template or
// factory, whose invocations (ID[1], ID[2], ...) are known only when it runs.
type TestInfo struct {
	ID            string `json:"id"`
	Class         string `json:"class"`
	Method        string `json:"method"`
	Engine        string `json:"engine"`
	ClassFixtures bool   `json:"classFixtures"`
	Dynamic       bool   `json:"dynamic,omitempty"`
}

// EngineTestNG is TestInfo.Engine of a TestNG test.
const EngineTestNG = "testng"

// Selection picks the test classes List looks at; empty Includes and
// Excludes mean Surefire's defaults.
type Selection struct {
	TestClassesDir string
	Includes       []string
	Excludes       []string
}

// Launcher starts test JVMs for one module environment.
type Launcher struct {
	lanes   lanes
	env     Env
	jars    agent.Jars
	opts    Options
	server  *agent.Server
	tmp     string
	cpArgs  []string
	cds     *cds
	confine *confineSpec // the sandbox of every JVM; nil: none
	load    jvmLoad      // the running JVMs' CPU use
	standby standbyPool  // JVMs started ahead of their runs (Prestart)
}

// New checks the Java executable, prepares the classpath arguments and
// starts the agent server. Close releases them. The build's JaCoCo, if any,
// runs in the JVMs without instrumenting flaky's classes or writing the
// build's coverage data (see coexist).
func New(env Env, jars agent.Jars, opts Options) (*Launcher, error) {
	env = coexist(env)
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = DefaultOutputLimit
	}
	if opts.RunTimeout == 0 {
		opts.RunTimeout = DefaultRunTimeout
	}
	if opts.Confine != nil {
		if err := ConfinementAvailable(); err != nil {
			return nil, err
		}
	}
	jvm, err := ProbeJVM(context.Background(), env.Java)
	if err != nil {
		return nil, err
	}
	removeStaleTemp(os.TempDir())
	killOrphaned()
	tmp, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", tempPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("create launcher temp dir: %w", err)
	}
	switch {
	case opts.TmpDir == "" && opts.Confine != nil:
		opts.TmpDir = filepath.Join(tmp, "jvms")
		fallthrough
	case opts.TmpDir != "":
		err = os.MkdirAll(opts.TmpDir, 0o755)
	default:
		opts.TmpDir = tmp
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("create the test JVMs' temp dir: %w", err)
	}
	if jars.Agent, err = optionSafe(jars.Agent, tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	classpath := append(append([]string(nil), env.Classpath...), jars.Runner)
	// With class-data sharing the agent's jar is on the class path too, among
	// the jars the archive holds: -javaagent puts it after the module's
	// directories, whose classes no archive may precede, and a JVM with the
	// agent then loaded its classes (ByteBuddy's among them) from the jar.
	shared, classpath := newCDS(context.Background(), opts.CDSDir, env.Java, jvm, classpath, jars.Agent, env.JVMArgs, tmp)
	cpArgs, err := classpathArgs(classpath, jvm, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	server, err := agent.NewServer()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	l := &Launcher{env: env, jars: jars, opts: opts, server: server, tmp: tmp, cpArgs: cpArgs, cds: shared}
	if opts.Confine != nil {
		if l.confine, err = confineSpecOf(opts.Confine, opts.TmpDir, server.Port()); err != nil {
			server.Close()
			os.RemoveAll(tmp)
			return nil, err
		}
	}
	return l, nil
}

// Java returns the java executable the launcher starts.
func (l *Launcher) Java() string { return l.env.Java }

// Close ends the standby JVMs no run took, stops the agent server and
// removes temporary files, after a class-data sharing archive the launcher
// is making is done.
func (l *Launcher) Close() error {
	l.standby.close()
	l.cds.wait()
	err := l.server.Close()
	if rmErr := os.RemoveAll(l.tmp); err == nil {
		err = rmErr
	}
	return err
}

// Run executes order in one fresh JVM.
func (l *Launcher) Run(ctx context.Context, order []string) (*Result, error) {
	return l.RunWith(ctx, order, RunOptions{})
}

// writeOrder writes order to a new order file in the launcher's temporary
// directory; the caller removes it.
func (l *Launcher) writeOrder(order []string) (string, error) {
	f, err := os.CreateTemp(l.tmp, "order-*.txt")
	if err != nil {
		return "", fmt.Errorf("write order file: %w", err)
	}
	_, err = f.WriteString(strings.Join(order, "\n") + "\n")
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write order file: %w", err)
	}
	return f.Name(), nil
}

// runOnce executes order in one fresh JVM with opts.
func (l *Launcher) runOnce(ctx context.Context, order []string, opts RunOptions) (*Result, error) {
	if _, err := opts.AgentOptions.Encode(); err != nil {
		return nil, fmt.Errorf("agent options: %w", err)
	}
	orderFile, err := l.writeOrder(order)
	if err != nil {
		return nil, err
	}
	defer os.Remove(orderFile)

	asm := newAssembler(order)
	asm.onTestEnd = opts.OnTestEnd
	asm.handoff = opts.Handoff
	if opts.stopAtClash && opts.OnTestEnd != nil {
		// The run is stopped and rerun alone at a clash: its clashing
		// test's failure is not the test's.
		asm.onTestEnd = func(t TestResult, sites []agent.Perturbation) {
			if !Clashes(t) {
				opts.OnTestEnd(t, sites)
			}
		}
	}
	w := &watch{
		handle:       asm.handle,
		deadline:     func() time.Time { return asm.deadline(asm.timeout(l.opts.TestTimeout, opts.TestTimeouts)) },
		timeout:      func() time.Duration { return asm.timeout(l.opts.TestTimeout, opts.TestTimeouts) },
		ended:        func() bool { return asm.ended },
		abandon:      asm.clash(opts.stopAtClash),
		agentOptions: opts.AgentOptions,
		keepTmp:      opts.KeepTmp,
	}
	if h := opts.Handoff; h != nil {
		w.connected = func(send func(agent.Message) error) {
			h.connected(func(m agent.Message) error {
				if l.lanes.serial() {
					return errSerial // the rest would run alone after this JVM anyway
				}
				return send(m)
			})
		}
	}
	var p *launched
	if opts.Handoff != nil {
		p, err = l.launch(ctx, []string{"run", "--order", orderFile}, w) // a standby JVM takes no handoff
	} else {
		p, err = l.launchRun(ctx, orderFile, w)
	}
	if opts.Handoff != nil {
		opts.Handoff.gone()
	}
	if err != nil {
		return nil, err
	}
	tests, exit := asm.finish(ending{killed: p.killed, status: p.status, signal: p.signal, output: p.output}, p.end)
	notes := append(p.notes, asm.notes...)
	if l.opts.Notef != nil {
		for _, n := range notes {
			l.opts.Notef(n)
		}
	}
	return &Result{
		Order:         order[:asm.cut],
		Tests:         tests,
		ClassErrors:   asm.classErrors,
		ClassScopes:   asm.classScopes,
		Perturbations: asm.perturbations,
		States:        asm.states,
		Invariants:    asm.invariants,
		Dataflow:      asm.dataflow,
		Exit:          exit,
		TmpDir:        p.tmpDir,
		TimedOut:      p.killed != "",
		Notes:         notes,
		Output:        p.output,
		Duration:      p.end.Sub(p.start),
		Ended:         p.end,
		covered:       asm.covered[:asm.cut],
		resumeAt:      asm.resumeAt(),
		ending:        asm.ending(p.killed != ""),
		victim:        victimOf(tests),
		CPU:           p.cpu,
		RunDelay:      p.runDelay,
		DelayKnown:    p.delayKnown,
		MaxRSS:        p.maxRSS,
	}, nil
}

// victimOf returns the test whose JVM ended while it ran (the one result
// with a timeout or crash outcome), or "".
func victimOf(tests []TestResult) string {
	for _, t := range tests {
		if t.Outcome == Timeout || t.Outcome == Crash {
			return t.Test
		}
	}
	return ""
}

// RunAll runs each order in its own JVM, at most Options.Workers at once,
// and returns the results in the order of orders. The first error cancels
// the runs still going.
func (l *Launcher) RunAll(ctx context.Context, orders [][]string) ([]*Result, error) {
	jobs := make([]Job, len(orders))
	for i, order := range orders {
		jobs[i] = Job{Order: order}
	}
	return l.RunJobs(ctx, jobs)
}

// RunJobs is RunAll for orders that each have their own RunOptions.
func (l *Launcher) RunJobs(ctx context.Context, jobs []Job) ([]*Result, error) {
	results := make([]*Result, len(jobs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(l.opts.Workers)
	for i, job := range jobs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, err := l.RunWith(ctx, job.Order, job.RunOptions)
			if err != nil {
				return fmt.Errorf("order %d: %w", i, err)
			}
			results[i] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return results, nil
}

// IDs returns the ids of listed tests, in their order.
func IDs(infos []TestInfo) []string {
	ids := make([]string, len(infos))
	for i, ti := range infos {
		ids[i] = ti.ID
	}
	return ids
}

// List asks the runner for the tests of the selected classes, in the
// module's default order.
func (l *Launcher) List(ctx context.Context, sel Selection) ([]TestInfo, error) {
	args := []string{"list", "--test-classes", sel.TestClassesDir}
	for _, p := range sel.Includes {
		args = append(args, "--include", p)
	}
	for _, p := range sel.Excludes {
		args = append(args, "--exclude", p)
	}
	var listed *agent.Tests
	w := &watch{
		handle: func(m agent.Message, _ time.Time) {
			if t, ok := m.(*agent.Tests); ok {
				listed = t
			}
		},
		deadline: func() time.Time { return time.Time{} },
		ended:    func() bool { return listed != nil },
	}
	p, err := l.launch(ctx, args, w)
	if err != nil {
		return nil, err
	}
	if listed == nil {
		return nil, fmt.Errorf("the runner listed no tests (%s)%s", p.describe(), outputTail(p.output))
	}
	tests := make([]TestInfo, len(listed.Tests))
	for i, t := range listed.Tests {
		tests[i] = TestInfo(t)
	}
	return tests, nil
}

// tempPrefix starts the name of a launcher's temporary directory, which
// continues with the pid of the driver that owns it.
const tempPrefix = "flaky-launch-"

// removeStaleTemp removes the temporary directories in dir that launchers of
// drivers that are no longer running left behind (a driver that was killed
// cannot clean up).
func removeStaleTemp(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*-*"))
	for _, m := range matches {
		pidPart, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(m), tempPrefix), "-")
		pid, err := strconv.Atoi(pidPart)
		if err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		_ = os.RemoveAll(m)
	}
}

// optionSafe returns a path to the agent jar that -javaagent can take: the
// JVM ends the jar path at the first '=', so a jar whose path holds one is
// linked into the launcher's temporary directory.
func optionSafe(jar, tmp string) (string, error) {
	if !strings.Contains(jar, "=") {
		return jar, nil
	}
	link := filepath.Join(tmp, filepath.Base(jar))
	if strings.Contains(link, "=") {
		return "", fmt.Errorf("the agent jar %s and the temporary directory %s both contain '=', which -javaagent cannot take; set FLAKY_CACHE_DIR or TMPDIR to a path without one", jar, tmp)
	}
	if err := os.Symlink(jar, link); err != nil {
		return "", fmt.Errorf("link the agent jar: %w", err)
	}
	return link, nil
}

// tmpdirProperty is the JVM's temporary directory property.
const tmpdirProperty = "java.io.tmpdir"

// command returns the java arguments for one runner invocation, its agent
// connecting to port with agentOptions. tmpDir is the JVM's java.io.tmpdir
// unless the module sets its own.
func (l *Launcher) command(port int, agentOptions agent.Options, mainArgs []string, tmpDir string) ([]string, error) {
	args := append([]string(nil), l.env.JVMArgs...)
	if len(mainArgs) > 0 && mainArgs[0] == "list" {
		// A JVM that only lists the tests runs none of them: the client
		// compiler alone starts it faster and changes nothing it reports.
		args = fastStartArgs(args)
	}
	keys := make([]string, 0, len(l.env.SysProps))
	for k := range l.env.SysProps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-D"+k+"="+l.env.SysProps[k])
	}
	if !l.setsTmpdir() {
		args = append(args, "-D"+tmpdirProperty+"="+tmpDir)
	}
	agentOptions.Port = port
	javaagent, err := agentOptions.JavaAgent(l.jars.Agent)
	if err != nil {
		return nil, err
	}
	args = append(args, javaagent)
	args = append(args, l.cpArgs...)
	args = append(args, runnerMain)
	return append(args, mainArgs...), nil
}

// setsTmpdir reports whether the module's JVM arguments or system
// properties set java.io.tmpdir themselves.
func (l *Launcher) setsTmpdir() bool {
	if _, ok := l.env.SysProps[tmpdirProperty]; ok {
		return true
	}
	return slices.ContainsFunc(l.env.JVMArgs, func(a string) bool { return strings.HasPrefix(a, "-D"+tmpdirProperty+"=") })
}

// errNotConnected is wrapped by launch errors for a JVM that never said hello.
var errNotConnected = errors.New("the test JVM never connected to flaky")

// errSerial refuses a handoff while JVMs run alone (see lanes).
var errSerial = errors.New("JVMs run alone after a resource clash")

// outputTail formats the end of a JVM's output for an error message.
func outputTail(output string) string {
	tail := tailLines(output, crashTailLines)
	if tail == "" {
		return "; it printed nothing"
	}
	return "; output tail:\n" + tail
}
