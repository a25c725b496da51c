package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/gate/knowledge"
	"github.com/flakyhq/flaky/internal/report"
)

// TestKnowledge runs `flaky detect --knowledge DIR` on the dataflow fixture
// (data dependencies only, with the reversed reference run that shows
// RegistryTest's polluter): the store holds the victim's polluter, the
// root it reads, the classes its code ran and a hash of every class of the
// module. A corrupted store then gives a full analysis again, with a note,
// the same findings and a new store.
func TestKnowledge(t *testing.T) {
	t.Parallel()
	p := fixture(t, "dataflow")
	dir := filepath.Join(t.TempDir(), "knowledge")
	const victim, polluter = "fixture.dataflow.RegistryTest#aStartsEmpty", "fixture.dataflow.RegistryTest#bRegisters"
	detect := func() (string, *report.Report) {
		t.Helper()
		cmd := exec.Command(flakyBin(t), "detect", "--module", p.dir, "--seed", "1", "--strategy", "dataflow", "--dataflow-reverse",
			"--no-state", "--no-invariants", "--knowledge", dir)
		out, err := cmd.CombinedOutput()
		if exitCode(err) != 1 {
			t.Fatalf("flaky detect exited %d, want 1 (findings): %v\n%s", exitCode(err), err, out)
		}
		rep, err := report.Read(filepath.Join(p.dir, "target", "flaky", "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(out), rep
	}
	check := func(out string) {
		t.Helper()
		if want := "knowledge: 15 tests recorded in " + dir; !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
		s, note, err := knowledge.Load(dir)
		if s == nil || err != nil {
			t.Fatalf("no store: %s %v", note, err)
		}
		v := s.Tests[victim]
		if v == nil || len(s.Tests) != 15 {
			t.Fatalf("%d tests recorded, %s: %+v", len(s.Tests), victim, v)
		}
		if !slices.ContainsFunc(v.Findings, func(f knowledge.Finding) bool {
			return f.Kind == report.ODVictim && slices.ContainsFunc(f.Polluters, func(g []string) bool { return slices.Equal(g, []string{polluter}) })
		}) {
			t.Errorf("%s: findings %+v, want od-victim of %s", victim, v.Findings, polluter)
		}
		if !v.Traced || !slices.Contains(v.Reads, knowledge.Root{Root: "fixture.dataflow.Registry.ENTRIES", Kind: "static-field"}) {
			t.Errorf("%s: reads %+v, want fixture.dataflow.Registry.ENTRIES", victim, v.Reads)
		}
		if want := []string{"fixture.dataflow.Registry", "fixture.dataflow.RegistryTest"}; !slices.Equal(v.Classes, want) {
			t.Errorf("%s: classes %v, want %v", victim, v.Classes, want)
		}
		if w := s.Tests[polluter]; w == nil || !slices.Contains(w.Writes, knowledge.Root{Root: "fixture.dataflow.Registry.ENTRIES", Kind: "static-field"}) {
			t.Errorf("%s: %+v, want a write of fixture.dataflow.Registry.ENTRIES", polluter, w)
		}
		for name, path := range map[string]string{
			"fixture.dataflow.Registry":     filepath.Join(p.dir, "target", "classes", "fixture", "dataflow", "Registry.class"),
			"fixture.dataflow.RegistryTest": filepath.Join(p.dir, "target", "test-classes", "fixture", "dataflow", "RegistryTest.class"),
		} {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(data); s.Classes[name] != hex.EncodeToString(sum[:]) {
				t.Errorf("hash of %s: %q, want the sha256 of %s", name, s.Classes[name], path)
			}
		}
		if v.DurationMs < 0 || v.Outcomes[knowledge.RunReference].Pass == 0 {
			t.Errorf("%s: duration %d, outcomes %+v", victim, v.DurationMs, v.Outcomes)
		}
	}
	out, first := detect()
	check(out)

	if err := os.WriteFile(filepath.Join(dir, knowledge.File), []byte(`{"format": 1, "tests": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, second := detect()
	if want := "knowledge at " + dir + " is corrupt ("; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	check(out)
	if got, want := pipelineFindings(second), pipelineFindings(first); !slices.Equal(got, want) {
		t.Errorf("findings after the corrupt store:\n%q\nwant\n%q", got, want)
	}
}
