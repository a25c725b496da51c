package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/gate/baseline"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

func TestClassify(t *testing.T) {
	cfg := Config{Root: "/p", ModuleDir: "/p/core"}
	run := func(name string, outcome launcher.Outcome) runOutcome {
		return runOutcome{run: name, orderFile: "/p/core/target/flaky/orders/" + name + ".txt", outcome: outcome, message: string(outcome) + " in " + name}
	}
	tests := []struct {
		name        string
		runs        []runOutcome
		wantFinding bool
		wantCase    bool
		wantFailing bool
		wantFlakes  int
	}{
		{"always passes", []runOutcome{run("surefire", "pass"), run("rerun 1", "pass")}, false, false, false, 0},
		{"skipped and passing", []runOutcome{run("surefire", "skipped"), run("rerun 1", "pass")}, false, false, false, 0},
		{"fails every run", []runOutcome{run("surefire", "fail"), run("rerun 1", "error")}, false, true, true, 0},
		{"flips", []runOutcome{run("surefire", "pass"), run("rerun 1", "fail"), run("rerun 2", "pass"), run("rerun 3", "crash")}, true, true, false, 2},
		{"not-run is no evidence", []runOutcome{run("surefire", "pass"), run("rerun 1", "not-run")}, false, false, false, 0},
		{"fails until a confirmation passes", []runOutcome{run("surefire", "fail"), run("rerun 1", "fail"), run("confirmation 1", "skipped"), run("confirmation 2", "pass")}, true, true, false, 2},
		{"fails every run but skipped", []runOutcome{run("surefire", "fail"), run("confirmation 1", "skipped")}, false, true, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c, failing := classify("p.ATest#m", tt.runs, []string{"p.BTest#b", "p.ATest#m"}, "/p/core/target/flaky/orders/o.txt", cfg)
			if (f != nil) != tt.wantFinding || (c != nil) != tt.wantCase || failing != tt.wantFailing {
				t.Fatalf("finding=%v case=%v failing=%v", f != nil, c != nil, failing)
			}
			if f != nil {
				if f.Kind != report.NOD || len(f.Evidence) != len(tt.runs) || f.Reproduce != "mvn -Pflaky test -pl core -am -Dtest=p.BTest,p.ATest -Dsurefire.failIfNoSpecifiedTests=false -Dflaky.testFailureIgnore=false -Dflaky.order=/p/core/target/flaky/orders/o.txt" {
					t.Errorf("finding %+v", f)
				}
			}
			if c != nil && len(c.Flaky) != tt.wantFlakes {
				t.Errorf("flaky entries %d, want %d", len(c.Flaky), tt.wantFlakes)
			}
			// One vocabulary: evidence says the run's outcome; Surefire gets <failure> only for fail.
			for i := 0; f != nil && i < len(f.Evidence); i++ {
				if got, want := f.Evidence[i].Outcome, string(tt.runs[i].outcome); got != want {
					t.Errorf("evidence %d outcome %q, want %q", i, got, want)
				}
				// Each run's evidence names the order it ran (a confirmation's is the order's beginning).
				if got, want := f.Evidence[i].OrderFile, tt.runs[i].orderFile; got != want {
					t.Errorf("evidence %d order file %q, want %q", i, got, want)
				}
			}
			if c != nil {
				problems := append(append([]surefire.Problem(nil), c.Flaky...), c.Reruns...)
				if c.Failed {
					problems = append(problems, c.Failure)
				}
				for _, p := range problems {
					wantError := !strings.HasPrefix(p.Message, "fail ")
					if p.Error != wantError {
						t.Errorf("%q: Surefire error=%v, want %v", p.Message, p.Error, wantError)
					}
				}
			}
			if c != nil && (c.Class != "p.ATest" || c.Name != "m") {
				t.Errorf("case names %s %s", c.Class, c.Name)
			}
		})
	}
}

// TestConfirmationRule checks which tests confirmFailing reruns: those that
// failed in every run so far, not only by timing out.
func TestConfirmationRule(t *testing.T) {
	runs := func(outcomes ...launcher.Outcome) []runOutcome {
		var out []runOutcome
		for _, o := range outcomes {
			out = append(out, runOutcome{outcome: o})
		}
		return out
	}
	tests := []struct {
		name          string
		runs          []runOutcome
		every, hanged bool
	}{
		{"no runs", nil, false, true},
		{"fails every run", runs(launcher.Fail, launcher.Error, launcher.Crash), true, false},
		{"passed once", runs(launcher.Fail, launcher.Pass, launcher.Fail), false, false},
		{"skipped is no evidence", runs(launcher.Skipped, launcher.Fail, launcher.NotRun), true, false},
		{"times out every run", runs(launcher.Timeout, launcher.Timeout), true, true},
		{"times out and fails", runs(launcher.Timeout, launcher.Fail), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := failsEveryRun(tt.runs); got != tt.every {
				t.Errorf("failsEveryRun = %v, want %v", got, tt.every)
			}
			if got := timedOutEveryRun(tt.runs); got != tt.hanged {
				t.Errorf("timedOutEveryRun = %v, want %v", got, tt.hanged)
			}
		})
	}
}

