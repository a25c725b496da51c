package mvn

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/flakyhq/flaky/internal/base/saferead"
)

// suiteClasses returns the test classes the TestNG suite files (Surefire's
// suiteXmlFiles, relative to dir) name: every <class name="..."> in document
// order, following <suite-file path="..."> to nested suites, each class once.
// Packages, groups and method selections are not read.
func suiteClasses(dir string, files []string) ([]string, error) {
	var classes []string
	seen, read := map[string]bool{}, map[string]bool{}
	var walk func(path string) error
	walk = func(path string) error {
		if read[path] {
			return nil
		}
		read[path] = true
		data, err := saferead.ReadFile(path, maxPomSize, "a TestNG suite")
		if err != nil {
			return fmt.Errorf("TestNG suite: %w", err)
		}
		dec := xml.NewDecoder(bytes.NewReader(data))
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("TestNG suite %s: %w", path, err)
			}
			el, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			switch el.Name.Local {
			case "class":
				if name := attr(el, "name"); name != "" && !seen[name] {
					seen[name] = true
					classes = append(classes, name)
				}
			case "suite-file":
				if p := attr(el, "path"); p != "" {
					if !filepath.IsAbs(p) {
						p = filepath.Join(filepath.Dir(path), p)
					}
					if err := walk(p); err != nil {
						return err
					}
				}
			}
		}
	}
	for _, file := range files {
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		if err := walk(file); err != nil {
			return nil, err
		}
	}
	return classes, nil
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

// classFilePattern is the Surefire include pattern that matches exactly the
// class file of className.
func classFilePattern(className string) string {
	return strings.ReplaceAll(className, ".", "/") + ".class"
}
