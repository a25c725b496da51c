package mvn

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SurefireClassOrder returns the order in which Surefire runs the test
// classes compiled into testClassesDir under runOrder (the class names of
// every .class file, nested classes included), and says which order that is.
// filesystem is the order Surefire's directory scan finds the files in: the
// directory's own order, depth first; alphabetical and reversealphabetical
// sort class names; hourly is one of those two by the hour of now. Orders
// that depend on earlier runs or a seed (random, failedfirst, balanced)
// cannot be told in advance: the filesystem order is returned, and the
// description says so.
func SurefireClassOrder(testClassesDir, runOrder string, now time.Time) ([]string, string, error) {
	var classes []string
	if err := scanClasses(testClassesDir, "", &classes); err != nil {
		return nil, "", err
	}
	kind := strings.ToLower(strings.TrimSpace(runOrder))
	if kind == "" {
		kind = "filesystem"
	}
	if kind == "hourly" {
		kind = "alphabetical"
		if now.Hour()%2 == 1 {
			kind = "reversealphabetical"
		}
		return sortClasses(classes, kind), fmt.Sprintf("Surefire's runOrder=hourly (%s at this hour)", kind), nil
	}
	switch kind {
	case "filesystem":
		return classes, "Surefire's runOrder=filesystem (the directory order of " + testClassesDir + ")", nil
	case "alphabetical", "reversealphabetical":
		return sortClasses(classes, kind), "Surefire's runOrder=" + kind, nil
	}
	return classes, fmt.Sprintf("the filesystem order: Surefire's runOrder=%s cannot be told before the run", runOrder), nil
}

// scanClasses appends the classes under dir/rel in the order the directory
// lists them, descending into a subdirectory where it is listed, as
// Surefire's directory scanner does.
func scanClasses(dir, rel string, out *[]string) error {
	f, err := os.Open(filepath.Join(dir, rel))
	if err != nil {
		if os.IsNotExist(err) && rel == "" {
			return nil
		}
		return fmt.Errorf("scan test classes: %w", err)
	}
	names, err := f.Readdirnames(-1) // directory order, unsorted
	f.Close()
	if err != nil {
		return fmt.Errorf("scan test classes: %w", err)
	}
	for _, name := range names {
		path := filepath.Join(rel, name)
		fi, err := os.Stat(filepath.Join(dir, path))
		if err != nil {
			return fmt.Errorf("scan test classes: %w", err)
		}
		switch {
		case fi.IsDir():
			if err := scanClasses(dir, path, out); err != nil {
				return err
			}
		case strings.HasSuffix(name, ".class"):
			*out = append(*out, strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(path, ".class")), "/", "."))
		}
	}
	return nil
}

func sortClasses(classes []string, kind string) []string {
	sorted := append([]string(nil), classes...)
	sort.Strings(sorted)
	if kind == "reversealphabetical" {
		for i, j := 0, len(sorted)-1; i < j; i, j = i+1, j-1 {
			sorted[i], sorted[j] = sorted[j], sorted[i]
		}
	}
	return sorted
}
