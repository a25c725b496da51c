package chaos

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

func TestReportFindings(t *testing.T) {
	dir := t.TempDir()
	long := make([]string, report.MaxShownOrder+1)
	for i := range long {
		long[i] = "p.T#t" + string(rune('a'+i))
	}
	findings := []Finding{
		{
			Test: "p.T#tm", Strategies: mustLookup("RANDOM_MAX"), Attributed: true, Order: long, Message: "boom",
			CallSites: []report.CallSite{cs(diceSite)},
			Evidence: []Evidence{
				{Run: "combined", Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Order: long, Outcome: launcher.Fail, Message: "boom"},
				{Run: "RANDOM_MAX", Strategies: mustLookup("RANDOM_MAX"), Order: long[:2], Outcome: launcher.Fail, Message: "boom"},
				{Run: "unperturbed", Order: long[:2], Outcome: launcher.Pass},
			},
		},
		{Test: "p.T#tb", Strategies: mustLookup("RANDOM_MAX", "DATE_FIXED"), Order: long[:2]},
	}
	settings := Settings{Roots: []string{"target/classes"}, Include: []string{"p.**"}, Params: []string{"seed=3"}}
	got, err := ReportFindings(findings, ReportOptions{OrderDir: dir, ModuleDir: "/w/my mod", Module: "core", Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d findings", len(got))
	}
	f := got[0]
	if f.Kind != report.API || f.Strategy != "RANDOM_MAX" || f.Group != "RANDOM" || f.Message != "boom" || !reflect.DeepEqual(f.CallSites, findings[0].CallSites) {
		t.Errorf("finding = %+v", f)
	}
	args, err := shellquote.Split(f.ReproduceRunOrder)
	if err != nil {
		t.Fatal(err)
	}
	orderFile := args[5]
	want := []string{"flaky", "run-order", "--module", "/w/my mod", "--order", orderFile, "--chaos", "RANDOM_MAX", "--chaos-include", "p.**", "--chaos-param", "seed=3"}
	if !reflect.DeepEqual(args, want) || filepath.Dir(orderFile) != dir {
		t.Errorf("reproduce = %q, want %q with the order file in %s", args, want, dir)
	}
	if args, err = shellquote.Split(f.Reproduce); err != nil {
		t.Fatal(err)
	}
	want = []string{"mvn", "-Pflaky", "test", "-pl", "core", "-am", "-Dtest=p.T", "-Dsurefire.failIfNoSpecifiedTests=false", "-Dflaky.testFailureIgnore=false", "-Dflaky.order=" + orderFile,
		"-Dflaky.token=,chaos=RANDOM_MAX,chaos.roots=target/classes,chaos.include=p.**,chaos.seed=3"}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("Maven reproduce = %q, want %q", args, want)
	}
	if data, err := os.ReadFile(orderFile); err != nil || string(data) != strings.Join(long, "\n")+"\n" {
		t.Errorf("order file %s: %q, %v", orderFile, data, err)
	}
	wantEvidence := []report.Evidence{
		{Run: "chaos combined RANDOM_MAX+LOCALE", OrderFile: orderFile, Outcome: "fail", Message: "boom"},
		{Run: "chaos RANDOM_MAX", Order: long[:2], Outcome: "fail", Message: "boom"},
		{Run: "unperturbed", Order: long[:2], Outcome: "pass"},
	}
	if !reflect.DeepEqual(f.Evidence, wantEvidence) {
		t.Errorf("evidence:\n got %+v\nwant %+v", f.Evidence, wantEvidence)
	}
	if g := got[1]; g.Strategy != "RANDOM_MAX+DATE_FIXED" || g.Group != "RANDOM+DATE" {
		t.Errorf("combination finding: strategy %s, group %s", g.Strategy, g.Group)
	}
}

