// Package e2e holds flaky's end-to-end tests: real Maven and real JVMs on the
// fixture projects in testdata/, checked against each fixture's expected.json.
//
// Every test, and every fixture's subtest of the long ones, runs in parallel
// with others (go test's -parallel, the number of CPUs by default): much of
// an e2e test's wall time is Maven and JVM start-up and sleeps. So no test
// changes the process's environment or working directory, and tests that
// share a prepared fixture (fixture) only read its directory or run flaky
// commands that write nothing there but target/flaky of their own analysis.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

// expected is a fixture's expected.json: the findings in report format plus
// launcher-level facts about the fixture.
type expected struct {
	Version  int       `json:"version"`
	Module   string    `json:"module"`
	Findings []finding `json:"findings"`
	Fixture  struct {
		Stable     []string `json:"stable"`
		Hangs      []string `json:"hangs"`
		Exits      []string `json:"exits"`
		Interleave struct {
			A1 string `json:"a1"`
			B1 string `json:"b1"`
			A2 string `json:"a2"`
		} `json:"interleave"`
		DefaultOrder []string `json:"defaultOrder"`
		// ClassFixtures are the tests whose class has class-level fixtures.
		ClassFixtures []string `json:"classFixtures"`
	} `json:"fixture"`
}

type finding struct {
	Test      string     `json:"test"`
	Kind      string     `json:"kind"`
	Polluters [][]string `json:"polluters"`
	Setters   [][]string `json:"setters"`
	Cleaners  [][]string `json:"cleaners"`
	// PollutedState, when given, is exactly what detect must name.
	PollutedState []report.StateItem `json:"pollutedState"`
}

func (e *expected) ofKind(kind string) []finding {
	var out []finding
	for _, f := range e.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// Safety nets: bounds on work that does not hang, which only a launcher
// or tool that never ends its work reaches. A JVM of a whole fixture takes
// seconds on a quiet machine and about a minute beside 16 spinners on two
// cores; a call of many JVMs or a Maven build, minutes there. The nets are
// ten times that, so a slow machine makes no test fail on them, and a hang
// still ends the test before the suite's own timeout.
const (
	jvmSafetyNet  = 10 * time.Minute // launcher.Options.RunTimeout of runs that do not hang
	callSafetyNet = 30 * time.Minute // a context for a call that runs JVMs or Maven
)

// prepared is a fixture copied to a scratch directory, compiled, with its
// test setup and a launcher for it.
type prepared struct {
	name     string
	dir      string
	expected expected
	setup    *mvn.TestSetup
	launcher *launcher.Launcher
}

var (
	scratchOnce sync.Once
	scratchDir  string
	fixturesMu  sync.Mutex
	fixtures    = map[string]*fixtureOnce{}
	jarsOnce    sync.Once
	jars        agent.Jars
	jarsErr     error
)

type fixtureOnce struct {
	once sync.Once
	p    *prepared
	err  error
}

func TestMain(m *testing.M) {
	// Maven's own JVM (not the test JVMs, which take their flags from the
	// argLine) starts and ends within seconds in every test: the client
	// compiler and the serial collector cut its CPU time by about a third,
	// and the tests are CPU-bound on a 2-core machine. A MAVEN_OPTS the
	// caller set wins.
	if _, set := os.LookupEnv("MAVEN_OPTS"); !set {
		os.Setenv("MAVEN_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
	}
	code := m.Run()
	fixturesMu.Lock()
	for _, f := range fixtures {
		if f.p != nil && f.p.launcher != nil {
			f.p.launcher.Close()
		}
	}
	fixturesMu.Unlock()
	if scratchDir != "" {
		os.RemoveAll(scratchDir)
	}
	os.Exit(code)
}

func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// needsTools skips end-to-end tests in -short mode and fails when the tools are missing.
func needsTools(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	for _, tool := range []string{"java", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not on PATH: run scripts/setup.sh", tool)
		}
	}
}

func javaBin() string {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		return filepath.Join(h, "bin", "java")
	}
	return "java"
}

