package repair

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// sources indexes a module's Java sources by their package path
// ("fixture/repair/IdTest.java" -> "src/test/java/fixture/repair/IdTest.java").
type sources struct {
	dir   string
	byPkg map[string]string
	files map[string][]byte // rel path -> content, as patched so far in this run
}

// indexSources walks the module (not its build output) for .java files.
func indexSources(dir string) (*sources, error) {
	s := &sources{dir: dir, byPkg: map[string]string{}, files: map[string][]byte{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (d.Name() == "target" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".java") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		for _, root := range []string{"src/test/java/", "src/main/java/"} {
			if r := filepath.ToSlash(rel); strings.HasPrefix(r, root) {
				if _, seen := s.byPkg[r[len(root):]]; !seen {
					s.byPkg[r[len(root):]] = rel
				}
				return nil
			}
		}
		if key := packagePath(p); key != "" {
			if _, seen := s.byPkg[key]; !seen {
				s.byPkg[key] = rel
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index the module's sources: %w", err)
	}
	return s, nil
}

// packagePath is the last two path elements of p: a fallback key for
// sources outside Maven's default source roots.
func packagePath(p string) string {
	return filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p)))
}

// classFile returns the source file of a class (binary name, nested classes
// after '$') and the class's name within the file (Outer.Inner).
func (s *sources) classFile(class string) (rel, inFile string, err error) {
	top, nested, _ := strings.Cut(class, "$")
	key := strings.ReplaceAll(top, ".", "/") + ".java"
	rel, ok := s.byPkg[key]
	if !ok {
		rel, ok = s.byPkg[packagePath(key)]
	}
	if !ok {
		return "", "", fmt.Errorf("no source file for %s in %s", class, s.dir)
	}
	simple := top[strings.LastIndexByte(top, '.')+1:]
	if nested != "" {
		simple += "." + strings.ReplaceAll(nested, "$", ".")
	}
	return rel, simple, nil
}

// read returns a source file's content as patched so far in this run.
func (s *sources) read(rel string) (string, error) {
	if data, ok := s.files[rel]; ok {
		return string(data), nil
	}
	data, err := os.ReadFile(filepath.Join(s.dir, rel))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	return string(data), nil
}
