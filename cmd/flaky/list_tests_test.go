package main

import (
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/surefire"
)

// A parameterized test that the recorded fork ran is listed as the
// invocations it ran, so the list counts what Surefire counts; one it did
// not run stays one entry.
func TestWithInvocations(t *testing.T) {
	tests := []launcher.TestInfo{
		{ID: "p.A#plain", Method: "plain"},
		{ID: "p.A#param", Method: "param", Dynamic: true},
		{ID: "p.B#factory", Method: "factory", Dynamic: true},
	}
	records := []*surefire.ForkRecord{{Tests: []surefire.ForkTest{
		{Test: "p.A#plain"}, {Test: "p.A#param[1]"}, {Test: "p.A#param[2]"}, {Test: "p.A#paramOther[1]"}, {Test: "p.A#param[3]"},
	}}}
	got, expanded, unknown := withInvocations(tests, records)
	var ids []string
	for _, ti := range got {
		ids = append(ids, ti.ID+"/"+ti.Method)
	}
	if want := "p.A#plain/plain p.A#param[1]/param[1] p.A#param[2]/param[2] p.A#param[3]/param[3] p.B#factory/factory"; strings.Join(ids, " ") != want || expanded != 1 || unknown != 1 {
		t.Errorf("got %s (%d expanded, %d unknown), want %s", strings.Join(ids, " "), expanded, unknown, want)
	}
	if n := countInvocations(got); n != 3 {
		t.Errorf("countInvocations = %d, want 3", n)
	}
}
