package baseline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func TestCheck(t *testing.T) {
	rep := &report.Report{Module: "core", Findings: []report.Finding{
		{Test: "p.A#v", Kind: report.ODVictim},
		{Test: "p.B#n", Kind: report.NOD},
	}}
	clearAll := func(Accepted) string { return "" }
	tests := []struct {
		name        string
		accepted    []Accepted
		clear       func(Accepted) string
		wantNew     int
		wantKnown   int
		wantFixed   int
		wantUnjudge int
		wantPasses  bool
	}{
		{"empty baseline", nil, clearAll, 2, 0, 0, 0, false},
		{"all accepted", []Accepted{{Test: "p.A#v", Module: "core"}, {Test: "p.B#n"}}, clearAll, 0, 2, 0, 0, true},
		{"other module's acceptance does not count", []Accepted{{Test: "p.A#v", Module: "web"}, {Test: "p.B#n", Module: "core"}}, clearAll, 1, 1, 0, 0, false},
		{"accepted and gone", []Accepted{{Test: "p.A#v"}, {Test: "p.B#n"}, {Test: "p.C#gone", Module: "core"}}, clearAll, 0, 2, 1, 0, true},
		{"accepted but not cleared", []Accepted{{Test: "p.A#v"}, {Test: "p.B#n"}, {Test: "p.C#gone"}}, func(Accepted) string { return "budget" }, 0, 2, 0, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Check(&Baseline{Version: 1, Accepted: tt.accepted}, rep, tt.clear)
			if len(v.New) != tt.wantNew || len(v.Known) != tt.wantKnown || len(v.PossiblyFixed) != tt.wantFixed || len(v.Unjudged) != tt.wantUnjudge || v.Pass() != tt.wantPasses {
				t.Errorf("got new=%d known=%d fixed=%d unjudged=%d pass=%v", len(v.New), len(v.Known), len(v.PossiblyFixed), len(v.Unjudged), v.Pass())
			}
		})
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	root := t.TempDir()
	b, err := LoadBaseline(root)
	if err != nil || len(b.Accepted) != 0 {
		t.Fatalf("missing baseline: %v %v", b, err)
	}
	rep := &report.Report{Module: "m", Findings: []report.Finding{{Test: "p.B#x", Kind: report.NOD}, {Test: "p.A#y", Kind: report.ODVictim}}}
	if n := b.Accept(rep); n != 2 {
		t.Fatalf("Accept added %d", n)
	}
	if n := b.Accept(rep); n != 0 {
		t.Fatalf("second Accept added %d", n)
	}
	if err := b.Save(root); err != nil {
		t.Fatal(err)
	}
	got, err := LoadBaseline(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Accepted) != 2 || got.Accepted[0].Test != "p.A#y" {
		t.Errorf("loaded %+v", got.Accepted)
	}
	if err := os.WriteFile(filepath.Join(root, BaselinePath), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBaseline(root); err == nil {
		t.Error("malformed baseline accepted")
	}
}

func TestRemove(t *testing.T) {
	accepted := []Accepted{
		{Test: "p.A#v", Kind: report.ODVictim, Module: "core"},
		{Test: "p.A#v", Kind: report.ODVictim, Module: "web"},
		{Test: "p.B#n", Kind: report.NOD},
	}
	tests := []struct {
		name, test, module string
		wantRemoved, left  int
	}{
		{"every module's", "p.A#v", "", 2, 1},
		{"one module's", "p.A#v", "web", 1, 2},
		{"accepted in every module", "p.B#n", "", 1, 2},
		{"not accepted", "p.C#x", "", 0, 3},
		{"not in that module", "p.A#v", "api", 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Baseline{Version: BaselineVersion, Accepted: append([]Accepted(nil), accepted...)}
			removed := b.Remove(tt.test, tt.module)
			if len(removed) != tt.wantRemoved || len(b.Accepted) != tt.left {
				t.Fatalf("removed %+v, left %+v", removed, b.Accepted)
			}
			for _, a := range b.Accepted {
				if a.Test == tt.test && (tt.module == "" || a.Module == tt.module) {
					t.Errorf("%+v is still accepted", a)
				}
			}
		})
	}
}