// TestClearerNeverCallsACutAnalysisClean checks that an accepted test is
// called possibly fixed only when the analyses that find its kind ran to
// completion and did not leave it unconfirmed, and a change's analysis
// judged it.
func TestClearerNeverCallsACutAnalysisClean(t *testing.T) {
	complete := &report.Coverage{BudgetMs: 60000}
	cut := &report.Coverage{BudgetMs: 120000, BudgetExhausted: true, Unconfirmed: []string{"p.A#u"}}
	ran := func(test string) bool { return test != "p.A#gone" }
	changed := &report.ChangeStats{Ref: "main", Affected: []report.AffectedTest{{Test: "p.A#v"}}}
	tests := []struct {
		name   string
		budget time.Duration
		stats  report.Stats
		a      baseline.Accepted
		want   string // a part of the reason; "" when cleared
	}{
		{"od complete", 0, report.Stats{Coverage: complete}, baseline.Accepted{Test: "p.A#v", Kind: report.ODVictim}, ""},
		{"od cut", 0, report.Stats{Coverage: cut}, baseline.Accepted{Test: "p.A#v", Kind: report.ODVictim}, "cut by its budget (2m0s)"},
		{"od unconfirmed", 0, report.Stats{Coverage: cut}, baseline.Accepted{Test: "p.A#u", Kind: report.NIO}, "before it was confirmed"},
		{"od off", -1, report.Stats{}, baseline.Accepted{Test: "p.A#v", Kind: report.ODBrittle}, "did not run"},
		{"not run", 0, report.Stats{Coverage: complete}, baseline.Accepted{Test: "p.A#gone", Kind: report.NOD}, "it did not run"},
		{"nod needs only the reruns", 0, report.Stats{Coverage: cut}, baseline.Accepted{Test: "p.A#v", Kind: report.NOD}, ""},
		{"api without chaos", 0, report.Stats{Coverage: complete}, baseline.Accepted{Test: "p.A#v", Kind: report.API}, "did not run"},
		{"api cut", 0, report.Stats{Chaos: &report.ChaosStats{BudgetMs: 1000, BudgetExhausted: true}}, baseline.Accepted{Test: "p.A#v", Kind: report.API}, "cut by its budget"},
		{"a change's analysis judged it", 0, report.Stats{Coverage: complete, Change: changed}, baseline.Accepted{Test: "p.A#v", Kind: report.ODVictim}, ""},
		{"a change cannot affect it", 0, report.Stats{Coverage: complete, Change: changed}, baseline.Accepted{Test: "p.B#w", Kind: report.ODVictim}, "the change since main cannot affect it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clearer(Config{Budget: tt.budget}, &report.Report{Stats: tt.stats}, ran)(tt.a)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("reason %q, want %q", got, tt.want)
			}
		})
	}
	if cuts := budgetCuts(report.Stats{Coverage: cut}); len(cuts) != 1 || !strings.Contains(cuts[0], "p.A#u") {
		t.Errorf("budget cuts %q", cuts)
	}
}

// Every run of verify cuts a hanging test at the test timeout (2 minutes
// unless told otherwise, by the flag or by the fork's -Dflaky.testTimeout),
// not at the whole run's timeout.
func TestLauncherOptionsCutHangingTests(t *testing.T) {
	ms := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		set    time.Duration
		forkMs *int64
		want   time.Duration
	}{
		{0, nil, DefaultTestTimeout},
		{30 * time.Second, nil, 30 * time.Second},
		{-1, nil, 0},
		{0, ms(5000), 5 * time.Second},
		{0, ms(0), 0},
		{30 * time.Second, ms(5000), 30 * time.Second},
		{-1, ms(5000), 0},
	} {
		rec := &surefire.ForkRecord{TestTimeoutMs: c.forkMs}
		if got := launcherOptions(Config{TestTimeout: c.set, Workers: 2}, rec); got.TestTimeout != c.want || got.Workers != 2 {
			t.Errorf("TestTimeout %s, fork %v: options %+v, want a test timeout of %s", c.set, c.forkMs, got, c.want)
		}
	}
}

