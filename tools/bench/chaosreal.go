package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/report"
)

// chaosRealMD is the real-project chaos benchmark's table, printed with the
// others' Markdown (docs/nondeterministic-apis.md's "Real projects" table
// is written by hand: it judges every finding).
var chaosRealMD strings.Builder

// realProject is a project of the -realworld folder that the chaos
// benchmark knows how to build and analyse.
type realProject struct {
	archive string // the source archive in the -realworld folder
	fixture string // or a fixture folder (testdata/chaos), copied instead
	dir     string // the folder the archive unpacks into, or the fixture is copied to
	module  string // the module analysed, relative to dir
	// mvnArgs are added to every Maven call of the benchmark's own (the
	// build and the plain test run), flakyArgs to every flaky chaos.
	mvnArgs, flakyArgs []string
}

// realProjects are the projects -chaos-realworld takes, by name.
var realProjects = map[string]realProject{
	// JaCoCo 0.7's agent cannot instrument JDK 17's classes, so its Surefire
	// JVMs die at start; flaky launches its own JVMs without it.
	"nanohttpd": {archive: "nanohttpd-efb2ebf.tar.gz", dir: "nanohttpd", module: "core", mvnArgs: []string{"-Djacoco.skip=true"}},
	// Maven activates jdk17AndLater (its --add-opens argLine) by the JDK;
	// flaky does not evaluate JDK activation, so it is named.
	"jjwt": {archive: "jjwt-e3fff12.tar.gz", dir: "jjwt", module: "impl", flakyArgs: []string{"-P", "jdk17AndLater"}},
}

// chaosRealRun is one flaky chaos run on a real project.
type chaosRealRun struct {
	mode      string
	wall      time.Duration
	tests     int
	runs      int // JVMs
	findings  []string
	suspected int
	nod       []string // the tests reported flaky without perturbation
	failing   []string // the tests failing unperturbed, with why
	exhausted bool
	// suite is the wall time of the perturbed runs of the whole suite:
	// combined mode's one run, the longest strategy's in single mode. No
	// analysis of the mode ends sooner.
	suite time.Duration
}

// chaosRealMode is what the benchmark measured of one mode on one project:
// a cold run, as on a machine that never ran flaky (an empty cache
// directory: Maven resolves the test class path, the agent's jars are
// unpacked and the class-data sharing archive is recorded); the first run
// in the folder with flaky's cache as the machine has it (the class path
// of the same build resolved in another folder and the archive are taken
// from it, as Maven takes its local repository); and the runs after it,
// warm as the plain `mvn -q test` runs it is compared with.
type chaosRealMode struct {
	cold, first chaosRealRun
	warm        []chaosRealRun
}

// warmWall is the median wall time of the warm runs (the slower of two).
func (m chaosRealMode) warmWall() time.Duration {
	ds := make([]time.Duration, len(m.warm))
	for i, r := range m.warm {
		ds[i] = r.wall
	}
	return median(ds)
}

// sameFindings says whether every run reported the first run's findings
// and suspected tests: one commit, one verdict. The tests flaky without
// perturbation are left out: whether the runs catch one failing is chance
// (see nods).
func (m chaosRealMode) sameFindings() bool {
	verdict := func(r chaosRealRun) string {
		return fmt.Sprint(slices.Sorted(slices.Values(r.findings)), r.suspected)
	}
	for _, r := range append([]chaosRealRun{m.cold}, m.warm...) {
		if verdict(r) != verdict(m.first) {
			return false
		}
	}
	return true
}

// exhausted says whether the budget ended in any run.
func (m chaosRealMode) exhausted() bool {
	return m.cold.exhausted || m.first.exhausted || slices.ContainsFunc(m.warm, func(r chaosRealRun) bool { return r.exhausted })
}

// nods lists how many tests each run reported flaky without perturbation:
// "1,1,1,0", the cold run's first.
func (m chaosRealMode) nods() string {
	n := []string{strconv.Itoa(len(m.cold.nod)), strconv.Itoa(len(m.first.nod))}
	for _, r := range m.warm {
		n = append(n, strconv.Itoa(len(r.nod)))
	}
	return strings.Join(n, ",")
}

// chaosRealFigures is what the benchmark measured on one project.
type chaosRealFigures struct {
	name, module string
	plain        time.Duration // `mvn -q test` in the module: the median of plainRuns after a warm-up run
	modes        []chaosRealMode
}

