package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func TestAddChaosStats(t *testing.T) {
	a := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX"}, Runs: 3, FailUnperturbed: []string{"p.A#a"}, DurationMs: 10,
		Tests: 4, PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 4, Failures: 1, Findings: 1, JVMs: 1, DurationMs: 300}}}
	if got := addChaosStats(nil, a); got != a {
		t.Errorf("first stats not taken as they are")
	}
	b := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX", "LOCALE"}, Runs: 2, BudgetExhausted: true, Unconfirmed: []string{"p.B#b"}, Failing: []string{"p.C#c: fails in every unperturbed run (6 of 6)"}, DurationMs: 5,
		Tests: 2, Skipped: []string{"LOCALE"}, Machinery: []string{"p.B#c under RANDOM_MAX: why"},
		PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 1, NotRun: 1, Failures: 1, JVMs: 2, DurationMs: 200}, {Name: "LOCALE", Group: "LOCALE", Tests: 1}}}
	got := addChaosStats(a, b)
	want := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX", "LOCALE"}, Runs: 5, BudgetExhausted: true,
		FailUnperturbed: []string{"p.A#a"}, Unconfirmed: []string{"p.B#b"}, Failing: []string{"p.C#c: fails in every unperturbed run (6 of 6)"}, DurationMs: 15,
		Tests: 6, Skipped: []string{"LOCALE"}, Machinery: []string{"p.B#c under RANDOM_MAX: why"},
		PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 5, NotRun: 1, Failures: 2, Findings: 1, JVMs: 3, DurationMs: 500}, {Name: "LOCALE", Group: "LOCALE", Tests: 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("addChaosStats = %+v, want %+v", got, want)
	}
}

// TestSpreadVerdict scans real class directories with the source editor:
// the chaos fixture's server binds port 0, so its combined run may spread;
// a class that binds a fixed port keeps it in one JVM, and the verdict
// names the call; an unreadable scan keeps it there too.
func TestSpreadVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("runs javac and a JVM: skipped with -short")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not on PATH")
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Fatal("javac not on PATH")
	}
	dir := t.TempDir()
	compile := func(name string, sources ...string) string {
		out := filepath.Join(dir, name)
		if b, err := exec.Command(javac, append([]string{"-g", "-d", out}, sources...)...).CombinedOutput(); err != nil {
			t.Fatalf("javac: %v\n%s", err, b)
		}
		return out
	}
	server := filepath.Join("..", "..", "testdata", "chaos", "src", "main", "java", "fixture", "chaos", "GreetingServer.java")
	fixed := filepath.Join(dir, "Admin.java")
	os.WriteFile(fixed, []byte("package p;\npublic class Admin {\n  void serve() throws Exception {\n    new java.net.ServerSocket(8099).close();\n  }\n}\n"), 0o644)
	tests := []struct {
		name string
		dirs []string
		want string
	}{
		{"port 0 only", []string{compile("ephemeral", server), filepath.Join(dir, "missing")}, ""},
		{"a fixed port", []string{compile("ephemeral", server), compile("fixed", fixed)},
			"p.Admin.serve (line 4) binds port 8099 with java.net.ServerSocket#<init>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := <-spreadVerdict(java, tt.dirs); got != tt.want {
				t.Errorf("verdict %q, want %q", got, tt.want)
			}
		})
	}
	if got := <-spreadVerdict(filepath.Join(dir, "no-java"), nil); got == "" {
		t.Error("a scan that could not run let the combined run spread")
	}
}
