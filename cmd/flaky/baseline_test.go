package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/gate/baseline"
	"github.com/flakyhq/flaky/internal/report"
)

// acceptBaseline accepts the findings of every module's report under its
// root, once.
func TestAcceptBaseline(t *testing.T) {
	root := t.TempDir()
	g := globalOptions{Stdout: io.Discard, Stderr: io.Discard}
	if err := acceptBaseline(baselineAcceptOptions{globalOptions: g, Root: root}); err == nil || !strings.Contains(err.Error(), "no target/flaky/report.json") {
		t.Fatalf("without reports: %v", err)
	}
	for _, m := range []string{"core", "web"} {
		dir := filepath.Join(root, m, "target", "flaky")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		rep := &report.Report{Module: m, Findings: []report.Finding{{Test: "p.T#a", Kind: report.ODVictim}}}
		if err := report.Write(filepath.Join(dir, "report.json"), rep); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	g.Stdout = &out
	want := "accepted 2 new flaky test(s); " + filepath.Join(root, baseline.BaselinePath) + " lists 2\n"
	if err := acceptBaseline(baselineAcceptOptions{globalOptions: g, Root: root}); err != nil || out.String() != want {
		t.Fatalf("first accept: %v, printed %q, want %q", err, out.String(), want)
	}
	out.Reset()
	want = "accepted 0 new flaky test(s); " + filepath.Join(root, baseline.BaselinePath) + " lists 2\n"
	if err := acceptBaseline(baselineAcceptOptions{globalOptions: g, Root: root}); err != nil || out.String() != want {
		t.Errorf("second accept: %v, printed %q, want %q", err, out.String(), want)
	}
}

// baseline list prints what the baseline accepts; baseline remove takes
// tests out of it (one module's acceptance with --module), and refuses a
// test it does not accept without changing the file.
func TestBaselineListAndRemove(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, baseline.BaselinePath)
	if code, stdout, stderr := runApp("baseline", "list", root); code != 0 || stdout != path+" accepts no flaky test\n" {
		t.Fatalf("list without a baseline: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b := &baseline.Baseline{Accepted: []baseline.Accepted{
		{Test: "p.A#v", Kind: report.ODVictim, Module: "core"},
		{Test: "p.A#v", Kind: report.ODVictim, Module: "web"},
		{Test: "p.B#n", Kind: report.NOD},
	}}
	if err := b.Save(root); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{[]string{"baseline", "list", root}, 0, "nod          p.B#n\nod-victim    p.A#v (module core)\nod-victim    p.A#v (module web)\n" + path + " accepts 3 flaky test(s)\n", ""},
		{[]string{"baseline", "remove", "--root", root, "p.B#n", "p.Typo#x"}, 2, "", "flaky: " + path + " does not accept p.Typo#x (see flaky baseline list); nothing removed\n"},
		{[]string{"baseline", "remove", "--root", root, "--module", "web", "p.A#v"}, 0, "removed od-victim p.A#v (module web)\n" + path + " accepts 2 flaky test(s)\n", ""},
		{[]string{"baseline", "remove", "--root", root, "p.A#v", "p.B#n"}, 0, "removed od-victim p.A#v (module core)\nremoved nod p.B#n\n" + path + " accepts 0 flaky test(s)\n", ""},
		{[]string{"baseline", "list", root}, 0, path + " accepts no flaky test\n", ""},
		{[]string{"baseline", "remove", "--root", root}, 2, "", "flaky: baseline remove takes the tests to remove, e.g. com.example.FooTest#bar\n"},
	}
	for i, st := range steps {
		code, stdout, stderr := runApp(st.args...)
		if code != st.wantCode || stdout != st.wantStdout || stderr != st.wantStderr {
			t.Fatalf("step %d, flaky %s: exit %d, stdout %q, stderr %q; want %d, %q, %q", i, strings.Join(st.args, " "), code, stdout, stderr, st.wantCode, st.wantStdout, st.wantStderr)
		}
	}
}
