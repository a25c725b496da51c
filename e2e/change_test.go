package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/internal/gate/knowledge"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/internal/verify"
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
	// Fixed are tests flaky before the change that it fixes.
	Fixed           []string `json:"fixed"`
	NothingAnalysed bool     `json:"nothingAnalysed"`
}

// TestChangeMode writes a history onto the junit4 fixture with git, makes
// the knowledge of a full analysis of main, and analyses the scripted
// changes of testdata/evolve/junit4 with `flaky detect --since main`: a
// change to the README only is "nothing to analyse" without building the
// module or starting a JVM; a behaviour-preserving refactor of a test
// class gives no finding; a new test that leaves state behind that an
// existing test reads makes that test its victim; a new test that reads
// the state an existing test leaves behind is found, exactly it, with that
// polluter, and the same commit analysed twice gives the same findings,
// seed and exit status; a production change that makes an existing test a
// victim is found, and the known victim it also affects is told apart as
// known; a fix of a known victim reports it possibly fixed. With the
// knowledge corrupted, a change gets a full analysis and says why.
func TestChangeMode(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir, commit := evolving(t, false)
	bin := flakyBin(t)
	k := evolveKnowledge(t, dir)
	// detect analyses the change and checks its new findings are the scenario's.
	detect := func(s scenario, knowledgeDir string, more ...string) (*report.Report, string, int) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		// No --budget: the analysis sizes its own from the suite's run
		// measured on this machine (and grows it for its confirmations); a
		// fixed one can run out on a busy machine and drop findings.
		args := append([]string{"detect", "--module", dir, "--since", "main", "--knowledge", knowledgeDir, "--no-state", "--no-invariants"}, more...)
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		code := exitCode(err)
		t.Logf("%s:\n%s%s(%s)", s.Name, stdout.String(), stderr.String(), time.Since(start).Round(100*time.Millisecond))
		rep, rerr := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		if rep.Stats.Change == nil {
			t.Fatalf("%s: report.json has no change section", s.Name)
		}
		if want := min(len(rep.Findings), 1); code != want {
			t.Fatalf("%s: flaky detect --since main exited %d with %d findings: %v", s.Name, code, len(rep.Findings), err)
		}
		return rep, stdout.String(), code
	}
	check := func(s scenario) (*report.Report, string, int) {
		t.Helper()
		rep, out, code := detect(s, k)
		if got, want := newFindings(rep), s.want(); !slices.Equal(got, want) {
			t.Errorf("%s (%s): new findings %q, want %q", s.Name, s.What, got, want)
		}
		if got := rep.Stats.Change.PossiblyFixed; !slices.Equal(got, s.Fixed) {
			t.Errorf("%s (%s): possibly fixed %q, want %q", s.Name, s.What, got, s.Fixed)
		}
		return rep, out, code
	}

	// (f) Documentation only: nothing to analyse, no build, no JVM.
	if err := os.RemoveAll(filepath.Join(dir, "target", "classes")); err != nil {
		t.Fatal(err)
	}
	rep, out, _ := check(commit("f-docs"))
	if want := "nothing to analyse: only documentation changed"; rep.Stats.Change.Summary != want || !strings.Contains(out, want) {
		t.Errorf("a README change: summary %q, want %q", rep.Stats.Change.Summary, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "target", "classes")); err == nil {
		t.Error("a README change built the module")
	}

	// (d) A refactor of a test class: its tests are judged, none is flaky.
	rep, _, _ = check(commit("d-test-refactor"))
	for _, a := range rep.Stats.Change.Affected {
		if !strings.HasPrefix(a.Test, "fixture.junit4.ChecksumTest#") {
			t.Errorf("a refactor of ChecksumTest affects %s (%v)", a.Test, a.Reasons)
		}
	}

	// (b) A new polluter of an existing test: the test reading what it
	// writes is judged for that dependence only.
	check(commit("b-new-polluter"))

	// (c) A production change: the existing test it makes a victim is new;
	// the known victim that runs the changed class is still flaky, known.
	rep, _, _ = check(commit("c-production-change"))
	if want := []string{"fixture.junit4.InvoiceTest#totalUsesListPrices"}; !slices.Equal(rep.Stats.Change.Known, want) {
		t.Errorf("a production change: known %q, want %q", rep.Stats.Change.Known, want)
	}

	// (e) A fix of a known victim's polluter: possibly fixed, no finding.
	check(commit("e-fix"))

	// (g) A new test method in an existing class: only it is affected, not
	// the class's other tests.
	rep, _, _ = check(commit("g-new-test-method"))
	if got := affectedIDs(rep); !slices.Equal(got, []string{"fixture.junit4.SlugifierTest#keepsDigits"}) {
		t.Errorf("a new test method in SlugifierTest affects %q, want only itself", got)
	}

	// (a) A new victim of an existing polluter, found the same way twice.
	s := commit("a-new-victim")
	first, out, code := check(s)
	if !strings.Contains(out, "affected tests of 25") || !strings.Contains(out, "BasketTest changed") {
		t.Errorf("the console does not say what was analysed")
	}
	second, _, again := check(s)
	a, b := pipelineFindings(first), pipelineFindings(second)
	if !slices.Equal(a, b) || first.Stats.Coverage.Seed != second.Stats.Coverage.Seed || code != again {
		t.Errorf("the same commit twice: %q (seed %d, exit %d), then %q (seed %d, exit %d)", a, first.Stats.Coverage.Seed, code, b, second.Stats.Coverage.Seed, again)
	}

	// A corrupted knowledge store: a full analysis (of the data
	// dependencies, the cheapest) that says why, never a clean verdict it
	// did not earn.
	corrupt := t.TempDir()
	if err := os.WriteFile(filepath.Join(corrupt, knowledge.File), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, out, code = detect(s, corrupt, "--strategy", "dataflow")
	if !strings.Contains(out, "is corrupt") || !strings.Contains(out, "full analysis") || code != 1 || len(rep.Findings) <= len(s.Findings) {
		t.Errorf("with a corrupt knowledge store: exit %d, %d findings, summary %q", code, len(rep.Findings), rep.Stats.Change.Summary)
	}
	if st, _, err := knowledge.Load(corrupt); st == nil || err != nil {
		t.Errorf("the full analysis did not record the knowledge: %v", err)
	}
}

