package od

import (
	"path/filepath"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

// What flaky says of a finding the budget cut goes in its note; the
// message stays the test's failure as it reported it.
func TestReportFindingsNoteApart(t *testing.T) {
	const failure = "expected:<1> but was:<2>\n\tat a.V.t(V.java:9)"
	findings := []Finding{
		{Test: "a.V#t", Kind: report.ODVictim, Message: failure, FailingOrder: []string{"a.P#p", "a.V#t"}, PassingOrder: []string{"a.V#t"}, Incomplete: true},
		{Test: "a.W#t", Kind: report.ODVictim, Message: failure, Polluters: [][]string{{"a.P#p"}}, FailingOrder: []string{"a.P#p", "a.W#t"}, PassingOrder: []string{"a.W#t"}, Incomplete: true},
		{Test: "a.B#t", Kind: report.ODBrittle, Message: failure, FailingOrder: []string{"a.B#t"}, PassingOrder: []string{"a.S#s", "a.B#t"}, Incomplete: true},
		{Test: "a.X#t", Kind: report.ODVictim, Message: failure, Polluters: [][]string{{"a.P#p"}}, FailingOrder: []string{"a.P#p", "a.X#t"}, PassingOrder: []string{"a.X#t"}},
	}
	got, err := ReportFindings(findings, ReportOptions{OrderDir: filepath.Join(t.TempDir(), "orders"), ModuleDir: "/p", Module: "."})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"confirmed; the budget ended before its minimisation: its polluters are among the tests before it in its failing order",
		"the budget ended before the minimisation did: the groups may be incomplete",
		"confirmed; the budget ended before its minimisation: its state-setters are among the tests before it in its failing order",
		"",
	}
	for i, f := range got {
		if f.Message != failure || f.Note != want[i] {
			t.Errorf("%s: message %q, note %q; want the failure as it was and note %q", f.Test, f.Message, f.Note, want[i])
		}
	}
}
