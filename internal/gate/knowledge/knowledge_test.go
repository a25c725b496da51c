package knowledge

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

func TestLoad(t *testing.T) {
	for _, c := range []struct {
		name    string
		content string // "" writes no file
		kind    NoteKind
		note    string
	}{
		{"missing", "", Missing, "no knowledge at DIR: full analysis"},
		{"not json", "{\"format\": 1, \"tests\": {", Corrupt, "knowledge at DIR is corrupt (unexpected end of JSON input): full analysis"},
		{"truncated to nothing", " ", Corrupt, "knowledge at DIR is corrupt (unexpected end of JSON input): full analysis"},
		{"no format", `{"tests": {}}`, Corrupt, "knowledge at DIR is corrupt (no format): full analysis"},
		{"wrong shape", `{"format": 1, "tests": []}`, Corrupt, "knowledge at DIR is corrupt (json: cannot unmarshal array into Go struct field Store.tests of type map[string]*knowledge.Test): full analysis"},
		{"stale", `{"format": 0, "tests": {}}`, Stale, "knowledge at DIR is stale (format 0, this flaky reads 1): full analysis"},
		{"current", `{"format": 1, "module": "."}`, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.content != "" {
				if err := os.WriteFile(filepath.Join(dir, File), []byte(c.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, note, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.ReplaceAll(c.note, "DIR", dir); note.Kind != c.kind || note.String() != want {
				t.Errorf("note %q %q, want %q %q", note.Kind, note, c.kind, want)
			}
			if (s != nil) != (c.kind == "") {
				t.Errorf("store %v with note %q", s, note)
			}
			if s != nil && s.Tests == nil {
				t.Errorf("loaded store has nil tests")
			}
		})
	}
}

// TestLoadRefusesHostileFiles loads a knowledge.json that is a FIFO, a
// device, a directory or larger than MaxSize (items 5 and 9 of #53: a store
// linked to /dev/zero read 3 GB, a FIFO blocked, 108 MB cost 674 MB): each
// is refused at once as unreadable, with an error that says what it is,
// and the analysis is a full one.
func TestLoadRefusesHostileFiles(t *testing.T) {
	for _, f := range hostile.Files(MaxSize) {
		t.Run(f.Name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, File)
			if err := f.Make(path); err != nil {
				t.Fatal(err)
			}
			var s *Store
			var note Note
			var err error
			if !hostile.Returns(path, func() { s, note, err = Load(dir) }) {
				t.Fatalf("Load still reading after %v", hostile.ReadBound)
			}
			if s != nil || note.Kind != Unreadable || err == nil || !strings.Contains(err.Error(), f.Want) {
				t.Errorf("Load: store %v, note %q %q, error %v; want no store, unreadable, an error saying %q", s, note.Kind, note, err, f.Want)
			}
		})
	}
}

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	want := &Store{Format: Format, Module: "core", Commit: "abc", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Classes: map[string]string{"p.A": "00"},
		Tests: map[string]*Test{"p.ATest#x": {DurationMs: 3, MedianMs: 3, Durations: []int64{3}, LastCommit: "abc",
			Outcomes: map[string]Outcomes{RunReference: {Pass: 1}}, Traced: true, Reads: []Root{{"p.A.f", "static-field"}},
			Classes: []string{"p.A"}, Findings: []Finding{{Kind: report.ODVictim, Polluters: [][]string{{"p.BTest#y"}}}}}}}
	if err := want.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, note, err := Load(dir)
	if err != nil || got == nil {
		t.Fatalf("load: %v %v", note, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loaded %+v, want %+v", got, want)
	}
	// No temporary file is left behind.
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want 1", len(entries))
	}
}

func run(outcome launcher.Outcome, ms int64, flow ...agent.Dataflow) *launcher.Result {
	return &launcher.Result{Order: []string{"p.ATest#x", "p.BTest#y"}, Tests: []launcher.TestResult{
		{Test: "p.ATest#x", Outcome: launcher.Pass, TimeMs: 1},
		{Test: "p.BTest#y", Outcome: outcome, TimeMs: ms},
	}, Dataflow: flow}
}

