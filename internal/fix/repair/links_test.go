package repair

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckOutputDir: javac's output directory is refused when it is
// outside the module or when it, a directory on the way or anything under
// it is a symbolic link.
func TestCheckOutputDir(t *testing.T) {
	mod, sandbox, outside := t.TempDir(), t.TempDir(), t.TempDir()
	classes := filepath.Join("target", "test-classes")
	os.MkdirAll(filepath.Join(sandbox, classes, "p"), 0o755)
	if err := checkOutputDir(mod, sandbox, filepath.Join(mod, classes)); err != nil {
		t.Fatalf("a plain directory: %v", err)
	}
	if err := checkOutputDir(mod, sandbox, filepath.Join(outside, "classes")); err == nil {
		t.Errorf("a class directory outside the module was accepted")
	}
	os.Symlink(outside, filepath.Join(sandbox, classes, "p", "q"))
	var le *LinkError
	if err := checkOutputDir(mod, sandbox, filepath.Join(mod, classes)); !errors.As(err, &le) || le.Path != filepath.Join(classes, "p", "q") {
		t.Errorf("a linked package directory: %v", err)
	}
	os.RemoveAll(filepath.Join(sandbox, "target"))
	os.Symlink(outside, filepath.Join(sandbox, "target"))
	if err := checkOutputDir(mod, sandbox, filepath.Join(mod, classes)); !errors.As(err, &le) || le.Path != "target" {
		t.Errorf("a linked target directory: %v", err)
	}
}
