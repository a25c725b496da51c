package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// scenario is one scripted change of testdata/evolve/<fixture>/scenarios.json.
type scenario struct {
	Name     string `json:"name"`
	What     string `json:"what"`
	Findings []struct {
		Test      string     `json:"test"`
		Kind      string     `json:"kind"`
		Polluters [][]string `json:"polluters"`
	} `json:"findings"`
	NothingAnalysed bool `json:"nothingAnalysed"`
}

// TestChangeMode writes a history onto the junit4 fixture with git and
// analyses scripted changes (testdata/evolve/junit4) with `flaky detect
// --since main`: a change to the README only is "nothing to analyse"
// without building the module or starting a JVM; a behaviour-preserving
// refactor of a test class gives no finding; a new test that leaves state
// behind that an existing test reads makes that test its victim, found
// as such; a new test that reads the state an existing test leaves behind
// is found, exactly it, with that polluter (the fixture's own flaky tests
// are not judged), and the same commit analysed twice gives the same
// findings, seed and exit status.
func TestChangeMode(t *testing.T) {
	needsTools(t)
	dir, commit := evolving(t, false)
	bin := flakyBin(t)
	// detect analyses the change and checks its findings are the scenario's.
	detect := func(s scenario) (*report.Report, string, int) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "detect", "--module", dir, "--since", "main", "--budget", "3m", "--no-state", "--no-invariants")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		code := exitCode(err)
		if want := min(len(s.Findings), 1); code != want {
			t.Fatalf("%s: flaky detect --since main exited %d, want %d: %v\n%s%s", s.Name, code, want, err, stdout.String(), stderr.String())
		}
		t.Logf("%s:\n%s(%s)", s.Name, stdout.String(), time.Since(start).Round(100*time.Millisecond))
		rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Stats.Change == nil {
			t.Fatalf("%s: report.json has no change section", s.Name)
		}
		if got, want := findingsOf(rep.Findings), s.want(); !slices.Equal(got, want) {
			t.Errorf("%s (%s): findings %q, want %q", s.Name, s.What, got, want)
		}
		return rep, stdout.String(), code
	}

	// (f) Documentation only: nothing to analyse, no build, no JVM.
	rep, out, _ := detect(commit("f-docs"))
	if want := "nothing to analyse: only documentation changed"; rep.Stats.Change.Summary != want || !strings.Contains(out, want) {
		t.Errorf("a README change: summary %q, want %q", rep.Stats.Change.Summary, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "target", "classes")); err == nil {
		t.Error("a README change built the module")
	}

	// (d) A refactor of a test class: its tests are judged, none is flaky.
	rep, _, _ = detect(commit("d-test-refactor"))
	for _, a := range rep.Stats.Change.Affected {
		if !strings.HasPrefix(a.Test, "fixture.junit4.ChecksumTest#") {
			t.Errorf("a refactor of ChecksumTest affects %s (%v)", a.Test, a.Reasons)
		}
	}

	// (b) A new polluter of an existing test: the test reading what it
	// writes is judged for that dependence only.
	detect(commit("b-new-polluter"))

	// (a) A new victim of an existing polluter, found the same way twice.
	s := commit("a-new-victim")
	first, out, code := detect(s)
	if !strings.Contains(out, "affected tests of 25") || !strings.Contains(out, "because: BasketTest changed") {
		t.Errorf("the console does not say what was analysed")
	}
	second, _, again := detect(s)
	a, b := pipelineFindings(first), pipelineFindings(second)
	if !slices.Equal(a, b) || first.Stats.Coverage.Seed != second.Stats.Coverage.Seed || code != again {
		t.Errorf("the same commit twice: %q (seed %d, exit %d), then %q (seed %d, exit %d)", a, first.Stats.Coverage.Seed, code, b, second.Stats.Coverage.Seed, again)
	}
}

// TestVerifySince runs `mvn -Pflaky verify -Dflaky.since=main` on scripted
// changes: a README change judges nothing and passes the gate; a new
// victim of an existing polluter fails it with exactly that finding (the
// fixture's own flaky tests, the NOD one included, are not judged).
func TestVerifySince(t *testing.T) {
	needsTools(t)
	dir, commit := evolving(t, true)
	for _, name := range []string{"f-docs", "a-new-victim"} {
		s := commit(name)
		out, code := mvnRun(t, dir, "-Pflaky", "verify", "-Dflaky.since=main", "-Dflaky.budget=3m")
		if want := min(len(s.Findings), 1); code != want {
			t.Fatalf("%s: mvn -Pflaky verify -Dflaky.since=main exited %d, want %d:\n%s", name, code, want, tail(out))
		}
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "[flaky]") {
				lines = append(lines, l)
			}
		}
		t.Logf("%s:\n%s", name, strings.Join(lines, "\n"))
		rep, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := findingsOf(rep.Findings), s.want(); !slices.Equal(got, want) || rep.Stats.Change == nil {
			t.Errorf("%s: findings %q, want %q; change %+v\n%s", name, got, want, rep.Stats.Change, tail(out))
		}
		if s.NothingAnalysed && !strings.Contains(out, "nothing to analyse: only documentation changed") {
			t.Errorf("%s: the build does not say that nothing was analysed:\n%s", name, tail(out))
		}
	}
}

// evolving copies the fixture of testdata/evolve/junit4 into a git
// repository (with the flaky profile when profile is set), commits it as
// main and returns its directory and commit, which lays a scenario's files
// over main on a branch of its own, commits them and returns the scenario.
func evolving(t *testing.T, profile bool) (string, func(name string) scenario) {
	t.Helper()
	evolve := filepath.Join(repoRoot(t), "testdata", "evolve", "junit4")
	data, err := os.ReadFile(filepath.Join(evolve, "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Fixture   string     `json:"fixture"`
		Scenarios []scenario `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &plan); err != nil {
		t.Fatal(err)
	}
	byName := map[string]scenario{}
	for _, s := range plan.Scenarios {
		byName[s.Name] = s
	}
	dir := copyFixture(t, plan.Fixture)
	if profile {
		flakyInit(t, dir)
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
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	return dir, func(name string) scenario {
		t.Helper()
		s, ok := byName[name]
		if !ok {
			t.Fatalf("no scenario %s in %s", name, evolve)
		}
		git("checkout", "-q", "-B", name, "main")
		src := filepath.Join(evolve, name)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", s.What)
		return s
	}
}

// findingsOf renders findings as "kind test polluters=[...]", sorted.
func findingsOf(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s polluters=%s", f.Kind, f.Test, groupSet(f.Polluters)))
	}
	slices.Sort(out)
	return out
}

// want renders a scenario's findings as findingsOf does.
func (s scenario) want() []string {
	var out []string
	for _, f := range s.Findings {
		out = append(out, fmt.Sprintf("%s %s polluters=%s", f.Kind, f.Test, groupSet(f.Polluters)))
	}
	slices.Sort(out)
	return out
}
