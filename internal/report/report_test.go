package report

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flakyhq/flaky/internal/testkit/hostile"
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

// TestReadRefusesHugeReports: a report.json beyond MaxReportSize is an
// error, not gigabytes of memory, and one that is a FIFO, a device or a
// directory is refused at once.
func TestReadRefusesHugeReports(t *testing.T) {
	for _, f := range hostile.Files(MaxReportSize) {
		t.Run(f.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "report.json")
			if err := f.Make(path); err != nil {
				t.Fatal(err)
			}
			var err error
			if !hostile.Returns(path, func() { _, err = Read(path) }) {
				t.Fatalf("Read still reading after %v", hostile.ReadBound)
			}
			if err == nil || !strings.Contains(err.Error(), f.Want) {
				t.Errorf("err %v, want one saying %q", err, f.Want)
			}
		})
	}
}

// TestTrim bounds findings, runs, messages and orders, says what it cut,
// and leaves the report it copies alone.
func TestTrim(t *testing.T) {
	r := &Report{Module: "m"}
	for i := 0; i < MaxShownFindings+5; i++ {
		r.Findings = append(r.Findings, Finding{Test: "p.T#t", Message: "ok"})
	}
	long := strings.Repeat("é", MaxShownText) // 2 bytes a rune: cut inside one unless careful
	r.Findings[0].Message = long
	r.Findings[0].FailingOrder = make([]string, MaxShownOrderTests+1)
	r.Findings[0].Evidence = make([]Evidence, MaxShownEvidence+3)
	got := Trim(r)
	if len(got.Findings) != MaxShownFindings || len(got.Findings[0].Evidence) != MaxShownEvidence || len(got.Findings[0].FailingOrder) != MaxShownOrderTests {
		t.Errorf("not bounded: %d findings, %d runs, %d order", len(got.Findings), len(got.Findings[0].Evidence), len(got.Findings[0].FailingOrder))
	}
	if m := got.Findings[0].Message; !utf8.ValidString(m) || !strings.HasSuffix(m, " bytes cut]") || len(m) > MaxShownText+40 {
		t.Errorf("message cut to %d bytes, valid UTF-8 %v", len(m), utf8.ValidString(m))
	}
	want := []string{"the pages show the first 1000 of 1005 findings; report.json has them all", "1 messages longer than 16 KiB are cut",
		"3 runs beyond the first 20 of a finding are not shown", "1 orders longer than 1000 tests are shown in part"}
	if !slices.Equal(got.Cut, want) {
		t.Errorf("Cut = %q", got.Cut)
	}
	if len(r.Findings) != MaxShownFindings+5 || r.Findings[0].Message != long || len(r.Findings[0].Evidence) != MaxShownEvidence+3 || r.Cut != nil {
		t.Error("Trim changed the report it copies")
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
