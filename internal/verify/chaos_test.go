package verify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/pipeline"
)

func TestParseChaos(t *testing.T) {
	tests := []struct {
		value      string
		mode       chaos.Mode
		strategies string
		wantErr    string
	}{
		{value: "", mode: ""},
		{value: " off ", mode: ""},
		{value: "OFF", mode: ""},
		{value: "combined", mode: chaos.Combined},
		{value: "single", mode: chaos.Single},
		{value: "single:TIME+random_max", mode: chaos.Single, strategies: "RANDOM_MAX+TIME_INCREMENT+TIME_ROUNDING+TIME_SLOW"},
		{value: "combined:SLEEP_DECREASE+LOCALE", mode: chaos.Combined, strategies: "LOCALE+SLEEP_DECREASE"},
		{value: "combined:", mode: chaos.Combined},
		{value: "on", wantErr: "want off, combined or single"},
		{value: ":LOCALE", wantErr: "want off, combined or single"},
		{value: "single:NOPE", wantErr: `unknown strategy "NOPE"`},
	}
	for _, tt := range tests {
		got, err := ParseChaos(tt.value)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseChaos(%q) error = %v, want %q", tt.value, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Mode != tt.mode || chaos.Join(got.Strategies) != tt.strategies {
			t.Errorf("ParseChaos(%q) = %v %s, %v; want %v %s", tt.value, got.Mode, chaos.Join(got.Strategies), err, tt.mode, tt.strategies)
		}
	}
}

func TestClassRoots(t *testing.T) {
	module := t.TempDir()
	build := filepath.Join(module, "target")
	for _, d := range []string{"test-classes", "classes"} {
		if err := os.MkdirAll(filepath.Join(build, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rec := &surefire.ForkRecord{
		WorkingDirectory: module,
		Classpath: []string{
			filepath.Join(build, "test-classes"), filepath.Join(build, "classes"),
			filepath.Join(build, "lib.jar"), // not a directory
			"/repo/org/junit/junit.jar", "/elsewhere/classes",
		},
	}
	if got, want := classRoots(rec, build), []string{"target/test-classes", "target/classes"}; !slices.Equal(got, want) {
		t.Errorf("classRoots = %q, want %q", got, want)
	}
	rec = &surefire.ForkRecord{WorkingDirectory: "/w", TestClassesDirectory: "/x/test-classes"}
	if got, want := classRoots(rec, build), []string{"/x/test-classes"}; !slices.Equal(got, want) {
		t.Errorf("classRoots without class directories = %q, want %q", got, want)
	}
}

// TestPrintChaosRows checks the per-strategy and per-group rows of a fork's
// chaos summary: a group's row is told from a strategy of the same name.
func TestPrintChaosRows(t *testing.T) {
	locale, err := chaos.Parse("LOCALE")
	if err != nil {
		t.Fatal(err)
	}
	res := &pipeline.Result{Chaos: &chaos.Result{Mode: chaos.Combined, Strategies: locale, Coverage: []chaos.Coverage{
		{Run: string(chaos.Combined), Strategies: locale, Ran: 3, Failed: 1, Findings: 1, FailedTests: []string{"p.T#a"}},
		{Run: "LOCALE", Strategies: locale, Ran: 1, Failed: 1, Findings: 1, FailedTests: []string{"p.T#a"}},
	}}}
	var out strings.Builder
	printChaos(Config{Out: &out}, res)
	for _, row := range []string{
		"[flaky] chaos: combined             3 tests, 0 not run, 1 failures, 1 findings\n",
		"[flaky] chaos: LOCALE               1 tests, 0 not run, 1 failures, 1 findings\n",
		"[flaky] chaos: (all) LOCALE         1 tests, 0 not run, 1 failures, 0 findings\n", // no findings in res
	} {
		if strings.Count(out.String(), row) != 1 {
			t.Errorf("want the row once: %q\nin:\n%s", row, out.String())
		}
	}
}
