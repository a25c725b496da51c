package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/report"
)

// evolveMD is the evolution benchmark's table, for docs/performance.md
// (its change-mode table).
var evolveMD strings.Builder

// Markers around the evolution benchmark's table in docs/performance.md.
const (
	evolveBegin = "<!-- make bench -readme: evolve begin -->"
	evolveEnd   = "<!-- make bench -readme: evolve end -->"
)

// evolvePlan is a scenarios.json: a project and the scripted changes laid
// over it, one at a time, each on the project's base commit.
type evolvePlan struct {
	// The project is a fixture under testdata/, or a source archive (a
	// .tar.gz) in the -realworld folder.
	Fixture string `json:"fixture,omitempty"`
	Archive string `json:"archive,omitempty"`
	// Module is the module analysed, relative to the project ("": its root).
	Module string `json:"module,omitempty"`
	// Base is a patch (a file next to scenarios.json) applied to the
	// project before its base commit, so that it builds here.
	Base      string           `json:"base,omitempty"`
	Scenarios []evolveScenario `json:"scenarios"`
}

// evolveScenario is one scripted change: the files of the directory next to
// scenarios.json named Name laid over the project, or the patch Patch
// applied to it, and what change mode must report for it.
type evolveScenario struct {
	Name     string `json:"name"`
	What     string `json:"what"`
	Patch    string `json:"patch,omitempty"`
	Findings []struct {
		Test      string      `json:"test"`
		Kind      report.Kind `json:"kind"`
		Polluters [][]string  `json:"polluters"`
	} `json:"findings"`
	// Fixed are known OD tests the change fixes.
	Fixed []string `json:"fixed,omitempty"`
	// NothingAnalysed says the change needs no analysis at all.
	NothingAnalysed bool `json:"nothingAnalysed,omitempty"`
	// Skipped says the project has no honest realisation of this kind of
	// change; What says why.
	Skipped bool `json:"skipped,omitempty"`
}

// evolveFigures is what the evolution benchmark measured on one project.
type evolveFigures struct {
	name            string
	tests           int           // tests of the module (the full analysis' count)
	plain           time.Duration // `mvn -q test`, after a warm-up build
	full            time.Duration // the full analysis that makes the knowledge
	fullOrders      int
	fullFindings    int
	scenarios       []evolveResult
	scenarioDetails []string // one line per scenario for the console: what change mode said
}

// evolveResult is change mode on one scripted change.
type evolveResult struct {
	name, what  string
	skipped     bool
	expected    int      // findings expected
	missed      []string // expected findings not reported (test kind [polluters])
	extra       []string // reported findings neither expected nor known
	known       int      // reported findings the base's full analysis reported as they are
	orders      int
	wall        time.Duration // flaky detect --since HEAD~1
	nothing     bool          // reported nothing to analyse
	wantNothing bool
	fixed       []string // expected fixed tests reported possibly fixed
	wantFixed   []string
	affected    int
	// full is a full analysis of the same commit (zero when not measured);
	// fullMissed the expected findings it did not report.
	full       time.Duration
	fullOrders int
	fullMissed []string
}

// runEvolve runs the evolution benchmark on each plan directory (holding a
// scenarios.json), with the flaky binary exe; full also analyses each
// scripted commit in full, for comparison.
func runEvolve(plans []string, realworld, exe string, full bool) error {
	all, err := benchEach(plans, exe, "evolve", func(plan, abs string) (evolveFigures, error) {
		return benchEvolve(plan, realworld, abs, full)
	})
	if err != nil || len(all) == 0 {
		return err
	}
	writeEvolve(all, full)
	return nil
}

// benchEach runs one benchmark per name, given flaky's absolute path, and
// collects their figures; an empty list (its flag not given) runs nothing.
func benchEach[F any](names []string, exe, what string, run func(name, abs string) (F, error)) ([]F, error) {
	if len(names) == 0 || names[0] == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return nil, err
	}
	var all []F
	for _, name := range names {
		f, err := run(name, abs)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, name, err)
		}
		all = append(all, f)
	}
	return all, nil
}

