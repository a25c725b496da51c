package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/report"
)

func TestDetectUsage(t *testing.T) {
	noPom := t.TempDir()
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"bad budget", []string{"detect", "--module", noPom, "--budget", "0s"}, "--budget must be positive"},
		{"bad confirmations", []string{"detect", "--module", noPom, "--confirmations", "0"}, "--confirmations at least 1"},
		{"negative rounds", []string{"detect", "--module", noPom, "--rounds", "-1"}, "--rounds and --test-timeout not negative"},
		{"stray argument", []string{"detect", "x"}, "takes no arguments"},
		{"bad shard", []string{"detect", "--module", noPom, "--seed", "1", "--shard", "4/3"}, "--shard: shard \"4/3\""},
		{"shard without seed", []string{"detect", "--module", noPom, "--shard", "1/3"}, "--shard needs --seed"},
		{"merge without parts", []string{"merge", "--module", noPom}, "needs the shards' target/flaky directories"},
		{"merge of a directory without a shard", []string{"merge", "--module", noPom, noPom}, "want exactly one shard-I-of-N.json"},
		{"bad verify", []string{"merge", "--module", noPom, "--verify", "some", noPom}, `--verify must be a number, 0 or more, or all, not "some"`},
		{"bad strategy", []string{"detect", "--module", noPom, "--strategy", "random"}, "--strategy: the strategy must be dataflow, orders or both, not \"random\""},
		{"no pom", []string{"detect", "--module", noPom}, "no pom.xml in " + noPom},
		{"verify bad rounds", []string{"verify", "--module", noPom, "--rounds", "x"}, "--rounds must be a number"},
		{"verify bad strategy", []string{"verify", "--module", noPom, "--strategy", "pairs"}, "--strategy: the strategy must be dataflow, orders or both, not \"pairs\""},
		{"verify bad budget", []string{"verify", "--module", noPom, "--budget", "soon"}, "--budget: want a duration"},
		{"since outside git", []string{"detect", "--module", noPom, "--since", "main"}, "--since: change: " + noPom + " is not in a git repository"},
		{"since with shard", []string{"detect", "--module", noPom, "--seed", "1", "--shard", "1/2", "--since", "main"}, "--since and --shard cannot go together"},
		{"verify since outside git", []string{"verify", "--module", noPom, "--since", "main"}, "is not in a git repository"},
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

// The exit status of a detection or merge: a count of flaky tests is a
// clean 0 only when every test ran and, for a merge, when every part's
// runs ran again here or the user vouched for the parts (issue 53, items 2
// and 13).
func TestVerdict(t *testing.T) {
	sampled := &report.MergeStats{Parts: []report.MergePart{{Shard: "1/2", Runs: 9, Rerun: 3}, {Shard: "2/2", Runs: 9, Rerun: 9}}}
	verified := &report.MergeStats{Parts: []report.MergePart{{Shard: "1/1", Runs: 9, Rerun: 9}}}
	trusted := &report.MergeStats{Trusted: true, Parts: sampled.Parts}
	for _, tt := range []struct {
		name     string
		rep      *report.Report
		cov      od.Coverage
		code     int
		inStderr string
	}{
		{"clean", &report.Report{}, od.Coverage{Tests: 3}, exitOK, ""},
		{"findings", &report.Report{Findings: []report.Finding{{Test: "a.B#c"}}}, od.Coverage{Tests: 3}, exitTestsFailed, ""},
		{"tests did not run", &report.Report{}, od.Coverage{Tests: 10, NeverRan: []string{"a.E#one", "a.E#two"}}, exitTestsFailed, "detect: 2 of 10 tests did not run in any order"},
		{"a merge of sampled parts", &report.Report{Stats: report.Stats{Merge: sampled}}, od.Coverage{Tests: 3}, exitTestsFailed, "detect: no flaky test found, but unverified: 6 of the parts' 18 runs were not rerun here"},
		{"a merge of verified parts", &report.Report{Stats: report.Stats{Merge: verified}}, od.Coverage{Tests: 3}, exitOK, ""},
		{"a merge of trusted parts", &report.Report{Stats: report.Stats{Merge: trusted}}, od.Coverage{Tests: 3}, exitOK, ""},
	} {
		var stderr bytes.Buffer
		if code := exitCode(verdict("detect", tt.rep, tt.cov), &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.inStderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tt.name, code, stderr.String(), tt.code, tt.inStderr)
		}
	}
}