// runChaosRealworld runs flaky chaos (the binary exe) in each of modes on
// each named project of the realworld folder, or fixture folder, and
// compares its wall time with plain `mvn -q test`.
func runChaosRealworld(names []string, modes []string, runs int, realworld, exe string) error {
	all, err := benchEach(names, exe, "chaos-realworld", func(name, abs string) (chaosRealFigures, error) {
		p, ok := realProjects[name]
		if strings.Contains(name, "/") {
			// A fixture: the module itself, whose flaky tests may fail plain runs.
			p, ok = realProject{fixture: name, dir: filepath.Base(name), module: ".", mvnArgs: []string{"-Dmaven.test.failure.ignore=true"}}, true
		}
		if !ok {
			known := slices.Sorted(maps.Keys(realProjects))
			return chaosRealFigures{}, fmt.Errorf("no project %q (known: %s)", name, strings.Join(known, ", "))
		}
		return benchChaosReal(name, p, modes, runs, realworld, abs)
	})
	if err != nil || len(all) == 0 {
		return err
	}
	writeChaosReal(all)
	return nil
}

// plainRuns is how many times the benchmark times `mvn -q test` in a
// project: Maven's and the JVM's start vary from run to run, most on the
// small fixtures, where they are half of the time.
const plainRuns = 3

// benchChaosReal unpacks the project (copies the fixture) into a temporary
// folder, builds the module (and its upstream modules), times `mvn -q test`
// in the module (the median of plainRuns), then runs flaky chaos in each
// mode: cold, with an empty cache directory, then runs times with the
// machine's (see chaosRealMode).
func benchChaosReal(name string, p realProject, modes []string, runs int, realworld, exe string) (chaosRealFigures, error) {
	f := chaosRealFigures{name: name, module: p.module}
	tmp, err := os.MkdirTemp("", "flaky-bench-chaos-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, p.dir)
	module := filepath.Join(root, filepath.FromSlash(p.module))
	build := []string{"-B", "-q", "test-compile"}
	if p.fixture != "" {
		if err := copy.Copy(p.fixture, root); err != nil {
			return f, fmt.Errorf("copying fixture: %w", err)
		}
	} else {
		if _, err := command(tmp, "tar", "-xzf", filepath.Join(realworld, p.archive), "-C", tmp); err != nil {
			return f, err
		}
		// The module's upstream modules in the local repository, for the plain run in the module.
		build = []string{"-B", "-q", "install", "-DskipTests", "-pl", p.module, "-am"}
	}
	if _, err := command(root, "mvn", slices.Concat(build, p.mvnArgs)...); err != nil {
		return f, fmt.Errorf("building: %w", err)
	}
	test := slices.Concat([]string{"-B", "-q", "test"}, p.mvnArgs)
	if _, err := command(module, "mvn", test...); err != nil {
		return f, fmt.Errorf("warm-up: %w", err)
	}
	plain := make([]time.Duration, plainRuns)
	for i := range plain {
		start := time.Now()
		if _, err := command(module, "mvn", test...); err != nil {
			return f, err
		}
		plain[i] = time.Since(start)
	}
	f.plain = median(plain)
	fmt.Printf("chaos-realworld %s: mvn -q test %s (the median of %d runs)\n", name, f.plain.Round(100*time.Millisecond), plainRuns)
	for _, mode := range modes {
		var m chaosRealMode
		empty, err := os.MkdirTemp(tmp, "cache-")
		if err != nil {
			return f, err
		}
		if m.cold, err = chaosRealRunOf(exe, module, mode, p.flakyArgs, "FLAKY_CACHE_DIR="+empty); err != nil {
			return f, fmt.Errorf("%s mode, cold: %w", mode, err)
		}
		fmt.Printf("chaos-realworld %s %s, cold run: %s (%.1fx mvn test), %d findings: %s; %d nod, %d suspected\n", name, mode, m.cold.wall.Round(time.Second),
			ratio(m.cold.wall, f.plain), len(m.cold.findings), strings.Join(m.cold.findings, ", "), len(m.cold.nod), m.cold.suspected)
		// The module's own cache, which the cold run filled: the first run
		// is the folder's first.
		if err := os.RemoveAll(flakydir.OfModule(module).Cache()); err != nil {
			return f, err
		}
		for i := range max(runs, 2) {
			r, err := chaosRealRunOf(exe, module, mode, p.flakyArgs)
			if err != nil {
				return f, fmt.Errorf("%s mode: %w", mode, err)
			}
			which := "first run"
			if i == 0 {
				m.first = r
			} else {
				m.warm = append(m.warm, r)
				which = fmt.Sprintf("run %d", i+1)
			}
			fmt.Printf("chaos-realworld %s %s, %s: %s (%.1fx mvn test; its longest run of the suite %s, %.1fx), %d findings: %s; %d nod, %d suspected\n", name, mode, which, r.wall.Round(time.Second),
				ratio(r.wall, f.plain), r.suite.Round(100*time.Millisecond), ratio(r.suite, f.plain), len(r.findings), strings.Join(r.findings, ", "), len(r.nod), r.suspected)
		}
		if !m.sameFindings() {
			fmt.Printf("chaos-realworld %s %s: the runs reported different findings\n", name, mode)
		}
		f.modes = append(f.modes, m)
	}
	return f, nil
}

// chaosRealRunOf runs `flaky chaos` on module in mode from a fresh report,
// with env added to the environment, and reads what it found; exit status
// 1 (findings) is no error.
func chaosRealRunOf(exe, module, mode string, args []string, env ...string) (chaosRealRun, error) {
	r := chaosRealRun{mode: mode}
	path := flakydir.OfModule(module).Report()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return r, err
	}
	start := time.Now()
	out, err := commandEnv(module, env, exe, slices.Concat([]string{"chaos", "--module", module, "--mode", mode}, args)...)
	r.wall = time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return r, err
	}
	rep, err := report.Read(path)
	if err != nil {
		return r, fmt.Errorf("%w\n%s", err, tail(string(out), 4000))
	}
	for _, g := range rep.Findings {
		if g.Kind == report.API {
			r.findings = append(r.findings, g.Test+" "+g.Strategy)
		}
	}
	if c := rep.Stats.Chaos; c != nil {
		r.tests, r.runs, r.suspected, r.failing, r.exhausted = c.Tests, c.Runs, len(c.Suspected), c.Failing, c.BudgetExhausted
		for _, n := range c.NOD {
			r.nod = append(r.nod, n.Test)
		}
		for _, s := range c.PerStrategy {
			if mode == string(chaos.Single) || s.Name == string(chaos.Combined) {
				r.suite = max(r.suite, time.Duration(s.DurationMs)*time.Millisecond)
			}
		}
	}
	return r, nil
}