// writeEvolve prints the evolution benchmark and writes its Markdown table.
func writeEvolve(all []evolveFigures, full bool) {
	fmt.Printf("\nchange mode (flaky detect --since HEAD~1 --knowledge K) on scripted changes, against plain mvn -q test\n")
	fmt.Printf("%-14s %-22s %5s %6s %6s %7s %10s %10s %5s %10s\n", "project", "change", "want", "found", "extra", "orders", "wall", "mvn test", "bar", "full")
	evolveMD.WriteString("Change mode (`flaky detect --since HEAD~1 --knowledge K`, defaults otherwise) on scripted changes (`testdata/evolve/`, `internal/bench/evolve/`), each committed on the project's base after a full `flaky detect --seed 1 --knowledge K --no-state --no-invariants` made the knowledge; the module is built before each analysis, as a CI's build does before the analysis. *Added* is change mode's whole wall time, all of it on top of the test run; the bar is the plain `mvn -q test` time (after a warm-up build) plus 30 s:\n\n")
	evolveMD.WriteString("| project (tests, `mvn -q test`, full analysis) | change | expected findings | found them all | nothing else | affected tests, orders | change mode (added) | within the bar |")
	if full {
		evolveMD.WriteString(" full analysis of the commit |\n|---|---|---|---|---|---|---|---|---|\n")
	} else {
		evolveMD.WriteString("\n|---|---|---|---|---|---|---|---|\n")
	}
	for _, f := range all {
		project := fmt.Sprintf("%s (%d tests, %s, %s in %d orders)", f.name, f.tests, secs(f.plain), secs(f.full), f.fullOrders)
		for i, r := range f.scenarios {
			if i > 0 {
				project = ""
			}
			if r.skipped {
				fmt.Printf("%-14s %-22s skipped: %s\n", f.name, r.name, r.what)
				fmt.Fprintf(&evolveMD, "| %s | %s: %s | | | | | | |", project, r.name, r.what)
				if full {
					evolveMD.WriteString(" |")
				}
				evolveMD.WriteString("\n")
				continue
			}
			bar := r.wall <= f.plain+30*time.Second
			fullCol := "-"
			if r.full > 0 {
				fullCol = fmt.Sprintf("%s, %d orders", secs(r.full), r.fullOrders)
				if len(r.fullMissed) > 0 {
					fullCol += fmt.Sprintf(", missed %d", len(r.fullMissed))
				}
			}
			fmt.Printf("%-14s %-22s %5d %6v %6d %7d %10s %10s %5v %10s\n", f.name, r.name, r.expected, len(r.missed) == 0, len(r.extra), r.orders,
				r.wall.Round(100*time.Millisecond), f.plain.Round(100*time.Millisecond), bar, fullCol)
			fmt.Println("  " + f.scenarioDetails[i])
			for _, m := range r.missed {
				fmt.Println("  missed: " + m)
			}
			for _, e := range r.extra {
				fmt.Println("  extra: " + e)
			}
			expected := fmt.Sprint(r.expected)
			switch {
			case r.wantNothing:
				expected = "none, nothing to analyse"
				if !r.nothing {
					expected += " (it analysed)"
				}
			case len(r.wantFixed) > 0:
				expected = fmt.Sprintf("none; %d fixed (%d reported possibly fixed)", len(r.wantFixed), len(r.fixed))
			}
			nothingElse := "yes"
			switch {
			case r.known == 1:
				nothingElse = "yes (and 1 finding the base already had, as it was)"
			case r.known > 1:
				nothingElse = fmt.Sprintf("yes (and %d findings the base already had, as they were)", r.known)
			}
			if len(r.extra) > 0 {
				nothingElse = fmt.Sprintf("no: %s", strings.Join(r.extra, "; "))
			}
			fmt.Fprintf(&evolveMD, "| %s | %s: %s | %s | %s | %s | %d, %d | %s | %s |", project, r.name, r.what, expected, yesNo(len(r.missed) == 0), nothingElse, r.affected, r.orders, secs(r.wall), yesNo(bar))
			if full {
				fmt.Fprintf(&evolveMD, " %s |", fullCol)
			}
			evolveMD.WriteString("\n")
		}
	}
	evolveMD.WriteString("\n")
}

