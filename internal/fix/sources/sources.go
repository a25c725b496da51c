// Package sources finds the Java source file of a class in a module, so that
// reports can point at the file a finding is about.
package sources

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/maven/mvn"
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
	return f.Class(testid.ClassOf(id), "")
}

// Index locates classes and the methods of test ids: their source file
// and the line each method's declaration starts at.
type Index struct {
	finder *Finder
	lines  map[string]int // "pkg.Class#method" -> line
}

// Index reads the sources of the test ids' classes (pkg.Class#method) with
// the Java source editor, run by the java executable given, to learn their
// methods' lines. Without java, or when the editor fails, it knows files
// but no lines.
func (f *Finder) Index(ctx context.Context, java string, ids []string) *Index {
	ix := &Index{finder: f, lines: map[string]int{}}
	files := map[string][]string{} // source path -> classes in it
	for _, id := range ids {
		class := testid.ClassOf(id)
		if path := f.Class(class, ""); path != "" && !slices.Contains(files[path], class) {
			files[path] = append(files[path], class)
		}
	}
	if len(files) == 0 || java == "" {
		return ix
	}
	ed, err := editor.StartEditor(ctx, java)
	if err != nil {
		return ix
	}
	defer ed.Close()
	for path, classes := range files {
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(f.root, filepath.FromSlash(path))
		}
		src, err := os.ReadFile(abs)
		if err != nil {
			continue
		}
		for _, class := range classes {
			info, err := ed.Info(string(src), testid.ID{Class: class}.SimpleClass())
			if err != nil {
				continue
			}
			for _, m := range info.Methods {
				key := testid.New(class, m.Name).String()
				if _, seen := ix.lines[key]; !seen {
					ix.lines[key] = m.BeginLine
				}
			}
		}
	}
	return ix
}

// Locate returns the source file of a class (see Finder.Class) and, given a
// method, the line its declaration starts at (0 when unknown).
func (ix *Index) Locate(class, method, file string) (string, int) {
	path := ix.finder.Class(class, file)
	if path == "" || method == "" {
		return path, 0
	}
	// The test method of an invocation (m[2]) or a Jupiter display (m(int)).
	return path, ix.lines[testid.Parse(testid.Join(class, method)).Base().String()]
}