// writeChaosReal prints the benchmark and writes its Markdown table.
func writeChaosReal(all []chaosRealFigures) {
	fmt.Printf("\nflaky chaos on real projects, against plain mvn -q test (the median of %d runs after a warm-up run): a cold run, its first run in the folder, and the median of the runs after it\n", plainRuns)
	fmt.Printf("%-10s %-7s %6s %10s %-9s %10s %7s %10s %7s %10s %7s %10s %7s %5s %9s %8s %6s %5s\n", "project", "module", "tests", "mvn test", "mode", "cold", "x", "first", "x", "warm", "x", "suite run", "x", "JVMs", "findings", "nod", "susp.", "same")
	chaosRealMD.WriteString("`flaky chaos` on real projects (`make bench BENCHFLAGS=-chaos-realworld=nanohttpd,jjwt`), each run from a fresh report, against plain `mvn -q test` in the module (the median of " + strconv.Itoa(plainRuns) + " runs after a warm-up run). *Cold* is a run with an empty cache directory, as on a machine that never ran flaky: Maven resolves the test class path, the agent's jars are unpacked and the class-data sharing archive is recorded. *First run* is the folder's first with flaky's cache as the machine has it, as Maven has its local repository: the class path of the same build resolved in another folder and the archive come from there. *Warm* is the median of the runs after it (the slower of two), warm as the `mvn -q test` runs are; *suite run* is the first run's longest perturbed run of the whole suite (combined mode's one run), which no analysis of the mode can undercut; *nod* lists each run's tests flaky without perturbation, the cold run's first; *budget ended* whether it did in any run; *same* whether every run reported the same findings and suspected tests:\n\n")
	chaosRealMD.WriteString("| project, module (tests) | `mvn -q test` | mode | cold | × `mvn test` | first run | × `mvn test` | warm | × `mvn test` | suite run | × `mvn test` | JVMs | findings | nod | suspected | budget ended | same |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range all {
		for _, m := range f.modes {
			c, r, warm := m.cold, m.first, m.warmWall()
			fmt.Printf("%-10s %-7s %6d %10s %-9s %10s %6.1fx %10s %6.1fx %10s %6.1fx %10s %6.1fx %5d %9d %8s %6d %5s\n", f.name, f.module, r.tests, f.plain.Round(100*time.Millisecond), r.mode,
				c.wall.Round(time.Second), ratio(c.wall, f.plain), r.wall.Round(time.Second), ratio(r.wall, f.plain), warm.Round(100*time.Millisecond), ratio(warm, f.plain), r.suite.Round(100*time.Millisecond), ratio(r.suite, f.plain),
				r.runs, len(r.findings), m.nods(), r.suspected, yesNo(m.sameFindings()))
			fmt.Fprintf(&chaosRealMD, "| %s `%s` (%d) | %s | %s | %s | %.1f× | %s | %.1f× | %s | %.1f× | %s | %.1f× | %d | %d | %s | %d | %s | %s |\n", f.name, f.module, r.tests, secs(f.plain), r.mode,
				secs(c.wall), ratio(c.wall, f.plain), secs(r.wall), ratio(r.wall, f.plain), secs(warm), ratio(warm, f.plain), secs(r.suite), ratio(r.suite, f.plain), r.runs, len(r.findings), m.nods(), r.suspected, yesNo(m.exhausted()), yesNo(m.sameFindings()))
		}
	}
	chaosRealMD.WriteString("\n")
}
