package pipeline

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/change"
	"github.com/flakyhq/flaky/internal/impact"
	"github.com/flakyhq/flaky/internal/knowledge"
	"github.com/flakyhq/flaky/internal/report"
)

// TestInertChangeStartsNothing checks that a change touching only
// documentation is reported as nothing to analyse without a launcher.
func TestInertChangeStartsNothing(t *testing.T) {
	c := &ChangeOptions{Change: &change.Change{Ref: "main", Base: "b", Head: "h", Files: []string{"README.md"}, Other: []string{"README.md"}}}
	res, err := Run(context.Background(), Module{Name: "m", Tests: []string{"p.T#a"}}, Options{Detect: &DetectOptions{Change: c, RequireOrders: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := res.Report.Stats.Change
	if st == nil || st.Summary != "nothing to analyse: only documentation changed" || st.Files != 1 || st.Base != "b" || len(st.Affected) != 0 || res.OD != nil {
		t.Errorf("change stats %+v, od %v", st, res.OD)
	}
	none := &ChangeOptions{Change: &change.Change{Ref: "main"}}
	if why := none.Inert(); why != "nothing to analyse: nothing changed" {
		t.Errorf("no change: %q", why)
	}
	c.Change.Classes = []string{"p.Cache"}
	if _, err := Run(context.Background(), Module{Name: "m"}, Options{Detect: &DetectOptions{Change: c}}, nil); err == nil {
		t.Error("a change to code was analysed without a launcher")
	}
}

func TestAddChange(t *testing.T) {
	one := &report.ChangeStats{Ref: "main", Affected: []report.AffectedTest{{Test: "p.A#a"}}, Pairs: 2, Summary: "1 affected test"}
	two := &report.ChangeStats{Ref: "main", Affected: []report.AffectedTest{{Test: "p.B#b"}, {Test: "p.B#c"}}, Pairs: 3, Summary: "2 affected tests"}
	got := addChange(addChange(nil, one), two)
	if len(got.Affected) != 3 || got.Pairs != 5 || got.Summary != "2 affected tests" {
		t.Errorf("forks added up to %+v", got)
	}
}

func TestChangeKnowledge(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	log := func(_ Stage, line string) { lines = append(lines, line) }
	if k := changeKnowledge(dir, log); k != nil || len(lines) != 1 || !strings.Contains(lines[0], "every affected test counts as new") {
		t.Errorf("no store: %v, log %q", k, lines)
	}
	st := &knowledge.Store{Format: knowledge.Format, Tests: map[string]*knowledge.Test{
		"p.A#a": {Traced: true, Reads: []knowledge.Root{{Root: "p.S.x", Kind: "static-field"}}, Writes: []knowledge.Root{{Root: "mode", Kind: "system-property"}}, Classes: []string{"p.S"}},
	}}
	if err := st.Save(dir); err != nil {
		t.Fatal(err)
	}
	k := changeKnowledge(dir, log)
	if want := (impact.Record{Classes: []string{"p.S"}, Reads: []string{"p.S.x"}, Writes: []string{"mode"}}); k == nil || !reflect.DeepEqual(k.Tests["p.A#a"], want) {
		t.Errorf("knowledge %+v, want p.A#a: %+v", k, want)
	}
}

func TestEveryTest(t *testing.T) {
	c := &change.Change{Ref: "main", Build: []string{"pom.xml"}, Resources: []string{"a.txt", "b.txt", "c.txt"}}
	why := everything(c)
	if want := "every test is analysed: pom.xml, a.txt, b.txt, 1 more changed"; why != want {
		t.Errorf("why %q, want %q", why, want)
	}
	st := everyTest(c, []string{"p.A#a", "p.B#b"}, why)
	if len(st.Affected) != 2 || st.Affected[1].Test != "p.B#b" || st.Affected[1].Reasons[0] != "pom.xml, a.txt, b.txt, 1 more changed" || st.Summary != why {
		t.Errorf("stats %+v", st)
	}
}