// evolveKnowledge makes the knowledge of a full analysis of dir's main
// (dataflow strategy: the data dependencies' reference run records every
// test's reads, writes and classes) in a folder of its own.
func evolveKnowledge(t *testing.T, dir string) string {
	t.Helper()
	k := t.TempDir()
	cmd := exec.Command(flakyBin(t), "detect", "--module", dir, "--knowledge", k, "--seed", "1", "--strategy", "dataflow", "--no-state", "--no-invariants")
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 1 {
		t.Fatalf("the full analysis of main exited %d, want 1 (the fixture's flaky tests): %v\n%s", code, err, out)
	}
	st, _, err := knowledge.Load(k)
	if st == nil || err != nil {
		t.Fatalf("no knowledge after the full analysis: %v\n%s", err, out)
	}
	if fs := st.Tests["fixture.junit4.InvoiceTest#totalUsesListPrices"]; fs == nil || len(fs.Findings) == 0 {
		t.Fatalf("the knowledge does not know InvoiceTest's polluter:\n%s", out)
	}
	return k
}

// affectedIDs returns the tests a change's analysis judged as affected.
func affectedIDs(rep *report.Report) []string {
	var out []string
	for _, a := range rep.Stats.Change.Affected {
		out = append(out, a.Test)
	}
	return out
}

// newFindings renders the findings of a change's analysis that are not
// known from before it as findingsOf does.
func newFindings(rep *report.Report) []string {
	return findingsOf(slices.DeleteFunc(slices.Clone(rep.Findings), func(f report.Finding) bool {
		return slices.Contains(rep.Stats.Change.Known, f.Test)
	}))
}

// TestVerifySince runs `mvn -Pflaky verify -Dflaky.since=origin/main` as a
// pull-request build does: in a fresh clone of the branch, with the
// knowledge folder of a full analysis of main restored. A README change
// judges nothing, reruns nothing and passes the gate; a new victim of an existing polluter
// fails it with exactly that finding (the fixture's own flaky tests, the
// NOD one included, are not judged).
func TestVerifySince(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir, commit := evolving(t, true)
	k := evolveKnowledge(t, dir)
	for _, name := range []string{"f-docs", "a-new-victim"} {
		s := commit(name)
		clone := filepath.Join(t.TempDir(), "clone")
		if out, err := exec.Command("git", "clone", "-q", "--branch", name, dir, clone).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		// No -Dflaky.budget: verify sizes it from the fork's run on this
		// machine; a fixed one can run out on a busy machine.
		out, code := mvnRun(t, clone, "-Pflaky", "verify", "-Dflaky.since=origin/main", "-Dflaky.knowledge="+k)
		if want := min(len(s.Findings), 1); code != want {
			t.Fatalf("%s: mvn -Pflaky verify -Dflaky.since=origin/main exited %d, want %d:\n%s", name, code, want, tail(out))
		}
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "[flaky]") {
				lines = append(lines, l)
			}
		}
		t.Logf("%s:\n%s", name, strings.Join(lines, "\n"))
		rep, err := report.Read(filepath.Join(clone, "target", "flaky", "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := findingsOf(rep.Findings), s.want(); !slices.Equal(got, want) || rep.Stats.Change == nil {
			t.Errorf("%s: findings %q, want %q; change %+v\n%s", name, got, want, rep.Stats.Change, tail(out))
		}
		if s.NothingAnalysed && !strings.Contains(out, "nothing to analyse: only documentation changed") {
			t.Errorf("%s: the build does not say that nothing was analysed:\n%s", name, tail(out))
		}
		// Nothing to judge, nothing rerun: the build's own run is the only
		// one, but for the reruns that confirm a test which failed in it
		// (the fixture's NOD test fails about one build in three), which
		// keep a flaky failure from failing the pull request.
		if s.NothingAnalysed {
			runs := 1
			if buildFailedATest(t, clone) {
				runs += verify.ConfirmReruns
			}
			if rep.Runs > runs || rep.Stats.Orders > runs {
				t.Errorf("%s: %d runs, %d orders: want the build's run alone, and at most %d reruns of a test that failed in it", name, rep.Runs, rep.Stats.Orders, runs-1)
			}
		}
	}
}

// buildFailedATest reports whether a test failed or erred in the Surefire
// run of the module in dir (its target/surefire-reports).
func buildFailedATest(t *testing.T, dir string) bool {
	t.Helper()
	cases, err := surefire.ReadReports(filepath.Join(dir, "target", "surefire-reports"))
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(cases, func(c surefire.TestCase) bool {
		return c.Outcome == surefire.Fail || c.Outcome == surefire.Error
	})
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
		// The scenario's files over main's, at the same paths.
		err := copy.Copy(filepath.Join(evolve, name), dir)
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
