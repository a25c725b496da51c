package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/report"
)

// busyMD is the scheduling benchmark's table, printed with the others'
// Markdown.
var busyMD strings.Builder

// busyRun is one command's run in the scheduling benchmark.
type busyRun struct {
	wall           time.Duration
	jvms, peak     int
	findings       []string // test and kind of each finding, sorted
	exhausted      bool
	failed, output string // why the run could not be read, and its output then
}

// busyFigures is what the scheduling benchmark measured of one command on
// one fixture, quiet and beside the spinners.
type busyFigures struct {
	fixture, command  string
	quiet, busy       busyRun
	mvnQuiet, mvnBusy time.Duration // plain `mvn -q test` of the same fixture
	spinners          int
}

// runBusy runs flaky's detect on each of detectFixtures and chaos on each
// of chaosFixtures (folders under testdata/), quiet and beside spinners
// spinning processes, with plain `mvn -q test` of the fixture measured the
// same two ways, and prints the JVMs each started, the most at once, the
// findings and the slowdowns side by side. Scheduling must not follow other
// processes' load: the same JVMs and findings, and a slowdown no worse than
// mvn test's.
func runBusy(detectFixtures, chaosFixtures []string, spinners int, exe string) error {
	var all []busyFigures
	for _, c := range []struct {
		command  string
		fixtures []string
	}{{"detect", detectFixtures}, {"chaos", chaosFixtures}} {
		figs, err := benchEach(c.fixtures, exe, "busy "+c.command, func(name, abs string) (busyFigures, error) {
			return benchBusy(name, c.command, spinners, abs)
		})
		if err != nil {
			return err
		}
		all = append(all, figs...)
	}
	if len(all) > 0 {
		writeBusy(all)
	}
	return nil
}

// benchBusy measures command on fixture quiet and beside spinners.
func benchBusy(fixture, command string, spinners int, exe string) (busyFigures, error) {
	f := busyFigures{fixture: fixture, command: command, spinners: spinners}
	for _, busy := range []bool{false, true} {
		stop, err := startSpinners(map[bool]int{false: 0, true: spinners}[busy])
		if err != nil {
			return f, err
		}
		mvn, run, err := busyPass(fixture, command, exe)
		stop()
		if err != nil {
			return f, err
		}
		if busy {
			f.mvnBusy, f.busy = mvn, run
		} else {
			f.mvnQuiet, f.quiet = mvn, run
		}
	}
	return f, nil
}

// busyPass copies fixture to a fresh folder, times plain `mvn -q test`
// there (after a build that warms Maven up) and runs `flaky command` on it.
func busyPass(fixture, command, exe string) (time.Duration, busyRun, error) {
	dir, err := os.MkdirTemp("", "flaky-bench-busy-")
	if err != nil {
		return 0, busyRun{}, err
	}
	defer os.RemoveAll(dir)
	module := filepath.Join(dir, filepath.Base(fixture))
	if err := copy.Copy(filepath.Join("testdata", fixture), module); err != nil {
		return 0, busyRun{}, err
	}
	mvn := func() (time.Duration, error) {
		cmd := exec.Command("mvn", "-B", "-q", "test", "-Dmaven.test.failure.ignore=true")
		cmd.Dir = module
		began := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("mvn -q test in %s: %w\n%s", module, err, out)
		}
		return time.Since(began), nil
	}
	if _, err := mvn(); err != nil { // Maven warms up, the module is built
		return 0, busyRun{}, err
	}
	plain, err := mvn()
	if err != nil {
		return 0, busyRun{}, err
	}
	args := []string{command, "--module", module}
	if command == "detect" {
		args = append(args, "--seed", "1") // the same orders in both runs
	}
	cmd := exec.Command(exe, args...)
	began := time.Now()
	out, _ := cmd.CombinedOutput() // exit 1 when it finds flaky tests
	run := busyRun{wall: time.Since(began)}
	rep, err := report.Read(flakydir.OfModule(module).Report())
	if err != nil {
		run.failed, run.output = err.Error(), string(out)
		return plain, run, nil
	}
	for _, fi := range rep.Findings {
		run.findings = append(run.findings, fi.Test+" "+string(fi.Kind))
	}
	slices.Sort(run.findings)
	switch {
	case rep.Stats.Chaos != nil:
		run.jvms, run.peak, run.exhausted = rep.Stats.Chaos.JVMs, rep.Stats.Chaos.PeakJVMs, rep.Stats.Chaos.BudgetExhausted
	case rep.Stats.Coverage != nil:
		run.jvms, run.peak, run.exhausted = rep.Stats.Coverage.JVMs, rep.Stats.Coverage.PeakJVMs, rep.Stats.Coverage.BudgetExhausted
	}
	return plain, run, nil
}

// startSpinners starts n processes that spin until the returned function
// ends them.
func startSpinners(n int) (func(), error) {
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// writeBusy prints the scheduling benchmark and writes its Markdown table.
func writeBusy(all []busyFigures) {
	fmt.Printf("\nscheduling beside %d spinning processes (flaky's defaults), against plain mvn -q test\n", all[0].spinners)
	fmt.Printf("%-12s %-7s %9s %9s %7s %7s %12s %12s %5s\n", "fixture", "command", "quiet", "busy", "slower", "mvn", "JVMs", "at once", "same")
	fmt.Fprintf(&busyMD, "Scheduling on a busy machine: each command with flaky's defaults (detect with `--seed 1`, so that both runs plan the same orders) on a fixture, quiet and beside %d processes spinning on %d cores, against plain `mvn -q test` of the same fixture measured the same two ways (after a warm-up build). *JVMs* and *at once* are the JVMs the analysis started and the most that ran orders at once, quiet / busy; *same* says whether both runs reported the same findings:\n\n", all[0].spinners, runtime.NumCPU())
	busyMD.WriteString("| fixture | command | quiet | busy | slowdown | `mvn -q test` slowdown | JVMs | at once | same findings |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range all {
		slower := ratio(f.busy.wall, f.quiet.wall)
		mvnSlower := ratio(f.mvnBusy, f.mvnQuiet)
		same := f.quiet.failed == "" && f.busy.failed == "" && slices.Equal(f.quiet.findings, f.busy.findings) && !f.quiet.exhausted && !f.busy.exhausted
		jvms := fmt.Sprintf("%d / %d", f.quiet.jvms, f.busy.jvms)
		peak := fmt.Sprintf("%d / %d", f.quiet.peak, f.busy.peak)
		fmt.Printf("%-12s %-7s %9s %9s %6.1fx %6.1fx %12s %12s %5v\n", f.fixture, f.command, f.quiet.wall.Round(100*time.Millisecond), f.busy.wall.Round(100*time.Millisecond), slower, mvnSlower, jvms, peak, same)
		for _, r := range []busyRun{f.quiet, f.busy} {
			if r.failed != "" {
				fmt.Printf("  no report: %s\n%s\n", r.failed, r.output)
			}
		}
		fmt.Fprintf(&busyMD, "| `%s` | %s | %s | %s | %.1f× | %.1f× | %s | %s | %s |\n", f.fixture, f.command, f.quiet.wall.Round(100*time.Millisecond), f.busy.wall.Round(100*time.Millisecond), slower, mvnSlower, jvms, peak, yesNo(same))
	}
	busyMD.WriteString("\n")
}
