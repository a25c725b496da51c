package report

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "target", "flaky", "report.json")
	in := &Report{Module: "m", Runs: 3, Findings: []Finding{
		{Test: "p.B#v", Kind: ODVictim, Polluters: [][]string{{"p.A#x"}}, Evidence: []Evidence{{Order: []string{"p.A#x", "p.B#v"}, Outcome: "fail"}}},
		{Test: "p.A#n", Kind: NOD},
	}}
	in.Sort()
	if in.Findings[0].Kind != NOD {
		t.Fatalf("Sort: first finding %v", in.Findings[0])
	}
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n in %+v\nout %+v", in, out)
	}
}

func TestReadRefuses(t *testing.T) {
	tests := []struct{ name, content string }{
		{"not json", "{"},
		{"future version", `{"version":99,"findings":[]}`},
		{"no version", `{"findings":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "report.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(path); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

func TestEvidenceSetOrder(t *testing.T) {
	dir := t.TempDir()
	long := make([]string, MaxShownOrder+1)
	for i := range long {
		long[i] = "p.T#m" + string(rune('a'+i))
	}
	tests := []struct {
		name     string
		order    []string
		wantFile bool
	}{
		{"short order inline", []string{"p.A#x", "p.B#y"}, false},
		{"long order in a file", long, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Evidence
			if err := e.SetOrder(tt.order, dir); err != nil {
				t.Fatal(err)
			}
			if (e.OrderFile != "") != tt.wantFile || (e.Order != nil) == tt.wantFile {
				t.Fatalf("evidence %+v", e)
			}
			if tt.wantFile {
				data, err := os.ReadFile(e.OrderFile)
				if err != nil || len(data) == 0 || data[len(data)-1] != '\n' {
					t.Errorf("order file %q: %v", data, err)
				}
			}
		})
	}
}

func TestDisplayName(t *testing.T) {
	for _, tt := range []struct{ module, name, want string }{
		{".", "shop", "shop"},
		{"", "shop", "shop"},
		{".", "", "."},
		{"web/app", "app", "web/app"},
	} {
		if got := (&Report{Module: tt.module, Name: tt.name}).DisplayName(); got != tt.want {
			t.Errorf("module %q, name %q: %q, want %q", tt.module, tt.name, got, tt.want)
		}
	}
}
