package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/gate"
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
	want := "accepted 2 new flaky test(s); " + filepath.Join(root, gate.BaselinePath) + " lists 2\n"
	if err := acceptBaseline(baselineAcceptOptions{globalOptions: g, Root: root}); err != nil || out.String() != want {
		t.Fatalf("first accept: %v, printed %q, want %q", err, out.String(), want)
	}
	out.Reset()
	want = "accepted 0 new flaky test(s); " + filepath.Join(root, gate.BaselinePath) + " lists 2\n"
	if err := acceptBaseline(baselineAcceptOptions{globalOptions: g, Root: root}); err != nil || out.String() != want {
		t.Errorf("second accept: %v, printed %q, want %q", err, out.String(), want)
	}
}
