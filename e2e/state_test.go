package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/state"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

// stateExpected is testdata/state/expected.json.
type stateExpected struct {
	Module   string `json:"module"`
	Findings []struct {
		Test          string             `json:"test"`
		Kind          report.Kind        `json:"kind"`
		Polluters     [][]string         `json:"polluters"`
		Setters       [][]string         `json:"setters"`
		PollutedState []report.StateItem `json:"pollutedState"`
	} `json:"findings"`
	StateCut  []string `json:"stateCut"`
	Polluters []string `json:"polluters"`
}

// TestPollutedState names and confirms the polluted state of every OD test
// of the state fixture from the failing and passing orders its
// expected findings give, in JVMs like detect's, and checks that `flaky
// pollution` lists exactly the polluting tests. One Maven preparation serves
// both.
func TestPollutedState(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "state")
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want stateExpected
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(dir, want.Module)
	ctx, cancel := context.WithTimeout(context.Background(), callSafetyNet)
	defer cancel()
	setup, err := mvn.Prepare(ctx, module, mvn.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("debugger", func(t *testing.T) { checkPollutedState(ctx, t, setup, want, javaBin(), nil) })
	t.Run("warm", func(t *testing.T) { checkWarmResets(ctx, t, setup, want) })
	// On the newest JDK of the machine (module rules: the locale is restored through java.base, which the
	// agent opens to itself), two kinds of root.
	if java := otherJDK(); java != "" {
		t.Run("other JDK", func(t *testing.T) {
			checkPollutedState(ctx, t, setup, want, java, []string{"fixture.state.GuestTest#isGuest", "fixture.state.DecimalTest#usesPoint"})
		})
	}

	t.Run("pollution", func(t *testing.T) {
		cmd := exec.Command(flakyBin(t), "pollution", "--module", module)
		out, err := cmd.CombinedOutput()
		if code := exitCode(err); code != 1 {
			t.Fatalf("flaky pollution exited %d, want 1:\n%s", code, out)
		}
		rep, err := report.Read(filepath.Join(module, "target", "flaky", "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings {
			if f.Kind == report.Polluter {
				got = append(got, f.Test)
				if len(f.PollutedState) == 0 {
					t.Errorf("polluter %s names no state", f.Test)
				}
				if !strings.Contains(string(out), f.Test) {
					t.Errorf("console does not list polluter %s:\n%s", f.Test, out)
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want.Polluters) {
			t.Errorf("polluters %v, want %v\n%s", got, want.Polluters, out)
		}
		checkRepublished(t, filepath.Join(module, "target", "flaky"), got)
	})
}

// checkRepublished checks that a command which rewrote flakyDir's
// report.json wrote every other format from it too (issue 52, item 3:
// pollution and repair left index.html, summary.md and flaky.sarif
// disagreeing with it): none is older than report.json, and the pages
// name each of tests.
func checkRepublished(t *testing.T, flakyDir string, tests []string) {
	t.Helper()
	rj, err := os.Stat(filepath.Join(flakyDir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "summary.md", "flaky.sarif"} {
		path := filepath.Join(flakyDir, name)
		fi, err := os.Stat(path)
		if err != nil || fi.ModTime().Before(rj.ModTime()) {
			t.Errorf("%s: %v, or older than report.json: not written from it", name, err)
			continue
		}
		if name == "flaky.sarif" {
			continue
		}
		data, _ := os.ReadFile(path)
		for _, test := range tests {
			if !strings.Contains(string(data), testid.Parse(test).Method) {
				t.Errorf("%s does not name %s", name, test)
			}
		}
	}
}

// checkPollutedState names and confirms the state of the expected OD
// findings (only those named in only, when not nil) with java and checks it.
func checkPollutedState(ctx context.Context, t *testing.T, setup *mvn.TestSetup, want stateExpected, java string, only []string) {
	start := time.Now()
	jarsOnce.Do(func() { jars, jarsErr = agent.Extract() })
	if jarsErr != nil {
		t.Fatal(jarsErr)
	}
	env := launcher.Env{Java: java, Classpath: setup.Classpath, JVMArgs: setup.ArgLine, SysProps: setup.SysProps, Dir: setup.ModuleDir}
	l, err := launcher.New(launcher.FastStart(env), jars, launcher.Options{RunTimeout: jvmSafetyNet})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var findings []report.Finding
	var wanted []int
	for i, f := range want.Findings {
		if only != nil && !slices.Contains(only, f.Test) || f.Kind != report.ODVictim && f.Kind != report.ODBrittle {
			continue
		}
		wanted = append(wanted, i)
		rf := report.Finding{Test: f.Test, Kind: f.Kind}
		switch f.Kind {
		case report.ODVictim:
			rf.FailingOrder, rf.PassingOrder = append(slices.Clone(f.Polluters[0]), f.Test), []string{f.Test}
		case report.ODBrittle:
			rf.FailingOrder, rf.PassingOrder = []string{f.Test}, append(slices.Clone(f.Setters[0]), f.Test)
		}
		findings = append(findings, rf)
	}
	var notes []string
	note := func(_, line string) {
		notes = append(notes, line)
		t.Log(line)
	}
	timings, err := state.Annotate(ctx, l, findings, nil, nil, logs.New(note, note))
	if err != nil {
		t.Fatal(err)
	}
	for j, i := range wanted {
		f := want.Findings[i]
		got := findings[j].PollutedState
		if len(got) != len(f.PollutedState) {
			t.Errorf("%s %s: pollutedState %+v, want %+v", f.Kind, f.Test, got, f.PollutedState)
			continue
		}
		for k, w := range f.PollutedState {
			g := got[k]
			if g.Kind != w.Kind || g.Root != w.Root || g.Path != w.Path || g.Confirmed != w.Confirmed ||
				(w.Passing != "" && g.Passing != w.Passing) || (w.Failing != "" && g.Failing != w.Failing) {
				t.Errorf("%s %s: pollutedState[%d] = %+v, want %+v", f.Kind, f.Test, k, g, w)
			}
		}
	}
	for _, root := range want.StateCut {
		if only == nil && !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "reached its bounds") && strings.Contains(n, root) }) {
			t.Errorf("no note says the capture of %s was cut: %q", root, notes)
		}
	}
	for _, tm := range timings {
		t.Logf("%s: %s, %d runs", tm.Test, tm.Duration.Round(time.Millisecond), tm.Runs)
	}
	t.Logf("debugger: %d findings in %s", len(timings), time.Since(start).Round(time.Millisecond))
}

// checkWarmResets runs, in one warm JVM (launcher.RunWarm), each expected OD
// finding's failing and passing order one right after the other: the
// pollution (a static field, a system property, a file, the default locale
// and time zone) must show inside an order, where the victim fails after its
// polluter and the brittle passes after its setter, and must not leak into
// the next order, where the victim alone passes and the brittle alone fails.
func checkWarmResets(ctx context.Context, t *testing.T, setup *mvn.TestSetup, want stateExpected) {
	start := time.Now()
	jarsOnce.Do(func() { jars, jarsErr = agent.Extract() })
	if jarsErr != nil {
		t.Fatal(jarsErr)
	}
	env := launcher.Env{Java: javaBin(), Classpath: setup.Classpath, JVMArgs: setup.ArgLine, SysProps: setup.SysProps, Dir: setup.ModuleDir}
	l, err := launcher.New(launcher.FastStart(env), jars, launcher.Options{RunTimeout: jvmSafetyNet})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var orders [][]string
	var fails []bool // whether the last test of each order must fail
	for _, f := range want.Findings {
		switch f.Kind {
		case report.ODVictim:
			orders = append(orders, append(slices.Clone(f.Polluters[0]), f.Test), []string{f.Test})
			fails = append(fails, true, false)
		case report.ODBrittle:
			orders = append(orders, append(slices.Clone(f.Setters[0]), f.Test), []string{f.Test})
			fails = append(fails, false, true)
		}
	}
	res, err := l.RunWarm(ctx, orders)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for i, r := range res {
		notes = append(notes, r.Notes...)
		test := orders[i][len(orders[i])-1]
		if !r.Warm {
			t.Errorf("order %d %v ran in a fresh JVM: %v", i+1, orders[i], r.Notes)
		}
		if got := failed(outcomeOf(r, test)); got != fails[i] {
			t.Errorf("order %d %v in the warm JVM: %s %s, want failed=%v\n%s", i+1, orders[i], test, outcomeOf(r, test), fails[i], describe(r))
		}
	}
	all := strings.Join(notes, "\n")
	for _, reset := range []string{"system properties [fixture.mode]", "the default locale", "the default time zone", "1 file(s) created"} {
		if !strings.Contains(all, reset) {
			t.Errorf("no note says the warm JVM reset %s:\n%s", reset, all)
		}
	}
	done := fmt.Sprintf("warm: done: %d of %d orders ran; 0 of %d order class loaders still reachable", len(orders), len(orders), len(orders))
	if !strings.Contains(all, done) {
		t.Errorf("want the note %q:\n%s", done, all)
	}
	t.Logf("warm: %d orders in one JVM in %s", len(orders), time.Since(start).Round(time.Millisecond))
}