// TestRunChecksBaselineAndReportDirFirst: a corrupt baseline, or a report
// directory that cannot be written, stops verify before it reruns anything
// (the fork's java does not exist: running it would fail otherwise).
func TestRunChecksBaselineAndReportDirFirst(t *testing.T) {
	record := fmt.Sprintf(`{"version": %d, "tests": [{"test": "p.ATest#a", "outcome": "pass"}]}`, surefire.ForkRecordVersion)
	pom := func(a, rest string) string {
		return "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>" + a + "</artifactId><version>1</version>" + rest + "</project>"
	}
	for _, tt := range []struct {
		name  string
		setup func(root string)
		want  string
	}{
		{"corrupt baseline", func(root string) {
			os.MkdirAll(filepath.Join(root, ".flaky"), 0o755)
			os.WriteFile(filepath.Join(root, ".flaky", "baseline.json"), []byte("{not json"), 0o644)
		}, "parsing baseline"},
		{"report dir not writable", func(root string) {
			// The reactor's pages go to the root's target/flaky: a file
			// there stands for a read-only or full disk (root may write
			// read-only directories).
			os.MkdirAll(filepath.Join(root, "target"), 0o755)
			os.WriteFile(filepath.Join(root, "target", "flaky"), nil, 0o444)
		}, "the report cannot be written"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			module := filepath.Join(root, "m")
			build := filepath.Join(module, "target")
			os.MkdirAll(filepath.Join(build, "flaky"), 0o755)
			os.WriteFile(filepath.Join(root, "pom.xml"), []byte(pom("root", "<packaging>pom</packaging><modules><module>m</module></modules>")), 0o644)
			os.WriteFile(filepath.Join(module, "pom.xml"), []byte(pom("m", "")), 0o644)
			os.WriteFile(filepath.Join(build, "flaky", "fork.json"), []byte(record), 0o644)
			tt.setup(root)
			_, err := Run(context.Background(), Config{ModuleDir: module, Root: root, BuildDir: build, Java: filepath.Join(root, "no-java")})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func TestUnaffected(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{{Test: "p.A#a", Kind: report.NOD}, {Test: "p.B#b", Kind: report.ODVictim}}}
	if got := unaffected(rep); got != nil || len(rep.Findings) != 2 {
		t.Errorf("a full run dropped %v", got)
	}
	rep.Stats.Change = &report.ChangeStats{Affected: []report.AffectedTest{{Test: "p.B#b"}}}
	if got := unaffected(rep); !slices.Equal(got, []string{"p.A#a"}) || len(rep.Findings) != 1 || rep.Findings[0].Test != "p.B#b" {
		t.Errorf("a change's run dropped %v, kept %v", got, rep.Findings)
	}
}

// TestDocsOnlyChangeStartsNoJVM checks that under a change touching only
// documentation verify reruns nothing: with no java to start, the build's
// own run is all the report holds, and the same build without the change
// does try to start one.
func TestDocsOnlyChangeStartsNoJVM(t *testing.T) {
	record := fmt.Sprintf(`{"version": %d, "tests": [{"test": "p.ATest#a", "outcome": "pass"}]}`, surefire.ForkRecordVersion)
	docs := &pipeline.ChangeOptions{Change: &change.Change{Ref: "main", Base: "b", Head: "h", Files: []string{"README.md"}, Other: []string{"README.md"}}}
	for _, tt := range []struct {
		name   string
		change *pipeline.ChangeOptions
		jvm    bool
	}{{"docs-only change", docs, false}, {"no change", nil, true}} {
		t.Run(tt.name, func(t *testing.T) {
			module := t.TempDir()
			build := filepath.Join(module, "target")
			os.MkdirAll(filepath.Join(build, "flaky"), 0o755)
			os.WriteFile(filepath.Join(module, "pom.xml"), []byte("<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>m</artifactId><version>1</version></project>"), 0o644)
			os.WriteFile(filepath.Join(build, "flaky", "fork.json"), []byte(record), 0o644)
			res, err := Run(context.Background(), Config{ModuleDir: module, BuildDir: build, Java: filepath.Join(module, "no-java"), Change: tt.change})
			switch {
			case tt.jvm && err == nil:
				t.Errorf("no JVM started: %d runs", res.Report.Runs)
			case !tt.jvm && err != nil:
				t.Fatalf("a JVM started: %v", err)
			case !tt.jvm && (res.Report.Runs != 1 || !res.Pass):
				t.Errorf("%d runs, pass %v; want the build's run alone, passing", res.Report.Runs, res.Pass)
			}
		})
	}
}
