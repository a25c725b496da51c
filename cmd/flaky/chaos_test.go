package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

func TestChaosUsage(t *testing.T) {
	noPom := t.TempDir()
	order := filepath.Join(noPom, "order.txt")
	if err := os.WriteFile(order, []byte("a.B#c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"bad mode", []string{"chaos", "--module", noPom, "--mode", "both"}, `--mode: mode "both"`},
		{"bad strategy", []string{"chaos", "--module", noPom, "--strategy", "RANDOM_MIN"}, `--strategy: unknown strategy "RANDOM_MIN"`},
		{"bad budget", []string{"chaos", "--module", noPom, "--budget", "-1s"}, "--budget and --test-timeout must not be negative"},
		{"bad param", []string{"chaos", "--module", noPom, "--param", "seed"}, "want key=value"},
		{"reserved param", []string{"chaos", "--module", noPom, "--param", "roots=/x"}, "set by flaky itself"},
		{"no pom", []string{"chaos", "--module", noPom}, "no pom.xml in " + noPom},
		{"run-order bad chaos", []string{"run-order", "--module", noPom, "--order", order, "--chaos", "NOPE"}, `--chaos: unknown strategy "NOPE"`},
		{"run-order param without chaos", []string{"run-order", "--module", noPom, "--order", order, "--chaos-param", "seed=1"}, "--chaos-param needs --chaos"},
		{"run-order empty chaos", []string{"run-order", "--module", noPom, "--order", order, "--chaos", "+"}, "--chaos names no strategy"},
		{"run-order bad pattern", []string{"run-order", "--module", noPom, "--order", order, "--chaos", "LOCALE", "--chaos-include", ""}, "an empty value cannot be passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runApp(tt.args...)
			if code != exitError || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q\nstdout: %s", code, stderr, exitError, tt.wantStderr, stdout)
			}
		})
	}
}

func TestWithModuleRoots(t *testing.T) {
	setup := &mvn.TestSetup{ModuleDir: "/w/m", ClassesDir: "/w/m/target/classes", TestClassesDir: "/w/m/target/test-classes"}
	got := withModuleRoots(chaos.Settings{Params: []string{"seed=1"}}, setup)
	if want := []string{"target/classes", "target/test-classes"}; !slices.Equal(got.Roots, want) {
		t.Errorf("roots = %q, want %q", got.Roots, want)
	}
	if got := withModuleRoots(chaos.Settings{Include: []string{"a.**"}}, setup); got.Roots != nil {
		t.Errorf("roots with include patterns = %q, want none", got.Roots)
	}
}

