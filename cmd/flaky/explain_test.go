package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func TestExplainReadsTheReport(t *testing.T) {
	dir := t.TempDir()
	rep := &report.Report{Module: ".", Findings: []report.Finding{{
		Test: "p.QuoteTest#btc", Kind: report.ODVictim, Polluters: [][]string{{"p.PromoTest#discount"}},
		FailingOrder: []string{"p.PromoTest#discount", "p.QuoteTest#btc"}, PassingOrder: []string{"p.QuoteTest#btc"},
		PollutedState:        []report.StateItem{{Kind: "static-field", Root: "p.Prices.TABLE", Path: "['BTC']", Passing: "100", Failing: "90", Confirmed: true}},
		ProblemInvariants:    []report.ProblemInvariant{{Point: "p.Store.count():::EXIT", Variable: "return", Passing: []string{"return == 0"}, Failing: []string{"return == 1"}}},
		ReturnValueModifiers: []report.MethodCandidate{{Method: "p.Store.deleteAll()", Test: "p.PurgeTest#purges", Variable: "p.Store.count()", Restores: true}},
	}}}
	if err := report.Write(filepath.Join(dir, "target", "flaky", "report.json"), rep); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runApp("explain", "--module", dir, "p.QuoteTest#btc")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"od-victim p.QuoteTest#btc\n  order-dependent victim, new: fails after p.PromoTest#discount; polluted state: p.Prices.TABLE['BTC']\n", "polluters: [p.PromoTest#discount]", "polluted state (confirmed",
		"static-field p.Prices.TABLE['BTC']\n      passing: 100\n      failing: 90\n",
		"    p.Store.count():::EXIT\n    pv> return == 1\n    v> return == 0\n",
		"return-value modifier of p.Store.count(): p.Store.deleteAll() restores it (called by p.PurgeTest#purges)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("explain printed\n%s\nwant %q in it", stdout, want)
		}
	}

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no test", []string{"explain", "--module", dir}, "takes one test id"},
		{"no finding", []string{"explain", "--module", dir, "p.Other#t"}, "has no finding"},
		{"no report", []string{"explain", "--module", t.TempDir(), "p.QuoteTest#btc"}, "run flaky detect first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runApp(tt.args...)
			if code != exitError || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitError, tt.want)
			}
		})
	}
}

func TestPrintExplanationWithoutConfirmedState(t *testing.T) {
	var b bytes.Buffer
	printExplanation(&b, "", true, report.Finding{Test: "p.T#t", Kind: report.ODBrittle, Setters: [][]string{{"p.S#s"}},
		PollutedState: []report.StateItem{{Kind: "static-field", Root: "p.Codecs.CODECS", Path: "['json']", Passing: "<skipped: generated>", Failing: "<absent>"}},
		// A brittle's problem invariants: passing after its setter, failing alone.
		ProblemInvariants: []report.ProblemInvariant{{Point: "p.T.t():::ENTER", Variable: "p.Flags.ready", Passing: []string{"p.Flags.ready == true"}, Failing: []string{"p.Flags.ready == false"}}},
		CleanerMethods: []report.MethodCandidate{{Method: "p.Flags.init()", Class: "p.Flags", Name: "init", Static: true, Test: "p.S#s", Variable: "p.Flags.ready", Restores: true},
			{Method: "p.Flags.set(boolean, java.lang.Object)", Class: "p.Flags", Name: "set", ParameterTypes: []string{"boolean", "java.lang.Object"}, Static: true, Arguments: []string{"true", ""}, Test: "p.S#s", Variable: "p.Flags.ready", Restores: true}}})
	for _, want := range []string{"unconfirmed", "state-setters: [p.S#s]",
		"    p.T.t():::ENTER\n    pv> p.Flags.ready == false\n    v> p.Flags.ready == true\n",
		"  state-setting method of p.Flags.ready: p.Flags.init() (called by p.S#s)\n",
		"  state-setting method of p.Flags.ready: p.Flags.set(boolean, java.lang.Object) with (true, ?) (called by p.S#s)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("printed\n%s\nwant %q in it", b.String(), want)
		}
	}
}

// explain prints an API finding's whole chain: evidence, call sites, the
// proposed patch and the reproduce commands.
func TestExplainAPIFinding(t *testing.T) {
	dir := t.TempDir()
	patch := filepath.Join("target", "flaky", "repair", "p.T#t.diff")
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(patch)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, patch), []byte("--- a/T.java\n+++ b/T.java\n+x.toUpperCase(Locale.ROOT);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := &report.Report{Module: ".", Findings: []report.Finding{{
		Test: "p.T#t", Kind: report.API, Strategy: "LOCALE", Group: "LOCALE", Message: "expected:<TITLE> but was:<TİTLE>",
		Evidence:  []report.Evidence{{Run: "chaos LOCALE", Order: []string{"p.T#t"}, Outcome: "fail"}, {Run: "unperturbed", Order: []string{"p.T#t"}, Outcome: "pass"}},
		CallSites: []report.CallSite{{Class: "p.Title", Method: "upper", File: "Title.java", Line: 7, API: "java.lang.String#toUpperCase()"}},
		Repair:    &report.Repair{Kind: "template", Patch: patch, Validated: true},
		Reproduce: "mvn -Pflaky test -Dflaky.order=o.txt", ReproduceRunOrder: "flaky run-order --order o.txt --chaos LOCALE",
	}}, Gate: &report.Gate{Known: []string{"p.T#t api"}}}
	if err := report.Write(filepath.Join(dir, "target", "flaky", "report.json"), rep); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runApp("explain", "--module", dir, "p.T#t")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "api p.T#t\n  fails under a perturbed JDK API, known (in the baseline): fails under LOCALE at Title.java:7 (java.lang.String#toUpperCase())\n" +
		"  failure:\n        expected:<TITLE> but was:<TİTLE>\n" +
		"  evidence:\n    chaos LOCALE: fail in [p.T#t]\n    unperturbed: pass in [p.T#t]\n" +
		"  perturbed call sites:\n    p.Title.upper (Title.java:7) java.lang.String#toUpperCase()\n" +
		"  proposed fix (template, validated; flaky repair --apply writes it): " + patch + "\n" +
		"        --- a/T.java\n        +++ b/T.java\n        +x.toUpperCase(Locale.ROOT);\n" +
		"  reproduce:\n    mvn -Pflaky test -Dflaky.order=o.txt\n    flaky run-order --order o.txt --chaos LOCALE\n"
	if stdout != want {
		t.Errorf("explain printed\n%s\nwant\n%s", stdout, want)
	}
}
