package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// flaky --version prints what flaky version does, and stops there.
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"--version", "detect", "--module", t.TempDir()}} {
		code, stdout, stderr := runApp(args...)
		if code != 0 || stdout != "flaky dev\n" || stderr != "" {
			t.Errorf("flaky %s: exit %d, stdout %q, stderr %q; want 0 and %q", strings.Join(args, " "), code, stdout, stderr, "flaky dev\n")
		}
	}
}

// flaky version --maven prints the version of the Maven artifacts alone,
// what make dist deploys the binaries as.
func TestVersionMaven(t *testing.T) {
	code, stdout, stderr := runApp("version", "--maven")
	if code != 0 || stdout != "0.0.0-dev\n" || stderr != "" {
		t.Errorf("flaky version --maven: exit %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, "0.0.0-dev\n")
	}
}

// The Makefile's build stamps the version and the commit: its go build
// command, run here as make would, gives a binary that names HEAD.
func TestMakeBuildStampsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds flaky: skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	plan, err := exec.Command("make", "-C", root, "-n", "--no-print-directory", "build").Output()
	if err != nil {
		t.Fatalf("make -n build: %v", err)
	}
	flags := regexp.MustCompile(`(?m)^go build -ldflags '([^']*)' -o bin/flaky \./cmd/flaky$`).FindSubmatch(plan)
	if flags == nil {
		t.Fatalf("make -n build has no go build -ldflags '...' line:\n%s", plan)
	}
	bin := filepath.Join(t.TempDir(), "flaky")
	build := exec.Command("go", "build", "-ldflags", string(flags[1]), "-o", bin, "./cmd/flaky")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("flaky --version: %v", err)
	}
	commit := strings.TrimSpace(string(head))[:12]
	want := regexp.MustCompile(`^flaky \S+ \(commit ` + commit + `, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[-+Z0-9:]*\)\n$`)
	if !want.Match(out) || strings.HasPrefix(string(out), "flaky dev ") {
		t.Errorf("flaky --version printed %q, want the version git describe gives, commit %s and its time", out, commit)
	}
}
