package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/internal/maven/surefire"
)

// rerunsMD is the reruns benchmark's table, printed with the others'
// Markdown.
var rerunsMD strings.Builder

// rerunFlaky is a test of the reruns fixture that fails one run in
// FailsOneIn without any perturbation (expected.json's rerunFlaky).
type rerunFlaky struct {
	Test       string `json:"test"`
	FailsOneIn int    `json:"failsOneIn"`
}

// rerunsTrial is one trial: a flaky chaos run, then plain `mvn test`
// reruns for the same wall time.
type rerunsTrial struct {
	chaos      time.Duration
	chaosFound map[string]bool // reported as nod
	misjudged  []string        // reported as api, or failing
	plainRuns  int             // mvn test runs that ended within the chaos run's time
	plainFound map[string]bool // passed and failed in those runs
}

// runChaosReruns compares flaky chaos (combined, the default) with plain
// `mvn -q test` reruns of the same wall time on fixture, whose tests are
// flaky without perturbation at known rates: how many of them each finds,
// over trials trials.
func runChaosReruns(fixture string, trials int, exe string) error {
	if fixture == "" || trials <= 0 {
		return nil
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(fixture, "expected.json"))
	if err != nil {
		return err
	}
	var e struct {
		RerunFlaky []rerunFlaky `json:"rerunFlaky"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return fmt.Errorf("parsing %s's expected.json: %w", fixture, err)
	}
	tmp, err := os.MkdirTemp("", "flaky-bench-reruns-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, filepath.Base(fixture))
	if err := copy.Copy(fixture, dir); err != nil {
		return fmt.Errorf("copying fixture: %w", err)
	}
	test := []string{"-B", "-q", "test", "-Dmaven.test.failure.ignore=true"}
	if _, err := command(dir, "mvn", "-B", "-q", "test-compile"); err != nil {
		return fmt.Errorf("building: %w", err)
	}
	if _, err := command(dir, "mvn", test...); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	var all []rerunsTrial
	for i := 0; i < trials; i++ {
		t, err := rerunsTrialOf(dir, abs, test)
		if err != nil {
			return fmt.Errorf("reruns trial %d: %w", i+1, err)
		}
		fmt.Printf("reruns trial %d: flaky chaos %s found %d (misjudged %v); %d mvn test runs found %d\n", i+1, t.chaos.Round(100*time.Millisecond),
			len(t.chaosFound), t.misjudged, t.plainRuns, len(t.plainFound))
		all = append(all, t)
	}
	writeReruns(fixture, e.RerunFlaky, all)
	return nil
}

// rerunsTrialOf runs flaky chaos on the module from a fresh report, then
// `mvn test` (args) until as much wall time has passed, and reads what
// each found.
func rerunsTrialOf(dir, exe string, args []string) (rerunsTrial, error) {
	t := rerunsTrial{chaosFound: map[string]bool{}, plainFound: map[string]bool{}}
	r, err := chaosRealRunOf(exe, dir, "combined", nil)
	if err != nil {
		return t, err
	}
	t.chaos = r.wall
	for _, n := range r.nod {
		t.chaosFound[n] = true
	}
	t.misjudged = append(r.findings, r.failing...)
	reports := filepath.Join(dir, "target", "surefire-reports")
	passed, failed := map[string]bool{}, map[string]bool{}
	start := time.Now()
	for {
		if err := os.RemoveAll(reports); err != nil {
			return t, err
		}
		if _, err := command(dir, "mvn", args...); err != nil {
			return t, err
		}
		if time.Since(start) > t.chaos {
			break
		}
		t.plainRuns++
		cases, err := surefire.ReadReports(reports)
		if err != nil {
			return t, err
		}
		for _, c := range cases {
			switch c.Outcome {
			case surefire.Pass:
				passed[c.ID()] = true
			case surefire.Fail, surefire.Error:
				failed[c.ID()] = true
			}
		}
	}
	for id := range failed {
		if passed[id] {
			t.plainFound[id] = true
		}
	}
	return t, nil
}

// writeReruns prints, per rerun-flaky test, how often each approach found
// it, against what a plain rerun's count would expect, and writes the
// Markdown table.
func writeReruns(fixture string, tests []rerunFlaky, all []rerunsTrial) {
	var chaos time.Duration
	var plainRuns, chaosTotal, plainTotal int
	var misjudged []string
	for _, t := range all {
		chaos += t.chaos
		plainRuns += t.plainRuns
		chaosTotal += len(t.chaosFound)
		plainTotal += len(t.plainFound)
		misjudged = append(misjudged, t.misjudged...)
	}
	n := float64(len(all))
	runs := float64(plainRuns) / n
	fmt.Printf("\nflaky chaos against plain mvn test reruns of the same wall time on %s (%d trials; flaky chaos %s on average, %.1f mvn test runs in that time)\n",
		fixture, len(all), (chaos / time.Duration(len(all))).Round(100*time.Millisecond), runs)
	fmt.Printf("%-62s %8s %12s %12s %14s\n", "test", "fails", "flaky chaos", "mvn reruns", "reruns, expected")
	fmt.Fprintf(&rerunsMD, "`flaky chaos` (combined) against plain `mvn -q test` reruns of the same wall time on `%s`, whose tests fail without any perturbation at known rates (`make bench BENCHFLAGS=-chaos-reruns=%s`, %d trials; `flaky chaos` took %s on average, and %.1f `mvn test` runs ended in the same time): how many trials found each test flaky (a nod finding; for the reruns a pass and a failure), against what that many reruns find on average:\n\n",
		fixture, fixture, len(all), secs(chaos/time.Duration(len(all))), runs)
	rerunsMD.WriteString("| test | fails | `flaky chaos` | `mvn test` reruns | reruns, expected |\n|---|---|---|---|---|\n")
	for _, f := range tests {
		c, p := 0, 0
		for _, t := range all {
			if t.chaosFound[f.Test] {
				c++
			}
			if t.plainFound[f.Test] {
				p++
			}
		}
		// A test failing with probability q is found by k reruns unless
		// they all pass or all fail.
		q := 1 / float64(f.FailsOneIn)
		var expected float64
		for _, t := range all {
			if k := float64(t.plainRuns); k > 0 {
				expected += 1 - math.Pow(q, k) - math.Pow(1-q, k)
			}
		}
		fmt.Printf("%-62s %8s %7d of %d %7d of %d %14.1f\n", f.Test, fmt.Sprintf("1 in %d", f.FailsOneIn), c, len(all), p, len(all), expected)
		fmt.Fprintf(&rerunsMD, "| `%s` | 1 run in %d | %d of %d | %d of %d | %.1f |\n", f.Test, f.FailsOneIn, c, len(all), p, len(all), expected)
	}
	fmt.Printf("found in all: flaky chaos %d, mvn test reruns %d; misjudged by flaky chaos (api findings or failing): %v\n", chaosTotal, plainTotal, misjudged)
	fmt.Fprintf(&rerunsMD, "\nFound in all: `flaky chaos` %d, the reruns %d; tests `flaky chaos` reported as api findings or failing instead: %d.\n\n", chaosTotal, plainTotal, len(misjudged))
}