func TestRecord(t *testing.T) {
	flow := []agent.Dataflow{
		{Test: "p.ATest#x", Writes: []agent.DataflowRoot{{Root: "p.A.f", Kind: "static-field"}}, Classes: []string{"p.A", "p.ATest"}},
		{Test: "p.BTest#y", Reads: []agent.DataflowRead{{Root: "p.A.f", Kind: "static-field", Writer: "p.ATest#x"}},
			Touched: []agent.DataflowRoot{{Root: "p.A.f", Kind: "static-field"}, {Root: "user.home", Kind: "system-property"}},
			Classes: []string{"p.A", "p.BTest"}, Methods: []string{"p.BTest#y", "p.A#get"}},
	}
	victim := report.Finding{Test: "p.BTest#y", Kind: report.ODVictim, Polluters: [][]string{{"p.ATest#x"}},
		Evidence: []report.Evidence{{Outcome: "fail"}, {Outcome: "pass"}, {Outcome: "fail"}}}
	first := Record(nil, Run{Module: ".", Commit: "c1", Classes: map[string]string{"p.A": "h1"}, Tests: []string{"p.ATest#x", "p.BTest#y"},
		Findings: []report.Finding{victim}, References: []*launcher.Result{run(launcher.Fail, 10, flow...)}})
	b := first.Tests["p.BTest#y"]
	wantB := &Test{DurationMs: 10, MedianMs: 10, Durations: []int64{10}, LastCommit: "c1",
		Outcomes: map[string]Outcomes{RunReference: {Fail: 1}, RunOrders: {Pass: 1, Fail: 2}},
		Traced:   true, Reads: []Root{{"p.A.f", "static-field"}, {"user.home", "system-property"}},
		Classes: []string{"p.A", "p.BTest"}, Methods: []string{"p.A#get", "p.BTest#y"},
		Findings: []Finding{{Kind: report.ODVictim, Polluters: [][]string{{"p.ATest#x"}}}}}
	if !reflect.DeepEqual(b, wantB) {
		t.Errorf("first run: %+v, want %+v", b, wantB)
	}
	if a := first.Tests["p.ATest#x"]; !reflect.DeepEqual(a.Writes, []Root{{"p.A.f", "static-field"}}) || a.Findings != nil {
		t.Errorf("first run's writer: %+v", a)
	}

	// A second full run (no dataflow, verify's Surefire run and an
	// unconfirmed flip) replaces the records and adds to the counts; a
	// test it did not run keeps its record.
	first.Tests["p.GoneTest#z"] = &Test{DurationMs: 7}
	second := Record(first, Run{Module: ".", Commit: "c2", Tests: []string{"p.ATest#x", "p.BTest#y"}, Unconfirmed: []string{"p.BTest#y"},
		Original: []*launcher.Result{run(launcher.Pass, 30), run(launcher.Fail, 20)}})
	wantB = &Test{DurationMs: 30, MedianMs: 10, Durations: []int64{10, 30}, LastCommit: "c2",
		Outcomes:  map[string]Outcomes{RunReference: {Fail: 1}, RunOrders: {Pass: 1, Fail: 2}, RunOriginal: {Pass: 1, Fail: 1}},
		Suspected: true}
	if b := second.Tests["p.BTest#y"]; !reflect.DeepEqual(b, wantB) {
		t.Errorf("second run: %+v, want %+v", b, wantB)
	}
	if second.Commit != "c2" || len(second.Classes) != 0 || second.Tests["p.GoneTest#z"].DurationMs != 7 {
		t.Errorf("second run's store: %+v", second)
	}
	if first.Tests["p.BTest#y"].Suspected || first.Tests["p.BTest#y"].Outcomes[RunOriginal] != (Outcomes{}) {
		t.Errorf("recording changed the old store: %+v", first.Tests["p.BTest#y"])
	}

	// Another module's store is not merged.
	other := Record(first, Run{Module: "core", Tests: []string{"p.ATest#x"}})
	if len(other.Tests) != 1 || other.Tests["p.ATest#x"].Outcomes != nil {
		t.Errorf("another module's store merged: %+v", other.Tests)
	}
}

func TestDurationsAreBounded(t *testing.T) {
	var s *Store
	for i := range 2 * MaxDurations {
		s = Record(s, Run{Tests: []string{"p.BTest#y"}, References: []*launcher.Result{run(launcher.Pass, int64(i))}})
	}
	b := s.Tests["p.BTest#y"]
	if len(b.Durations) != MaxDurations || b.DurationMs != 2*MaxDurations-1 || b.MedianMs != 13 || b.Outcomes[RunReference].Pass != 2*MaxDurations {
		t.Errorf("after %d runs: %+v", 2*MaxDurations, b)
	}
}