// yesNo is "yes" or "no".
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// benchEvolve sets up the plan's project as a git repository at its base,
// times its tests and a full analysis (the knowledge), then analyses each
// scripted change with change mode.
func benchEvolve(planDir, realworld, exe string, full bool) (evolveFigures, error) {
	var f evolveFigures
	plan, err := readPlan(planDir)
	if err != nil {
		return f, err
	}
	f.name = filepath.Base(planDir)
	dir, err := os.MkdirTemp("", "flaky-bench-evolve-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(dir)
	if err := evolveProject(plan, planDir, realworld, dir); err != nil {
		return f, err
	}
	module := filepath.Join(dir, filepath.FromSlash(plan.Module))

	// The plain test run, after a warm-up build. A flaky test of the
	// project (junit4 has a NOD test) may fail it: the time still counts.
	plain := []string{"-B", "-q", "test", "-Dmaven.test.failure.ignore=true"}
	if _, err := command(module, "mvn", plain...); err != nil {
		return f, fmt.Errorf("warm-up: %w", err)
	}
	start := time.Now()
	if _, err := command(module, "mvn", plain...); err != nil {
		return f, err
	}
	f.plain = time.Since(start)

	// The full analysis, which keeps the knowledge.
	base, err := os.MkdirTemp("", "flaky-bench-knowledge-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(base)
	rep, d, err := detectRun(exe, module, "--seed", "1", "--no-state", "--no-invariants", "--knowledge", base)
	if err != nil {
		return f, fmt.Errorf("full analysis: %w", err)
	}
	f.full, f.tests, f.fullFindings = d, rep.Stats.Tests, len(rep.Findings)
	known := map[string]bool{}
	for _, g := range rep.Findings {
		known[findingKey(g.Test, g.Kind, g.Polluters)] = true
	}
	if rep.Stats.Coverage != nil {
		f.fullOrders = rep.Stats.Coverage.Orders
	}
	fmt.Printf("evolve %s: %d tests, mvn -q test %s, full analysis %s (%d orders, %d findings)\n", f.name, f.tests,
		f.plain.Round(100*time.Millisecond), f.full.Round(100*time.Millisecond), f.fullOrders, f.fullFindings)

	for _, s := range plan.Scenarios {
		if s.Skipped {
			f.scenarios = append(f.scenarios, evolveResult{name: s.Name, what: s.What, skipped: true})
			f.scenarioDetails = append(f.scenarioDetails, "not realised")
			continue
		}
		r, detail, err := evolveScenarioRun(exe, planDir, dir, module, base, known, s, full)
		if err != nil {
			return f, fmt.Errorf("%s: %w", s.Name, err)
		}
		fmt.Printf("evolve %s %s: %s\n", f.name, s.Name, detail)
		f.scenarios = append(f.scenarios, r)
		f.scenarioDetails = append(f.scenarioDetails, detail)
	}
	return f, nil
}

// readPlan reads the scenarios.json of planDir.
func readPlan(planDir string) (*evolvePlan, error) {
	data, err := os.ReadFile(filepath.Join(planDir, "scenarios.json"))
	if err != nil {
		return nil, err
	}
	var plan evolvePlan
	if err := json.Unmarshal(data, &plan); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(planDir, "scenarios.json"), err)
	}
	return &plan, nil
}

