package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/chaos"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/mvn"
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
		{"bad budget", []string{"chaos", "--module", noPom, "--budget", "0s"}, "--budget must be positive"},
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
	}}
	res := &chaos.Result{Mode: chaos.Combined, Strategies: chaos.DefaultCombined[:2], Runs: 3, FailUnperturbed: []string{"p.B#b"}, Duration: 1500 * time.Millisecond}
	var b bytes.Buffer
	printChaos(&b, findings, res, 9)
	want := "api  p.DiceTest#roll  RANDOM_MAX (RANDOM)\n" +
		"       at p.Dice.roll(Dice.java:12) calls java.util.Random#nextInt(int)\n" +
		"       expected <6\n" +
		"       reproduce: flaky run-order --module m --order o.txt --chaos RANDOM_MAX\n" +
		"1 api of 9 tests: combined mode, RANDOM_MAX+TIME_INCREMENT, 3 runs, 1 also fail unperturbed (left out), 1.5s\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWritePerturbations(t *testing.T) {
	r := &launcher.Result{
		Tests: []launcher.TestResult{{Test: "p.T#a", Outcome: launcher.Fail}, {Test: "p.T#b", Outcome: launcher.Pass}, {Test: "p.U#c", Outcome: launcher.Error}},
		Perturbations: []agent.Perturbation{
			{Test: "p.T", Strategy: "LOCALE", Class: "p.T", Method: "<clinit>", File: "T.java", Line: 3, API: "java.util.Locale#getDefault()"},
			{Test: "p.T#a", Strategy: "RANDOM_MAX", Class: "p.Dice", Method: "roll", File: "Dice.java", Line: 12, API: "java.util.Random#nextInt(int)"},
			{Test: "p.T#b", Strategy: "RANDOM_MAX", Class: "p.Dice", Method: "roll", File: "Dice.java", Line: 12, API: "java.util.Random#nextInt(int)"},
		},
	}
	var b bytes.Buffer
	if err := writePerturbations(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "perturbed call sites p.T#a hit:\n" +
		"  LOCALE at p.T.<clinit>(T.java:3) calls java.util.Locale#getDefault()\n" +
		"  RANDOM_MAX at p.Dice.roll(Dice.java:12) calls java.util.Random#nextInt(int)\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
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