func TestPrintChaos(t *testing.T) {
	findings := []report.Finding{{
		Test: "p.DiceTest#roll", Kind: report.API, Strategy: "RANDOM_MAX", Group: "RANDOM", Message: "expected <6\nmore",
		CallSites:         []report.CallSite{{Class: "p.Dice", Method: "roll", File: "Dice.java", Line: 12, API: "java.util.Random#nextInt(int)"}},
		ReproduceRunOrder: "flaky run-order --module m --order o.txt --chaos RANDOM_MAX",
	}, {Test: "p.C#c", Kind: report.NOD, Message: "boom", ReproduceRunOrder: "flaky run-order --module m --order c.txt"}}
	res := &chaos.Result{Mode: chaos.Combined, Strategies: chaos.DefaultCombined[:2], Runs: 3, FailUnperturbed: []string{"p.B#b", "p.C#c"},
		NOD:      []chaos.NOD{{Test: "p.C#c", Runs: 6, Failures: 1, PerturbedRuns: 1, PerturbedFailures: 1}},
		Failing:  []chaos.Failing{{Test: "p.B#b", Why: "fails in every unperturbed run (6 of 6)"}},
		Duration: 1500 * time.Millisecond}
	var b bytes.Buffer
	printChaos(&b, findings, res, 9)
	want := "nod  p.C#c fails unperturbed 1 of 6 runs, perturbed 1 of 1 (flaky without perturbation: no strategy named)\n" +
		"       reproduce (now and then): flaky run-order --module m --order c.txt\n" +
		"failing  p.B#b: fails in every unperturbed run (6 of 6) (not analysed)\n" +
		"api  p.DiceTest#roll  RANDOM_MAX (RANDOM)\n" +
		"       at p.Dice.roll(Dice.java:12) calls java.util.Random#nextInt(int)\n" +
		"       expected <6\n" +
		"       reproduce: flaky run-order --module m --order o.txt --chaos RANDOM_MAX\n" +
		"1 api of 9 tests: combined mode, RANDOM_MAX+TIME_INCREMENT, 3 runs, 1 flaky without perturbation (nod), 1 failing unperturbed (not analysed), 1.5s\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}

// What was left out comes first, every failing strategy and the counts per
// strategy and group follow, and the summary does not claim the whole
// suite when a strategy did not run all of it.
func TestPrintChaosPartial(t *testing.T) {
	robust := false
	findings := []report.Finding{{
		Test: "p.ClockTest#t", Kind: report.API, Strategy: "TIME_INCREMENT", Group: "TIME", Strategies: []string{"TIME_INCREMENT", "SLEEP_INCREASE"},
		Robust: &robust, Message: "too slow", ReproduceRunOrder: "flaky run-order --order o.txt --chaos TIME_INCREMENT",
	}}
	res := &chaos.Result{Mode: chaos.Single, Strategies: mustParse(t, "TIME_INCREMENT+SLEEP_INCREASE"), Skipped: mustParse(t, "LOCALE"),
		Findings: []chaos.Finding{{Test: "p.ClockTest#t", FailsWith: mustParse(t, "TIME_INCREMENT+SLEEP_INCREASE")}},
		Runs:     3, Tests: 10, Budget: 5 * time.Minute, BudgetExhausted: true, Duration: 2 * time.Second,
		Coverage: []chaos.Coverage{
			{Run: "TIME_INCREMENT", Strategies: mustParse(t, "TIME_INCREMENT"), Ran: 10, Failed: 1, Findings: 1, JVMs: 1, Duration: 1234 * time.Millisecond, FailedTests: []string{"p.ClockTest#t"}},
			{Run: "SLEEP_INCREASE", Strategies: mustParse(t, "SLEEP_INCREASE"), Ran: 7, NotRun: 3, Failed: 1, Findings: 1, JVMs: 2, Duration: 10260 * time.Millisecond,
				FailedTests: []string{"p.ClockTest#t"}, NotRunTests: []string{"p.A#a", "p.A#b", "p.A#c"}},
		}}
	var b bytes.Buffer
	printChaos(&b, findings, res, 9)
	want := "skipped: LOCALE did not run: the budget of 5m0s ended first (raise --budget)\n" +
		"not analysed: 3 test(s) never ran under SLEEP_INCREASE (2 JVM(s); see the notes above)\n" +
		"api  p.ClockTest#t  TIME_INCREMENT (TIME)\n" +
		"       fails with: TIME_INCREMENT, SLEEP_INCREASE\n" +
		"       robust: false (with a tenth of the perturbation)\n" +
		"       too slow\n" +
		"       reproduce: flaky run-order --order o.txt --chaos TIME_INCREMENT\n" +
		"strategy             group             tests not-run failures findings    time\n" +
		"TIME_INCREMENT       TIME                 10       0        1        1    1.2s\n" +
		"SLEEP_INCREASE       SLEEP                 7       3        1        1   10.3s\n" +
		"(all)                TIME                 10       0        1        1\n" +
		"(all)                SLEEP                 7       3        1        1\n" +
		"1 api in 10 tests, not all of them analysed under every strategy (see above): single mode, TIME_INCREMENT+SLEEP_INCREASE, 3 runs, stopped at the budget of 5m0s, 2s\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}

func mustParse(t *testing.T, names string) []chaos.Strategy {
	t.Helper()
	s, err := chaos.Parse(names)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPrintExplain(t *testing.T) {
	r := &launcher.Result{
		Tests: []launcher.TestResult{{Test: "p.T#a", Outcome: launcher.Error, Message: "Index: 8, Size: 8\n\tat x"}},
		Perturbations: []agent.Perturbation{
			{Test: "p.T#a", Strategy: "RANDOM_MAX", API: "java.util.Random#nextInt(int)", Class: "p.R", Method: "pick", File: "R.java", Line: 9},
			{Test: "p.T#a", Strategy: "RANDOM_MAX", API: "java.util.Random#nextInt(int)", Class: "p.R", Method: "pick", File: "R.java", Line: 9, Original: "a random value", Perturbed: "7"},
			{Test: "p.T#b", Strategy: "RANDOM_MAX", API: "java.util.Random#nextInt(int)", Class: "p.R", Method: "pick", File: "R.java", Line: 9, Original: "a random value", Perturbed: "7"},
		},
	}
	var b strings.Builder
	if err := printExplain(&b, r, "p.T#a"); err != nil {
		t.Fatal(err)
	}
	want := "ERROR  p.T#a\n       Index: 8, Size: 8\nperturbed calls, in order:\n  p.R.pick(R.java:9) java.util.Random#nextInt(int): a random value -> 7\n1 perturbed call(s)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestFindingOrder checks that --explain replays the order of the finding's
// reproduce command (the one test), not its evidence's suite prefix.
func TestFindingOrder(t *testing.T) {
	module := t.TempDir()
	write := func(name string, order ...string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(module, name), []byte(strings.Join(order, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("one.txt", "p.T#b")
	write("prefix.txt", "p.S#x", "p.T#a", "p.T#b")
	prefix := []report.Evidence{{Run: "RANDOM_MAX", Order: []string{"p.S#x", "p.T#a", "p.T#b"}}}
	tests := []struct {
		name string
		f    report.Finding
		want []string
	}{
		{"the reproduce command's order", report.Finding{Test: "p.T#b", ReproduceRunOrder: "flaky run-order --module " + module + " --order one.txt --chaos RANDOM_MAX", Evidence: prefix}, []string{"p.T#b"}},
		{"--order=", report.Finding{Test: "p.T#b", ReproduceRunOrder: "flaky run-order '--order=" + filepath.Join(module, "one.txt") + "' --chaos RANDOM_MAX", Evidence: prefix}, []string{"p.T#b"}},
		{"no reproduce command: the evidence's order", report.Finding{Test: "p.T#b", Evidence: prefix}, []string{"p.S#x", "p.T#a", "p.T#b"}},
		{"no reproduce command: the evidence's order file", report.Finding{Test: "p.T#b", Evidence: []report.Evidence{{OrderFile: "prefix.txt"}}}, []string{"p.S#x", "p.T#a", "p.T#b"}},
		{"nothing: the test alone", report.Finding{Test: "p.T#b"}, []string{"p.T#b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findingOrder(tt.f, module)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("findingOrder = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := findingOrder(report.Finding{Test: "p.T#b", ReproduceRunOrder: "flaky run-order --order gone.txt"}, module); err == nil {
		t.Error("a missing order file of the reproduce command: no error")
	}
}
