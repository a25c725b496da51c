package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// TestChangeMode writes a history onto the evolve fixture with git and
// analyses each scripted change with `flaky detect --since main`: a
// change to the README only is "nothing to analyse" without building the
// module or starting a JVM; a behaviour-preserving refactor of a test
// class gives no finding; a new test that reads the state an existing test
// leaves behind is found, exactly it, with that polluter, and the same
// commit analysed twice gives the same findings, seed and exit status.
func TestChangeMode(t *testing.T) {
	needsTools(t)
	dir := copyFixture(t, "evolve")
	changes := filepath.Join(t.TempDir(), "changes")
	if err := os.Rename(filepath.Join(dir, "changes"), changes); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("target/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=flaky", "-c", "user.email=flaky@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit := func(branch string, files map[string]string) {
		t.Helper()
		git("checkout", "-q", "-B", branch, "main")
		for name, from := range files {
			data, err := os.ReadFile(from)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-q", "-m", branch)
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	bin := flakyBin(t)
	detect := func(want int) (*report.Report, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "detect", "--module", dir, "--since", "main", "--budget", "3m", "--no-invariants")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Run(); exitCode(err) != want {
			t.Fatalf("flaky detect --since main exited %d, want %d: %v\n%s%s", exitCode(err), want, err, stdout.String(), stderr.String())
		}
		t.Logf("%s\n(%s)", stdout.String(), time.Since(start).Round(100*time.Millisecond))
		rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Stats.Change == nil {
			t.Fatalf("report.json has no change section:\n%s", stdout.String())
		}
		return rep, stdout.String()
	}
	const test = "src/test/java/fixture/evolve/"

	// (f) Documentation only: nothing to analyse, no build, no JVM.
	readme := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(readme, []byte("# evolve\n\nReworded.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commit("docs", map[string]string{"README.md": readme})
	rep, out := detect(0)
	if want := "nothing to analyse: only documentation changed"; rep.Stats.Change.Summary != want || !strings.Contains(out, want) {
		t.Errorf("a README change: summary %q, want %q", rep.Stats.Change.Summary, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "target", "classes")); err == nil {
		t.Error("a README change built the module")
	}

	// (d) A refactor of a test class: its tests are judged, none is flaky.
	commit("refactor", map[string]string{test + "MathTest.java": filepath.Join(changes, "MathTest.java")})
	rep, _ = detect(0)
	if len(rep.Findings) != 0 {
		t.Errorf("a refactor of MathTest: findings %q, want none", pipelineFindings(rep))
	}
	if got := affected(rep); !slices.Equal(got, []string{"fixture.evolve.MathTest#adds", "fixture.evolve.MathTest#multiplies"}) {
		t.Errorf("a refactor of MathTest affects %v", got)
	}

	// (a) A new victim of an existing polluter, found the same way twice.
	commit("victim", map[string]string{test + "BootTest.java": filepath.Join(changes, "BootTest.java")})
	first, out := detect(1)
	want := []string{"od-victim fixture.evolve.BootTest#startsSafe polluters=[fixture.evolve.ConfigTest#switchesToFast] setters=[] cleaners=[] state=static-field fixture.evolve.Settings.mode"}
	if got := pipelineFindings(first); !slices.Equal(got, want) {
		t.Errorf("a new victim: findings %q, want %q", got, want)
	}
	if !strings.Contains(out, "1 affected test of 5, 2 pairs, because: BootTest changed") {
		t.Errorf("the console does not say what was analysed")
	}
	second, _ := detect(1)
	if a, b := pipelineFindings(first), pipelineFindings(second); !slices.Equal(a, b) || first.Stats.Coverage.Seed != second.Stats.Coverage.Seed {
		t.Errorf("the same commit twice: %q (seed %d), then %q (seed %d)", a, first.Stats.Coverage.Seed, b, second.Stats.Coverage.Seed)
	}
}

// affected returns the tests a change's report judged.
func affected(r *report.Report) []string {
	var out []string
	for _, a := range r.Stats.Change.Affected {
		out = append(out, a.Test)
	}
	return out
}