func TestParseBudget(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90", 90 * time.Second, true}, {"2m", 2 * time.Minute, true}, {"0", 0, true},
		{"1m30s", 90 * time.Second, true}, {"-5s", 0, false}, {"soon", 0, false},
	}
	for _, c := range cases {
		got, err := parseBudget(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseBudget(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestPrintFindingsGroupsByKind(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{
		{Test: "p.N#t", Kind: report.NOD, Message: "boom\nstack"},
		{Test: "p.B#t", Kind: report.ODBrittle, Setters: [][]string{{"p.S#s"}}},
		{Test: "p.V#t", Kind: report.ODVictim, Polluters: [][]string{{"p.A#a", "p.B#b"}}, Cleaners: [][]string{{"p.C#c"}}},
		{Test: "p.I#t", Kind: report.NIO, Message: "again"},
	}}
	var out bytes.Buffer
	printFindings(&out, rep, od.Coverage{Tests: 9, Orders: 40, Rounds: 12, Seed: 7, Pairs: 72, PairsCovered: 50, TestsAlone: 9, Duration: 3 * time.Second})
	want := "od-victim  p.V#t  polluters [p.A#a + p.B#b]; cleaners [p.C#c]\n" +
		"od-brittle p.B#t  setters [p.S#s]\n" +
		"nio        p.I#t  again\n" +
		"nod        p.N#t  boom\n" +
		"4 flaky of 9 tests: 40 orders (12 exploration, seed 7), 50 of 72 pairs adjacent, 9 tests alone, 3s\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// A budget-cut analysis says so first and names the unconfirmed tests.
func TestPrintFindingsSaysTheBudgetCutFirst(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{{Test: "p.V#t", Kind: report.ODVictim, Polluters: [][]string{{"p.A#a"}}}}}
	var out bytes.Buffer
	printFindings(&out, rep, od.Coverage{Tests: 9, Orders: 40, Rounds: 12, Seed: 7, Pairs: 72, PairsCovered: 50, TestsAlone: 9,
		Duration: 3 * time.Second, Budget: 2 * time.Minute, BudgetExhausted: true, Unconfirmed: []string{"p.U#one", "p.U#two"}})
	want := "the budget of 2m0s ended the analysis early: below is what it confirmed, and no test is known stable\n" +
		"unconfirmed (their outcome changed, but the budget ended before they were confirmed): p.U#one, p.U#two\n" +
		"od-victim  p.V#t  polluters [p.A#a]\n" +
		"1 flaky of 9 tests: 40 orders (12 exploration, seed 7), 50 of 72 pairs adjacent, 9 tests alone, 2 unconfirmed, stopped at the budget of 2m0s, 3s\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// A budget that cut minimisation leaves confirmed findings, named as not
// minimised, and never "0 flaky".
func TestPrintFindingsNamesUnminimisedFindings(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{{Test: "p.V#t", Kind: report.ODVictim, Message: "expected default (confirmed; ...)"}}}
	var out bytes.Buffer
	printFindings(&out, rep, od.Coverage{Tests: 9, Orders: 40, Rounds: 12, Seed: 7, Pairs: 72, PairsCovered: 50, TestsAlone: 9,
		Duration: 3 * time.Second, Budget: 2 * time.Minute, BudgetExhausted: true, Unminimised: []string{"p.V#t"}})
	want := "the budget of 2m0s ended the analysis early: below is what it confirmed, and no test is known stable\n" +
		"confirmed, not minimised (the budget ended first; their failing orders hold the polluters or state-setters): p.V#t\n" +
		"od-victim  p.V#t  expected default (confirmed; ...)\n" +
		"1 flaky of 9 tests: 40 orders (12 exploration, seed 7), 50 of 72 pairs adjacent, 9 tests alone, 1 not minimised, stopped at the budget of 2m0s, 3s\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// Unconfirmed tests of an analysis its budget did not cut are named with
// what their reruns showed.
func TestPrintFindingsUnconfirmedWithinTheBudget(t *testing.T) {
	var out bytes.Buffer
	printFindings(&out, &report.Report{}, od.Coverage{Tests: 2, Orders: 9, Rounds: 3, Seed: 7, Pairs: 2, PairsCovered: 2, TestsAlone: 2,
		Duration: time.Second, Unconfirmed: []string{"p.U#one"}})
	if want := "unconfirmed (their outcome changed, but the reruns of their orders confirmed no finding): p.U#one\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("got\n%s\nwant it to start with\n%s", out.String(), want)
	}
}

// The commands' run functions take their options as a struct, without a
// *cli.Context: their checks answer before anything runs.
func TestRunFunctionsCheckTheirOptions(t *testing.T) {
	ctx := context.Background()
	g := globalOptions{Workers: 1, Stdout: io.Discard, Stderr: io.Discard}
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"detect without confirmations", func() error {
			return runDetect(ctx, detectOptions{globalOptions: g, Strategy: "both"})
		}, "--confirmations at least 1"},
		{"detect with a zero budget", func() error {
			return runDetect(ctx, detectOptions{globalOptions: g, Confirmations: 1, BudgetSet: true, Strategy: "both"})
		}, "--budget must be positive"},
		{"detect shard without seed", func() error {
			return runDetect(ctx, detectOptions{globalOptions: g, Confirmations: 1, Strategy: "orders", Shard: "1/2"})
		}, "--shard needs --seed"},
		{"merge without parts", func() error { return runMerge(ctx, mergeOptions{globalOptions: g, Confirmations: 1}) }, "needs the shards'"},
		{"chaos with a bad mode", func() error { return runChaos(ctx, chaosOptions{globalOptions: g, Mode: "sideways"}) }, "--mode"},
		{"repair without LLM attempts", func() error { return runRepair(ctx, repairOptions{globalOptions: g}) }, "--llm-iterations must be at least 1"},
		{"verify without confirmations", func() error { return runVerify(ctx, verifyOptions{globalOptions: g, Module: t.TempDir()}) }, "--confirmations must be at least 1"},
		{"list-tests without workers", func() error {
			return listTests(ctx, listTestsOptions{globalOptions: globalOptions{Stdout: io.Discard, Stderr: io.Discard}, Module: t.TempDir()})
		}, "--workers must be at least 1"},
		{"init with --check and --remove", func() error {
			return runInit(initOptions{globalOptions: g, Dir: t.TempDir(), Check: true, Remove: true})
		}, "exclude each other"},
		{"run without the profile", func() error {
			return runProject(ctx, runProjectOptions{globalOptions: g, Dir: projectDir(t, strings.Replace(jupiterPom, "JUPITER", "5.14.4", 1))})
		}, "run `flaky init"},
	}
	for _, tt := range tests {
		var es *exitStatus
		if err := tt.run(); !errors.As(err, &es) || es.code != exitError || !strings.Contains(es.msg, tt.want) {
			t.Errorf("%s: %v, want a usage error with %q", tt.name, err, tt.want)
		}
	}
}
