package repair

import (
	"errors"
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
	applied, err := Apply(dir, backups, res, ApplyOptions{})
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
	if _, err := Apply(dir, backups, res, ApplyOptions{}); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("err %v, want a refusal", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, a)); string(got) != "a\r\nA\r\n" {
		t.Errorf("A.java written anyway: %q", got)
	}
}

// TestApplySymlink: a patched file that is a symbolic link to a file outside
// the module is refused without --follow-symlinks (nothing written, no
// backup); with it, the link's target is patched, the link kept and the
// backup holds the original bytes.
func TestApplySymlink(t *testing.T) {
	dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "Outside.java")
	backups := filepath.Join(dir, "target", "flaky", "repair", "backup")
	rel := filepath.Join("src", "A.java")
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(outside, []byte("original\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
	res := &Result{Files: map[string][]byte{rel: []byte("patched\n")}, Originals: map[string][]byte{rel: []byte("original\n")}}
	_, err := Apply(dir, backups, res, ApplyOptions{})
	var le *LinkError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "--follow-symlinks") {
		t.Fatalf("err %v, want a refusal naming --follow-symlinks", err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "original\n" {
		t.Errorf("the outside file was written: %q", got)
	}
	if _, err := os.Stat(backups); err == nil {
		t.Errorf("a refused apply left backups")
	}

	applied, err := Apply(dir, backups, res, ApplyOptions{FollowSymlinks: true})
	if err != nil || len(applied) != 1 {
		t.Fatalf("applied %v, err %v", applied, err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "patched\n" {
		t.Errorf("the link's target: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, rel)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got, _ := os.ReadFile(applied[0].Backup); string(got) != "original\n" {
		t.Errorf("backup %q, want the original", got)
	}

	// A link on the way (a linked directory) is refused the same way.
	dir2 := t.TempDir()
	os.Symlink(filepath.Dir(outside), filepath.Join(dir2, "src"))
	res.Originals[rel] = []byte("patched\n")
	if _, err := Apply(dir2, backups, res, ApplyOptions{}); !errors.As(err, &le) {
		t.Errorf("through a linked directory: %v, want a LinkError", err)
	}
}
