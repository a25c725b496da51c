package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/gate/baseline"
	"github.com/flakyhq/flaky/internal/report"
)

// The gate's message names the new flaky tests with their reproduce
// commands and the failing ones, a bounded number of each.
func TestGateMessage(t *testing.T) {
	nod := report.Finding{Test: "p.A#n", Kind: report.NOD, Reproduce: "mvn -Pflaky test -pl core -Dflaky.order=target/flaky/orders/a.txt"}
	var many []report.Finding
	for i := range MaxGateTests + 2 {
		many = append(many, report.Finding{Test: fmt.Sprintf("p.M#t%02d", i), Kind: report.ODVictim, Reproduce: "mvn r"})
	}
	tests := []struct {
		name string
		res  Result
		want string
	}{
		{"one new flaky test", Result{Verdict: baseline.Verdict{New: []report.Finding{nod}}},
			"flaky: the flaky gate failed in module core: 1 new flaky test(s) not in .flaky/baseline.json\n" +
				"  NEW   nod        p.A#n\n" +
				"        reproduce: mvn -Pflaky test -pl core -Dflaky.order=target/flaky/orders/a.txt\n" +
				"fix the new flaky tests, or accept them with `flaky baseline accept`; report: /w/core/target/flaky/report.json\n"},
		{"a failing test", Result{Failing: []string{"p.F#f"}},
			"flaky: the flaky gate failed in module core: 1 test(s) fail in every run\n" +
				"  FAILS in every run: p.F#f\n" +
				"fix the failing tests (they are not flaky); report: /w/core/target/flaky/report.json\n"},
		{"both", Result{Verdict: baseline.Verdict{New: []report.Finding{nod}}, Failing: []string{"p.F#f"}},
			"flaky: the flaky gate failed in module core: 1 new flaky test(s) not in .flaky/baseline.json, 1 test(s) fail in every run\n" +
				"  NEW   nod        p.A#n\n" +
				"        reproduce: mvn -Pflaky test -pl core -Dflaky.order=target/flaky/orders/a.txt\n" +
				"  FAILS in every run: p.F#f\n" +
				"fix the failing tests (they are not flaky); fix the new flaky tests, or accept them with `flaky baseline accept`; report: /w/core/target/flaky/report.json\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.GateMessage("core", "/w/core/target/flaky/report.json"); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		res := Result{Verdict: baseline.Verdict{New: many}}
		got := res.GateMessage("core", "r.json")
		if n := strings.Count(got, "  NEW "); n != MaxGateTests || !strings.Contains(got, "  ... and 2 more new flaky test(s)\n") {
			t.Errorf("%d tests named, want %d and the rest counted:\n%s", n, MaxGateTests, got)
		}
	})
}
