package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/chaos"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/surefire"
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
		{value: "single:TIME+random_max", mode: chaos.Single, strategies: "RANDOM_MAX+TIME_INCREMENT+TIME_ROUNDING+TIME_FAST+TIME_SLOW"},
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

func TestAddChaosStats(t *testing.T) {
	a := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX"}, Runs: 3, FailUnperturbed: []string{"p.A#a"}, DurationMs: 10,
		Tests: 4, PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 4, Failures: 1, Findings: 1, JVMs: 1}}}
	if got := addChaosStats(nil, a); got != a {
		t.Errorf("first stats not taken as they are")
	}
	b := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX", "LOCALE"}, Runs: 2, BudgetExhausted: true, Unconfirmed: []string{"p.B#b"}, DurationMs: 5,
		Tests: 2, Skipped: []string{"LOCALE"}, Machinery: []string{"p.B#c under RANDOM_MAX: why"},
		PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 1, NotRun: 1, Failures: 1, JVMs: 2}, {Name: "LOCALE", Group: "LOCALE", Tests: 1}}}
	got := addChaosStats(a, b)
	want := &report.ChaosStats{Mode: "combined", Strategies: []string{"RANDOM_MAX", "LOCALE"}, Runs: 5, BudgetExhausted: true,
		FailUnperturbed: []string{"p.A#a"}, Unconfirmed: []string{"p.B#b"}, DurationMs: 15,
		Tests: 6, Skipped: []string{"LOCALE"}, Machinery: []string{"p.B#c under RANDOM_MAX: why"},
		PerStrategy: []report.StrategyStats{{Name: "combined", Tests: 5, NotRun: 1, Failures: 2, Findings: 1, JVMs: 3}, {Name: "LOCALE", Group: "LOCALE", Tests: 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("addChaosStats = %+v, want %+v", got, want)
	}
}
