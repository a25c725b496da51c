package publish

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const pom = `<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>%s</artifactId><version>1</version>%s</project>`

func TestModuleAndReactor(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "pom.xml"), strings.Replace(strings.Replace(pom, "%s", "root", 1), "%s", "<packaging>pom</packaging><modules><module>core</module><module>web</module></modules>", 1))
	for _, m := range []string{"core", "web"} {
		writeFile(t, filepath.Join(root, m, "pom.xml"), strings.Replace(strings.Replace(pom, "%s", m, 1), "%s", "", 1))
	}
	writeFile(t, filepath.Join(root, "core", "src", "test", "java", "p", "CartTest.java"), "package p;\n\nclass CartTest {\n\n    @Test\n    void total() {}\n}\n")
	web := &report.Report{Module: "web", Stats: report.Stats{Tests: 2}}
	if err := report.Write(filepath.Join(root, "web", "target", "flaky", "report.json"), web); err != nil {
		t.Fatal(err)
	}
	core := &report.Report{Module: "core", Findings: []report.Finding{{Test: "p.CartTest#total", Kind: report.NOD, Message: "boom"}}}
	var ci strings.Builder
	summaryFile := filepath.Join(t.TempDir(), "job.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summaryFile}
	written, err := Module(context.Background(), core, Options{
		Root: root, ModuleDir: filepath.Join(root, "core"), FlakyDir: filepath.Join(root, "core", "target", "flaky"), Module: "core",
		Version: "test", CI: &ci, Getenv: func(k string) string { return env[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, w := range written {
		r, _ := filepath.Rel(root, w)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{
		"core/target/flaky/report.json", "core/target/flaky/index.html", "core/target/flaky/summary.md", "core/target/flaky/flaky.sarif",
		"target/flaky/index.html", "target/flaky/summary.md", "target/flaky/flaky.sarif",
	}
	if strings.Join(rel, " ") != strings.Join(want, " ") {
		t.Errorf("wrote %v, want %v", rel, want)
	}
	page, err := os.ReadFile(filepath.Join(root, "target", "flaky", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`data-module="core"`, `<option value="web">web</option>`, `href="../../core/src/test/java/p/CartTest.java"`} {
		if !strings.Contains(string(page), w) {
			t.Errorf("reactor page lacks %q", w)
		}
	}
	if got := ci.String(); !strings.HasPrefix(got, "::error file=core/src/test/java/p/CartTest.java,line=5,") {
		t.Errorf("annotation %q", got)
	}
	if data, err := os.ReadFile(summaryFile); err != nil || !strings.Contains(string(data), "p.CartTest#total") {
		t.Errorf("job summary %q (%v)", data, err)
	}
	// Leftover temporary files would mean a write was not atomic.
	entries, _ := os.ReadDir(filepath.Join(root, "core", "target", "flaky"))
	if len(entries) != 4 {
		t.Errorf("core/target/flaky holds %d entries, want the 4 reports", len(entries))
	}
}

func TestParseFormat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Format
		ok   bool
	}{{"html", HTML, true}, {"MD", Markdown, true}, {" sarif ", SARIF, true}, {"json", JSON, true}, {"pdf", "", false}} {
		got, err := ParseFormat(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseFormat(%q) = %q, %v", tt.in, got, err)
		}
	}
}

// TestHugeReportPagesBounded: a report with thousands of findings, huge
// messages and many runs yields pages of bounded size that say what they
// leave out, while report.json keeps everything.
func TestHugeReportPagesBounded(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pom.xml"), strings.Replace(strings.Replace(pom, "%s", "m", 1), "%s", "", 1))
	huge := strings.Repeat("x", 64<<10)
	rep := &report.Report{Module: "m"}
	for i := 0; i < 3000; i++ {
		f := report.Finding{Test: fmt.Sprintf("p.T#t%04d", i), Kind: report.NOD, Message: "short"}
		if i < 5 {
			f.Message = huge
			for j := 0; j < 50; j++ {
				f.Evidence = append(f.Evidence, report.Evidence{Run: fmt.Sprintf("rerun %d", j), Outcome: "fail", Message: huge})
			}
		}
		rep.Findings = append(rep.Findings, f)
	}
	flakyDir := filepath.Join(dir, "target", "flaky")
	if _, err := Module(context.Background(), rep, Options{Root: dir, ModuleDir: dir, FlakyDir: flakyDir, Module: "m", Version: "test", Java: "no-java"}); err != nil {
		t.Fatal(err)
	}
	full, err := report.Read(filepath.Join(flakyDir, "report.json"))
	if err != nil || len(full.Findings) != 3000 || len(full.Findings[0].Message) != 64<<10 || len(full.Findings[0].Evidence) != 50 {
		t.Fatalf("report.json lost data: %v", err)
	}
	for _, name := range []string{"index.html", "summary.md", "flaky.sarif"} {
		data, err := os.ReadFile(filepath.Join(flakyDir, name))
		if err != nil {
			t.Fatal(err)
		}
		// 5 findings x 21 messages of at most 16 KiB, plus the rest.
		if len(data) > 4<<20 {
			t.Errorf("%s: %d MB", name, len(data)>>20)
		}
		if name != "flaky.sarif" && !strings.Contains(string(data), "the first 1000 of 3000 findings") {
			t.Errorf("%s does not say what it leaves out", name)
		}
	}
}
