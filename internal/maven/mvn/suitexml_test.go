package mvn

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSuiteClasses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("testng.xml", `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE suite SYSTEM "https://testng.org/testng-1.0.dtd">
<suite name="all">
  <suite-files><suite-file path="more/nested.xml"/></suite-files>
  <test name="unit">
    <classes>
      <class name="a.FirstTest"/>
      <class name=" a.SecondTest ">
        <methods><include name="one"/></methods>
      </class>
    </classes>
  </test>
</suite>`)
	write("more/nested.xml", `<suite name="nested"><test name="t"><classes>
  <class name="b.NestedTest"/><class name="a.FirstTest"/>
</classes></test></suite>`)
	for _, c := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"nested suites first, as they come", []string{"testng.xml"}, []string{"b.NestedTest", "a.FirstTest", "a.SecondTest"}},
		{"a suite once", []string{"more/nested.xml", "more/nested.xml"}, []string{"b.NestedTest", "a.FirstTest"}},
		{"absolute path", []string{filepath.Join(dir, "more/nested.xml")}, []string{"b.NestedTest", "a.FirstTest"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := suiteClasses(dir, c.files)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	if _, err := suiteClasses(dir, []string{"missing.xml"}); err == nil {
		t.Error("a missing suite file is not an error")
	}
}