func TestHashClasses(t *testing.T) {
	classes, tests := t.TempDir(), t.TempDir()
	for path, content := range map[string]string{
		filepath.Join(classes, "p", "A.class"):           "a",
		filepath.Join(classes, "p", "A$In.class"):        "b",
		filepath.Join(classes, "p", "notes.txt"):         "c",
		filepath.Join(tests, "p", "q", "ATest.class"):    "a",
		filepath.Join(tests, "META-INF", "x.properties"): "d",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := HashClasses(classes, tests, filepath.Join(tests, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	const a = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	want := map[string]string{"p.A": a, "p.A$In": "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d", "p.q.ATest": a}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDir(t *testing.T) {
	t.Setenv("FLAKY_CACHE_DIR", "/cache")
	for _, c := range []struct{ folder, name, want string }{
		{"/k", ".", "/k"},
		{"/k", "core/api", "/k/core/api"},
		{"/k", "../x", "/k/" + key("/m", "../x")},
		{"", ".", "/cache/knowledge/" + key("/m", ".")},
	} {
		if got, err := Dir(c.folder, "/m", c.name); err != nil || got != c.want {
			t.Errorf("Dir(%q, %q) = %q, %v; want %q", c.folder, c.name, got, err, c.want)
		}
	}
	if key("/m", ".") == key("/n", ".") || key("/m", ".") == key("/m", "core") {
		t.Errorf("keys of different modules are equal")
	}
}

// TestDirRefusesLinks: a module's folder in the knowledge folder, or a
// folder above it there, that is a symbolic link is refused (item 10 of
// #53: the store was written where the link led, outside the knowledge
// folder); the same in flaky's cache directory. The knowledge folder
// itself may be a link.
func TestDirRefusesLinks(t *testing.T) {
	folder, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(folder, "core")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"core", "core/api", "core/api/impl"} {
		if got, err := Dir(folder, "/m", name); err == nil || !strings.Contains(err.Error(), filepath.Join(folder, "core")+" is a symbolic link") {
			t.Errorf("Dir(%q) = %q, %v; want it refused", name, got, err)
		}
	}
	if got, err := Dir(folder, "/m", "web/api"); err != nil || got != filepath.Join(folder, "web", "api") {
		t.Errorf("Dir(web/api) = %q, %v", got, err)
	}
	// The knowledge folder itself may be a link (the user chose where it is).
	linked := filepath.Join(t.TempDir(), "k")
	if err := os.Symlink(folder, linked); err != nil {
		t.Fatal(err)
	}
	if got, err := Dir(linked, "/m", "web"); err != nil || got != filepath.Join(linked, "web") {
		t.Errorf("Dir in a linked knowledge folder = %q, %v", got, err)
	}
	cache := t.TempDir()
	t.Setenv("FLAKY_CACHE_DIR", cache)
	store := filepath.Join(cache, "knowledge", key("/m", "."))
	os.MkdirAll(filepath.Dir(store), 0o755)
	if err := os.Symlink(outside, store); err != nil {
		t.Fatal(err)
	}
	if got, err := Dir("", "/m", "."); err == nil || !strings.Contains(err.Error(), store+" is a symbolic link") {
		t.Errorf("Dir of a linked store in the cache = %q, %v; want it refused", got, err)
	}
}

func TestSuspect(t *testing.T) {
	s := &Store{Format: Format, Tests: map[string]*Test{"p.A#a": {Traced: true, DurationMs: 5}}}
	if !s.Suspect([]string{"p.A#a", "p.New#n"}, "abc") {
		t.Fatal("nothing marked")
	}
	if a := s.Tests["p.A#a"]; !a.Suspected || !a.Traced || a.DurationMs != 5 {
		t.Errorf("known test %+v", a)
	}
	if n := s.Tests["p.New#n"]; n == nil || !n.Suspected || n.Traced || n.LastCommit != "abc" {
		t.Errorf("new test %+v", n)
	}
	if s.Suspect([]string{"p.A#a"}, "abc") {
		t.Error("marking a suspected test again changed the store")
	}
}