// evolveProject puts the plan's project into dir, applies its base patch
// and commits it as the branch main.
func evolveProject(plan *evolvePlan, planDir, realworld, dir string) error {
	switch {
	case plan.Fixture != "":
		if err := copy.Copy(filepath.Join("testdata", plan.Fixture), dir); err != nil {
			return fmt.Errorf("copying fixture: %w", err)
		}
	case plan.Archive != "":
		if _, err := command(dir, "tar", "-xzf", filepath.Join(realworld, plan.Archive), "-C", dir); err != nil {
			return err
		}
	default:
		return errors.New("scenarios.json names neither a fixture nor an archive")
	}
	// Built classes stay out of the history.
	ignore, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = ignore.WriteString("\ntarget/\n")
	if cerr := ignore.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := git(dir, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	if plan.Base != "" {
		if err := applyPatch(dir, filepath.Join(planDir, plan.Base)); err != nil {
			return err
		}
	}
	if err := git(dir, "add", "-A"); err != nil {
		return err
	}
	return git(dir, "commit", "-q", "-m", "base")
}

// evolveScenarioRun commits the scripted change s on the base, builds the
// module, and analyses the change with change mode (and in full when
// asked), each from a copy of the base's knowledge. known are the base's
// findings (findingKey): reported again as they were, they are not new.
func evolveScenarioRun(exe, planDir, dir, module, base string, known map[string]bool, s evolveScenario, full bool) (evolveResult, string, error) {
	r := evolveResult{name: s.Name, what: s.What, expected: len(s.Findings), wantNothing: s.NothingAnalysed, wantFixed: s.Fixed}
	if err := git(dir, "checkout", "-q", "-B", s.Name, "main"); err != nil {
		return r, "", err
	}
	// Classes of an earlier change's new sources must not linger.
	if err := os.RemoveAll(filepath.Join(module, "target")); err != nil {
		return r, "", err
	}
	if s.Patch != "" {
		if err := applyPatch(dir, filepath.Join(planDir, s.Patch)); err != nil {
			return r, "", err
		}
	} else if err := copy.Copy(filepath.Join(planDir, s.Name), dir); err != nil {
		return r, "", err
	}
	if err := git(dir, "add", "-A"); err != nil {
		return r, "", err
	}
	if err := git(dir, "commit", "-q", "-m", s.What); err != nil {
		return r, "", err
	}
	if !s.NothingAnalysed {
		// A CI builds the module before the analysis; a documentation
		// change is left unbuilt, so that building it would show.
		if _, err := command(module, "mvn", "-B", "-q", "test-compile"); err != nil {
			return r, "", fmt.Errorf("building the change: %w", err)
		}
	}
	knowledge, err := os.MkdirTemp("", "flaky-bench-knowledge-")
	if err != nil {
		return r, "", err
	}
	defer os.RemoveAll(knowledge)
	if err := copy.Copy(base, knowledge); err != nil {
		return r, "", err
	}
	rep, d, err := detectRun(exe, module, "--since", "HEAD~1", "--knowledge", knowledge)
	if err != nil {
		return r, "", fmt.Errorf("change mode: %w", err)
	}
	r.wall = d
	if rep.Stats.Coverage != nil {
		r.orders = rep.Stats.Coverage.Orders
	}
	detail := "no change section in report.json"
	if ch := rep.Stats.Change; ch != nil {
		detail = ch.Summary
		r.affected = len(ch.Affected)
		r.nothing = rep.Stats.Coverage == nil && strings.HasPrefix(ch.Summary, "nothing to analyse")
	}
	want := map[string]bool{}
	for _, e := range s.Findings {
		want[findingKey(e.Test, e.Kind, e.Polluters)] = true
	}
	got := map[string]bool{}
	for _, g := range rep.Findings {
		got[findingKey(g.Test, g.Kind, g.Polluters)] = true
	}
	r.missed = difference(want, got)
	for _, k := range difference(got, want) {
		if known[k] {
			r.known++
		} else {
			r.extra = append(r.extra, k)
		}
	}
	if ch := rep.Stats.Change; ch != nil {
		for _, t := range s.Fixed {
			if slices.Contains(ch.PossiblyFixed, t) {
				r.fixed = append(r.fixed, t)
			}
		}
	}
	if full {
		k2, err := os.MkdirTemp("", "flaky-bench-knowledge-")
		if err != nil {
			return r, "", err
		}
		defer os.RemoveAll(k2)
		rep, d, err := detectRun(exe, module, "--seed", "1", "--no-state", "--no-invariants", "--knowledge", k2)
		if err != nil {
			return r, "", fmt.Errorf("full analysis: %w", err)
		}
		r.full = d
		if rep.Stats.Coverage != nil {
			r.fullOrders = rep.Stats.Coverage.Orders
		}
		got := map[string]bool{}
		for _, g := range rep.Findings {
			got[findingKey(g.Test, g.Kind, g.Polluters)] = true
		}
		r.fullMissed = difference(want, got)
	}
	return r, detail, nil
}

// difference lists the keys of a not in b, sorted.
func difference(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// detectRun runs `flaky detect` on module with args and reads its
// report.json; exit status 1 (findings) is no error.
func detectRun(exe, module string, args ...string) (*report.Report, time.Duration, error) {
	start := time.Now()
	out, err := command(module, exe, append([]string{"detect", "--module", module}, args...)...)
	d := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return nil, d, err
	}
	rep, err := report.Read(flakydir.OfModule(module).Report())
	if err != nil {
		return nil, d, fmt.Errorf("%w\n%s", err, out)
	}
	return rep, d, nil
}

// applyPatch applies a unified diff to the repository at dir.
func applyPatch(dir, patch string) error {
	abs, err := filepath.Abs(patch)
	if err != nil {
		return err
	}
	_, err = command(dir, "git", "apply", "--whitespace=nowarn", abs)
	return err
}

// git runs git in dir as a fixed committer.
func git(dir string, args ...string) error {
	_, err := command(dir, "git", append([]string{"-c", "user.name=flaky bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	return err
}

// command runs name with args in dir and returns its combined output; an
// error carries the output.
func command(dir, name string, args ...string) ([]byte, error) {
	return commandEnv(dir, nil, name, args...)
}

// commandEnv is command with env added to the process' environment.
func commandEnv(dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out.String(), 4000))
	}
	return out.Bytes(), nil
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
