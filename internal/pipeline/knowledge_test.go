package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/gate/knowledge"
	"github.com/flakyhq/flaky/internal/report"
)

// Only a whole detection keeps knowledge: a shard's or a merge's has no
// data dependencies, and without detection nothing was learned.
func TestFull(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		want bool
	}{
		{"detection", Options{Detect: &DetectOptions{}}, true},
		{"no detection", Options{Chaos: &ChaosOptions{}}, false},
		{"shard", Options{Detect: &DetectOptions{Shard: od.Shard{I: 1, N: 2}}}, false},
		{"merge", Options{Detect: &DetectOptions{Partials: []*od.Partial{{}}}}, false},
	} {
		if got := full(c.opts); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// remember records the run's findings and dataflow, says so, and a corrupt
// store is replaced with a note.
func TestRemember(t *testing.T) {
	dir, classes := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(classes, "A.class"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, knowledge.File), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := Module{Dir: t.TempDir(), Name: ".", Tests: []string{"ATest#a", "ATest#b"}, ClassDirs: []string{classes}}
	ref := &launcher.Result{Tests: []launcher.TestResult{{Test: "ATest#a", Outcome: launcher.Pass}, {Test: "ATest#b", Outcome: launcher.Fail}},
		Dataflow: []agent.Dataflow{{Test: "ATest#b", Classes: []string{"A"}}}}
	res := &Result{Report: &report.Report{Findings: []report.Finding{{Test: "ATest#b", Kind: report.ODVictim, Polluters: [][]string{{"ATest#a"}}}}},
		Dataflow: &dataflow.Result{References: []*launcher.Result{ref}}}
	var lines []string
	remember(context.Background(), m, Options{Detect: &DetectOptions{}, Knowledge: dir}, logs.New(func(_, l string) { lines = append(lines, l) }, nil), res)
	want := []string{"knowledge at " + dir + " is corrupt (unexpected end of JSON input): full analysis", "knowledge: 2 tests recorded in " + dir}
	if !slices.Equal(lines, want) {
		t.Errorf("lines %q, want %q", lines, want)
	}
	s, note, err := knowledge.Load(dir)
	if s == nil || err != nil {
		t.Fatalf("store not written: %v %v", note, err)
	}
	b := s.Tests["ATest#b"]
	if len(s.Tests) != 2 || s.Classes["A"] == "" || b == nil || !slices.Equal(b.Classes, []string{"A"}) || len(b.Findings) != 1 || b.Findings[0].Polluters[0][0] != "ATest#a" {
		t.Errorf("store %+v, test %+v", s, b)
	}
	if s.Commit != "" {
		t.Errorf("commit %q outside git", s.Commit)
	}
}
