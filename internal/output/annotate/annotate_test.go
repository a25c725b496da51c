package annotate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func TestGitHub(t *testing.T) {
	rep := &report.Report{
		Module: "core",
		Findings: []report.Finding{
			{Test: "com.acme.CartTest#total", Kind: report.ODVictim, Polluters: [][]string{{"com.acme.PriceTest#discount"}},
				Message: "expected:<3>, but: was 4\nstack", Reproduce: "mvn -Pflaky test -Dflaky.order=a,b"},
			{Test: "com.acme.Other#x", Kind: report.NOD, Message: "100% broken\r\nnext"},
		},
		Gate: &report.Gate{Enabled: true, New: []string{"com.acme.CartTest#total od-victim"}, Known: []string{"com.acme.Other#x nod"}},
	}
	locate := func(class, method, file string) (string, int) {
		if class == "com.acme.CartTest" {
			return "core/src/test/java/com/acme/CartTest.java", 12
		}
		return "", 0
	}
	var b strings.Builder
	GitHub(&b, []Module{{Name: "core", Report: rep, Locate: locate}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one command per finding:\n%s", len(lines), b.String())
	}
	want := []string{
		"::error file=core/src/test/java/com/acme/CartTest.java,line=12,title=flaky%3A com.acme.CartTest#total (order-dependent victim)::" +
			"fails after com.acme.PriceTest#discount%0Aexpected:<3>, but: was 4%0Areproduce: mvn -Pflaky test -Dflaky.order=a,b",
		"::warning title=flaky%3A com.acme.Other#x (non-order-dependent flaky test)::passes and fails in the same order%0A100%25 broken (accepted in the baseline)",
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

func TestAppendStepSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	env := func(k string) string {
		if k == "GITHUB_STEP_SUMMARY" {
			return path
		}
		return ""
	}
	for _, md := range []string{"## one", "## two"} {
		if err := AppendStepSummary(env, md); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "## one\n## two\n" {
		t.Errorf("summary file %q", data)
	}
	if err := AppendStepSummary(func(string) string { return "" }, "x"); err != nil {
		t.Errorf("without GITHUB_STEP_SUMMARY: %v", err)
	}
}
