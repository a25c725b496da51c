package pipeline

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/gate/impact"
	"github.com/flakyhq/flaky/internal/gate/knowledge"
	"github.com/flakyhq/flaky/internal/report"
)

// TestInertChangeStartsNothing checks that a change touching only
// documentation is reported as nothing to analyse without a launcher.
func TestInertChangeStartsNothing(t *testing.T) {
	c := &ChangeOptions{Change: &change.Change{Ref: "main", Base: "b", Head: "h", Files: []string{"README.md"}, Other: []string{"README.md"}}}
	res, err := Run(context.Background(), Module{Name: "m", Tests: []string{"p.T#a"}}, Options{Detect: &DetectOptions{Change: c, RequireOrders: true}}, logs.Logger{})
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
	if _, err := Run(context.Background(), Module{Name: "m"}, Options{Detect: &DetectOptions{Change: c}}, logs.Logger{}); err == nil {
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

func TestLoadKnowledge(t *testing.T) {
	dir := t.TempDir()
	c := &ChangeOptions{}
	if why := c.loadKnowledge(dir); !strings.Contains(why, "full analysis") || c.Knowledge != nil {
		t.Errorf("no store: %q, knowledge %v", why, c.Knowledge)
	}
	victim := knowledge.Finding{Kind: report.ODVictim, Polluters: [][]string{{"p.B#b"}}}
	st := &knowledge.Store{Format: knowledge.Format, Tests: map[string]*knowledge.Test{
		"p.A#a": {Traced: true, Reads: []knowledge.Root{{Root: "p.S.x", Kind: "static-field"}}, Writes: []knowledge.Root{{Root: "mode", Kind: "system-property"}}, Classes: []string{"p.S"}, Findings: []knowledge.Finding{victim}},
		"p.B#b": {Traced: true},
	}}
	if err := st.Save(dir); err != nil {
		t.Fatal(err)
	}
	if why := c.loadKnowledge(dir); why != "" {
		t.Fatalf("a store: %q", why)
	}
	if want := (impact.Record{Classes: []string{"p.S"}, Reads: []string{"p.S.x"}, Writes: []string{"mode"}}); !reflect.DeepEqual(c.Knowledge.Tests["p.A#a"], want) {
		t.Errorf("knowledge %+v, want p.A#a: %+v", c.Knowledge, want)
	}
	if want := map[string][]knowledge.Finding{"p.A#a": {victim}}; !reflect.DeepEqual(c.Known, want) {
		t.Errorf("known %+v, want %+v", c.Known, want)
	}
}

func TestJudgeKnown(t *testing.T) {
	known := map[string][]knowledge.Finding{
		"p.V#v": {{Kind: report.ODVictim, Polluters: [][]string{{"p.P#p"}}}},
		"p.N#n": {{Kind: report.NOD}},
	}
	pair := [][2]string{{"p.P#p", "p.V#v"}}
	for _, c := range []struct {
		name         string
		pairs        [][2]string
		findings     []report.Finding
		cov          report.Coverage
		known, fixed []string
	}{
		{"still a victim", pair, []report.Finding{{Test: "p.V#v", Kind: report.ODVictim}, {Test: "p.X#x", Kind: report.ODVictim}}, report.Coverage{}, []string{"p.V#v"}, nil},
		{"now a brittle is new", pair, []report.Finding{{Test: "p.V#v", Kind: report.ODBrittle}}, report.Coverage{}, nil, nil},
		{"polluter pair ran, victim passed", pair, nil, report.Coverage{}, nil, []string{"p.V#v"}},
		{"polluter pair not run", nil, nil, report.Coverage{}, nil, nil},
		{"budget cut", pair, nil, report.Coverage{BudgetExhausted: true}, nil, nil},
		{"unconfirmed", pair, nil, report.Coverage{Unconfirmed: []string{"p.V#v"}}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := &ChangeOptions{Known: known}
			st := &report.ChangeStats{}
			o.judgeKnown(st, &od.Focus{Targets: []string{"p.V#v", "p.N#n", "p.X#x"}, Pairs: c.pairs}, &c.cov, c.findings)
			if !reflect.DeepEqual(st.Known, c.known) || !reflect.DeepEqual(st.PossiblyFixed, c.fixed) {
				t.Errorf("known %v, possibly fixed %v; want %v, %v", st.Known, st.PossiblyFixed, c.known, c.fixed)
			}
		})
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

// TestSettled checks which known victims keep their verdict: those the
// change affects only through others' writes whose known polluters it does
// not affect directly.
func TestSettled(t *testing.T) {
	victim := func(polluters ...string) []knowledge.Finding {
		var groups [][]string
		for _, p := range polluters {
			groups = append(groups, []string{p})
		}
		return []knowledge.Finding{{Kind: report.ODVictim, Polluters: groups}}
	}
	c := &ChangeOptions{Known: map[string][]knowledge.Finding{
		"p.T#v1": victim("p.T#polluter"), // read what the new test writes
		"p.T#v2": victim("p.T#changed"),  // its polluter changed
		"p.T#v3": victim("p.T#polluter"), // changed itself
		"p.T#b":  {{Kind: report.ODBrittle, Setters: [][]string{{"p.T#s"}}}},
	}}
	im := &impact.Impact{Tests: []impact.Test{
		{ID: "p.T#new", New: true},
		{ID: "p.T#changed"},
		{ID: "p.T#v1", Via: []string{"p.T#new"}},
		{ID: "p.T#v2", Via: []string{"p.T#changed"}},
		{ID: "p.T#v3"},
		{ID: "p.T#b", Via: []string{"p.T#new"}},
	}}
	want := map[string][][]string{"p.T#v1": {{"p.T#polluter"}}}
	if got := c.settled(im); !reflect.DeepEqual(got, want) {
		t.Errorf("settled %v, want %v", got, want)
	}
}