func TestMerge(t *testing.T) {
	rep := &report.Report{
		Module: "m",
		Findings: []report.Finding{
			{Test: "p.V#v", Kind: report.ODVictim},
			{Test: "p.Old#api", Kind: report.API},
			// An earlier analysis' nod finding, and flaky detect's.
			{Test: "p.Old#nod", Kind: report.NOD, Evidence: []report.Evidence{{Run: "unperturbed (control run)", Outcome: "fail"}}},
			{Test: "p.D#nod", Kind: report.NOD, Evidence: []report.Evidence{{Run: "order 1", Outcome: "fail"}}},
		},
		Runs:  20,
		Stats: report.Stats{Tests: 5, Orders: 20, DurationMs: 1000, Chaos: &report.ChaosStats{Runs: 4, DurationMs: 400}},
	}
	res := &Result{Mode: Single, Strategies: mustLookup("LOCALE", "RANDOM_MAX"), Runs: 3, Budget: time.Minute, Duration: 300 * time.Millisecond, Unconfirmed: []string{"p.U#u"}}
	stats := Stats(res)
	Merge(rep, []report.Finding{{Test: "p.New#api", Kind: report.API}, {Test: "p.D#nod", Kind: report.NOD}, {Test: "p.New#nod", Kind: report.NOD}}, stats)
	var tests []string
	for _, f := range rep.Findings {
		tests = append(tests, string(f.Kind)+" "+f.Test)
	}
	if want := []string{"api p.New#api", "nod p.D#nod", "nod p.New#nod", "od-victim p.V#v"}; !reflect.DeepEqual(tests, want) {
		t.Errorf("findings = %q, want %q", tests, want)
	}
	if rep.Runs != 19 || rep.Stats.Orders != 19 || rep.Stats.DurationMs != 900 || rep.Stats.Tests != 5 {
		t.Errorf("runs %d, orders %d, duration %d, tests %d; want 19, 19, 900, 5", rep.Runs, rep.Stats.Orders, rep.Stats.DurationMs, rep.Stats.Tests)
	}
	want := &report.ChaosStats{Mode: "single", Strategies: []string{"RANDOM_MAX", "LOCALE"}, Runs: 3, BudgetMs: 60000, Unconfirmed: []string{"p.U#u"}, DurationMs: 300}
	if !reflect.DeepEqual(rep.Stats.Chaos, want) {
		t.Errorf("chaos stats = %+v, want %+v", rep.Stats.Chaos, want)
	}
}

func TestReportNOD(t *testing.T) {
	dir := t.TempDir()
	order := []string{"p.A#a", "p.N#n"}
	n := NOD{Test: "p.N#n", Runs: 6, Failures: 1, PerturbedRuns: 1, PerturbedFailures: 1, Order: order, Message: "\nboom",
		Evidence: []Evidence{
			{Run: "unperturbed", Order: order, Outcome: launcher.Pass},
			{Run: "unperturbed", Order: order[1:], Outcome: launcher.Fail, Message: "boom", Detail: controlRun},
			{Run: "RANDOM_MAX", Strategies: mustLookup("RANDOM_MAX"), Order: order, Outcome: launcher.Fail, Message: "boom"},
		}}
	got, err := ReportNOD([]NOD{n}, ReportOptions{OrderDir: dir, ModuleDir: "/w/m", Module: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("findings = %+v, want 1", got)
	}
	f := got[0]
	if f.Kind != report.NOD || f.Message != "boom\n(fails unperturbed 1 of 6 runs, perturbed 1 of 1: flaky without perturbation)" {
		t.Errorf("kind %s, message %q", f.Kind, f.Message)
	}
	file := filepath.Join(dir, filepath.Base(strings.Fields(f.ReproduceRunOrder)[len(strings.Fields(f.ReproduceRunOrder))-1]))
	if want := "flaky run-order --module /w/m --order " + file; f.ReproduceRunOrder != want {
		t.Errorf("run-order command %q, want %q", f.ReproduceRunOrder, want)
	}
	// 1 failure in 6 runs: the test is repeated up to 50 runs (report.NODOrder).
	if data, err := os.ReadFile(file); err != nil || string(data) != "p.A#a\n"+strings.Repeat("p.N#n\n", 50) {
		t.Errorf("order file %q: %v", data, err)
	}
	if !strings.Contains(f.Reproduce, "mvn") || strings.Contains(f.Reproduce, "flaky.token") {
		t.Errorf("reproduce %q: want plain Maven, unperturbed", f.Reproduce)
	}
	var runs []string
	for _, e := range f.Evidence {
		runs = append(runs, e.Run+" "+e.Outcome)
	}
	if want := []string{"unperturbed pass", "unperturbed (control run) fail", "chaos RANDOM_MAX fail"}; !slices.Equal(runs, want) {
		t.Errorf("evidence %q, want %q", runs, want)
	}
	if !madeByChaos(f) {
		t.Errorf("the finding is not known as API perturbation's")
	}
}

func TestCallSites(t *testing.T) {
	p := func(test, strategy, group string, line int) agent.Perturbation {
		return agent.Perturbation{Test: test, Strategy: strategy, Group: group, API: "api", Class: "p.C", Method: "m", File: "C.java", Line: line}
	}
	r := &launcher.Result{Perturbations: []agent.Perturbation{
		p("p.T", "LOCALE", "LOCALE", 3),           // class fixture
		p("p.T#a", "RANDOM_MAX", "RANDOM", 9),     // the test's own
		p("p.T#a", "RANDOM_MAX", "RANDOM", 7),     //
		p("p.T#b", "RANDOM_MAX", "RANDOM", 5),     // another test
		p("p.T#a", "RANDOM_MAX", "RANDOM", 9),     // again (a second JVM thread, say)
		p("p.T", "RANDOM_MAX", "RANDOM", 1),       // fixture: ignored while the test has its own
		p("", "TIME_INCREMENT", "TIME", 2),        // outside any test
		p("p.T$Inner#a", "LOCALE", "LOCALE", 11),  // a nested class's test
		p("p.T$Inner", "RANDOM_MAX", "RANDOM", 4), // a nested class's fixture
	}}
	site := func(line int) report.CallSite {
		return report.CallSite{Class: "p.C", Method: "m", File: "C.java", Line: line, API: "api"}
	}
	tests := []struct {
		test  string
		group string
		want  []report.CallSite
	}{
		{"p.T#a", "RANDOM", []report.CallSite{site(7), site(9)}},
		{"p.T#a", "LOCALE", []report.CallSite{site(3)}},
		{"p.T#a", "TIME", nil},
		{"p.T#c", "RANDOM", []report.CallSite{site(1)}},
		{"p.T$Inner#a", "RANDOM", []report.CallSite{site(4)}},
		{"p.T$Inner#a", "LOCALE", []report.CallSite{site(11)}},
	}
	for _, tt := range tests {
		got := callSites(r, tt.test, func(_, g string) bool { return g == tt.group })
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("callSites(%s, %s) = %+v, want %+v", tt.test, tt.group, got, tt.want)
		}
	}
}

