package main

import (
	"bytes"
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
		"od-victim p.QuoteTest#btc\n", "polluters: [p.PromoTest#discount]", "polluted state (confirmed",
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
		{"no finding", []string{"explain", "--module", dir, "p.Other#t"}, "has no OD finding"},
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
	printExplanation(&b, report.Finding{Test: "p.T#t", Kind: report.ODBrittle, Setters: [][]string{{"p.S#s"}},
		PollutedState: []report.StateItem{{Kind: "static-field", Root: "p.Codecs.CODECS", Path: "['json']", Passing: "<skipped: generated>", Failing: "<absent>"}}})
	if !strings.Contains(b.String(), "unconfirmed") || !strings.Contains(b.String(), "state-setters: [p.S#s]") {
		t.Errorf("printed\n%s", b.String())
	}
}