// otherJDK is a second JDK on this machine (the Temurin one), or "" when there is none.
func otherJDK() string {
	matches, _ := filepath.Glob("/usr/lib/jvm/temurin-*/bin/java")
	if len(matches) == 0 {
		return ""
	}
	return matches[len(matches)-1]
}

// copyFixture copies testdata/<name> into a fresh scratch directory and returns its path.
func copyFixture(t testing.TB, name string) string {
	t.Helper()
	scratchOnce.Do(func() {
		var err error
		scratchDir, err = os.MkdirTemp("", "flaky-e2e-")
		if err != nil {
			panic(err)
		}
	})
	src := filepath.Join(repoRoot(t), "testdata", name)
	dst, err := os.MkdirTemp(scratchDir, name+"-")
	if err != nil {
		t.Fatal(err)
	}
	opt := copy.Options{Skip: func(_ os.FileInfo, src, _ string) (bool, error) {
		return filepath.Base(src) == "target", nil
	}}
	if err := copy.Copy(src, dst, opt); err != nil {
		t.Fatalf("copying fixture %s: %v", name, err)
	}
	return dst
}

func readExpected(t testing.TB, dir string) expected {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("parsing %s/expected.json: %v", dir, err)
	}
	return e
}

// fixture prepares testdata/<name> once per test binary: copy, compile, classpath, launcher.
func fixture(t *testing.T, name string) *prepared {
	t.Helper()
	needsTools(t)
	fixturesMu.Lock()
	f, ok := fixtures[name]
	if !ok {
		f = &fixtureOnce{}
		fixtures[name] = f
	}
	fixturesMu.Unlock()
	f.once.Do(func() { f.p, f.err = prepare(t, name, javaBin()) })
	if f.err != nil {
		t.Fatalf("preparing fixture %s: %v", name, f.err)
	}
	return f.p
}

func prepare(t *testing.T, name, java string) (*prepared, error) {
	dir := copyFixture(t, name)
	p := &prepared{name: name, dir: dir, expected: readExpected(t, dir)}
	ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
	defer cancel()
	var log bytes.Buffer
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{Log: &log})
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, log.String())
	}
	p.setup = setup
	// Class-data sharing, as detect and verify use it: JVMs start faster.
	p.launcher, err = newLauncher(setup, java, launcher.Options{RunTimeout: jvmSafetyNet, CDSDir: launcher.CDSCache()})
	return p, err
}

func newLauncher(setup *mvn.TestSetup, java string, opts launcher.Options) (*launcher.Launcher, error) {
	jarsOnce.Do(func() { jars, jarsErr = agent.Extract() })
	if jarsErr != nil {
		return nil, jarsErr
	}
	env := launcher.Env{
		Java:      java,
		Classpath: setup.Classpath,
		JVMArgs:   setup.ArgLine,
		SysProps:  setup.SysProps,
		Dir:       setup.ModuleDir,
	}
	return launcher.New(env, jars, opts)
}

// runOrders runs the orders in parallel and fails the test on infrastructure errors.
func runOrders(t *testing.T, l *launcher.Launcher, orders ...[]string) []*launcher.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
	defer cancel()
	res, err := l.RunAll(ctx, orders)
	if err != nil {
		t.Fatalf("running %d orders: %v", len(orders), err)
	}
	return res
}

// outcomeOf returns the outcome of test id in r ("" when absent).
func outcomeOf(r *launcher.Result, id string) launcher.Outcome {
	for _, tr := range r.Tests {
		if tr.Test == id {
			return tr.Outcome
		}
	}
	return ""
}

func resultOf(r *launcher.Result, id string) launcher.TestResult {
	for _, tr := range r.Tests {
		if tr.Test == id {
			return tr
		}
	}
	return launcher.TestResult{}
}

func failed(o launcher.Outcome) bool { return o == launcher.Fail || o == launcher.Error }

func join(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func describe(r *launcher.Result) string {
	var b strings.Builder
	for _, tr := range r.Tests {
		fmt.Fprintf(&b, "  %-10s %s %s\n", tr.Outcome, tr.Test, report.FirstLine(tr.Message))
	}
	return b.String()
}
