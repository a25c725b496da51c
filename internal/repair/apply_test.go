package repair

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApply writes patches atomically with backups, and refuses to write
// anything when a file changed since the repair read it.
func TestApply(t *testing.T) {
	dir := t.TempDir()
	backups := filepath.Join(dir, "target", "flaky", "repair", "backup")
	a, b := filepath.Join("src", "A.java"), filepath.Join("src", "B.java")
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, a), []byte("a\r\n"), 0o600)
	os.WriteFile(filepath.Join(dir, b), []byte("b\n"), 0o644)
	res := &Result{
		Files:     map[string][]byte{a: []byte("a\r\nA\r\n"), b: []byte("b\nB\n")},
		Originals: map[string][]byte{a: []byte("a\r\n"), b: []byte("b\n")},
	}
	applied, err := Apply(dir, backups, res)
	if err != nil || len(applied) != 2 {
		t.Fatalf("applied %v, err %v", applied, err)
	}
	for rel, want := range res.Files {
		if got, _ := os.ReadFile(filepath.Join(dir, rel)); string(got) != string(want) {
			t.Errorf("%s: %q, want %q", rel, got, want)
		}
		if got, _ := os.ReadFile(filepath.Join(backups, rel)); string(got) != string(res.Originals[rel]) {
			t.Errorf("backup of %s: %q", rel, got)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, a)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}

	// The files now differ from the originals the result holds: nothing is written.
	res.Files[a] = []byte("other\n")
	if _, err := Apply(dir, backups, res); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("err %v, want a refusal", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, a)); string(got) != "a\r\nA\r\n" {
		t.Errorf("A.java written anyway: %q", got)
	}
}
