package safewrite

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBackupNeverOverwrites(t *testing.T) {
	name := filepath.Join(t.TempDir(), "pom.xml.bak")
	for i, want := range []string{name, name + ".1", name + ".2"} {
		got, err := Backup(name, []byte{byte('a' + i)}, 0o600)
		if err != nil || got != want {
			t.Fatalf("backup %d: %q, %v; want %q", i, got, err, want)
		}
	}
	for i, p := range []string{name, name + ".1", name + ".2"} {
		if data, _ := os.ReadFile(p); string(data) != string(rune('a'+i)) {
			t.Errorf("%s holds %q", p, data)
		}
	}
}

func TestAtomicKeepsPermAndReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "A.java")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Atomic(path, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("stat: %v %v, want mode 0640", fi, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new" {
		t.Errorf("content %q", data)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestCheckDir creates a missing directory, leaves no file behind, and
// fails where files cannot be created (under a regular file; a read-only
// directory when not root).
func TestCheckDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "target", "flaky")
	if err := CheckDir(dir); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
	file := filepath.Join(t.TempDir(), "flaky")
	os.WriteFile(file, nil, 0o644)
	if err := CheckDir(file); err == nil {
		t.Error("a regular file passed")
	}
	if os.Geteuid() != 0 {
		ro := t.TempDir()
		os.Chmod(ro, 0o555)
		defer os.Chmod(ro, 0o755)
		if err := CheckDir(ro); err == nil {
			t.Error("a read-only directory passed")
		}
	}
}

// TestRemoveTemps: a temporary file CreateTemp made and nobody forgot (a
// write a signal cut short) is removed by RemoveTemps; Atomic forgets its
// own once it returns, so RemoveTemps later touches nothing of it.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateTemp(dir, ".A.java.tmp*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	path := filepath.Join(dir, "B.java")
	if err := Atomic(path, []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	temps.Lock()
	tracked := len(temps.names)
	temps.Unlock()
	if tracked != 1 {
		t.Errorf("%d temporary files tracked, want the one not forgotten", tracked)
	}
	RemoveTemps()
	if _, err := os.Stat(f.Name()); !os.IsNotExist(err) {
		t.Errorf("%s after RemoveTemps: %v, want it gone", f.Name(), err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "b" {
		t.Errorf("B.java after RemoveTemps: %q, %v", data, err)
	}
}