func TestMavenCommand(t *testing.T) {
	tests := []struct {
		module   string
		settings Settings
		want     string
	}{
		{".", Settings{Roots: []string{"target/classes", "target/test-classes"}},
			"mvn -Pflaky test -Dflaky.testFailureIgnore=false -Dflaky.order=/o/order.txt -Dflaky.token=,chaos=LOCALE,chaos.roots=target/classes+target/test-classes"},
		{"", Settings{Exclude: []string{"a.B"}, Params: []string{"locale=de_DE"}},
			"mvn -Pflaky test -Dflaky.testFailureIgnore=false -Dflaky.order=/o/order.txt -Dflaky.token=,chaos=LOCALE,chaos.exclude=a.B,chaos.locale=de_DE"},
		{"web/app", Settings{}, "mvn -Pflaky test -pl web/app -am -Dtest=p.T -Dsurefire.failIfNoSpecifiedTests=false -Dflaky.testFailureIgnore=false -Dflaky.order=/o/order.txt -Dflaky.token=,chaos=LOCALE"},
	}
	for _, tt := range tests {
		if got, err := MavenCommand(tt.module, "/o/order.txt", []string{"p.T#a[1]"}, mustLookup("LOCALE"), tt.settings); err != nil || got != tt.want {
			t.Errorf("MavenCommand(%q, %+v) =\n %s, %v\nwant\n %s", tt.module, tt.settings, got, err, tt.want)
		}
	}
	if _, err := MavenCommand("", "/o/order.txt", nil, mustLookup("LOCALE"), Settings{Params: []string{"bad"}}); err == nil {
		t.Error("MavenCommand accepted a bad parameter")
	}
}

func TestNoBlankFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"\nExpected: x\n     but: y": "Expected: x\n     but: y",
		" \r\n\n  a\nb":              "  a\nb",
		"a\n\nb":                     "a\n\nb",
		"\n":                         "",
		"":                           "",
	} {
		if got := noBlankFirstLine(in); got != want {
			t.Errorf("noBlankFirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
