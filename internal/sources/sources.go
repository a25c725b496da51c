// Package sources finds the Java source file of a class in a module, so that
// reports can point at the file a finding is about.
package sources

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/flakyhq/flaky/mvn"
)

// Finder looks classes up in a module's source directories.
type Finder struct {
	root string   // paths are returned relative to it
	dirs []string // absolute source directories, test sources first
}

// New returns a Finder for the module in moduleDir whose paths are relative
// to root (the project root, where CI tools resolve paths). It reads the
// module's pom for its source directories and falls back to Maven's
// defaults when it cannot.
func New(root, moduleDir string) *Finder {
	test, main, err := mvn.SourceRoots(moduleDir)
	if err != nil {
		test, main = filepath.Join(moduleDir, "src", "test", "java"), filepath.Join(moduleDir, "src", "main", "java")
	}
	return &Finder{root: root, dirs: []string{test, main}}
}

// Class returns the source file of a class given by its binary name
// (pkg.Outer$Inner), relative to the root with forward slashes, or "" when
// the module has no such file. file is the source file name the class's
// debug information gives (Outer.java); when empty the top-level class's
// name is used.
func (f *Finder) Class(class, file string) string {
	pkg, simple := "", class
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		pkg, simple = class[:i], class[i+1:]
	}
	if file == "" {
		top, _, _ := strings.Cut(simple, "$")
		file = top + ".java"
	}
	if strings.ContainsAny(file, `/\`) || file == ".." {
		return ""
	}
	rel := path.Join(strings.ReplaceAll(pkg, ".", "/"), file)
	for _, dir := range f.dirs {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		if st, err := os.Stat(abs); err == nil && st.Mode().IsRegular() {
			if r, err := filepath.Rel(f.root, abs); err == nil && !strings.HasPrefix(r, "..") {
				return filepath.ToSlash(r)
			}
			return filepath.ToSlash(abs)
		}
	}
	return ""
}

// Test returns the source file of a test id's class (pkg.Class#method).
func (f *Finder) Test(id string) string {
	class, _, _ := strings.Cut(id, "#")
	return f.Class(class, "")
}
