// Command bench measures flaky's launcher against plain Maven Surefire on the
// fixtures in testdata/: the per-JVM start with and without the class-data
// sharing archive on JDK 17 and the newest JDK here; the wall time to run a
// module's whole suite in N shuffled orders, with flaky's directly launched
// JVMs (plain and with the archive) versus N runs of
// `mvn surefire:test -Dsurefire.runOrder=random`, and in warm JVMs of
// several orders each; what API perturbation
// (flaky chaos) costs per strategy; and how fast flaky's order-dependence
// analysis exposes each fixture's known order-dependent tests compared with
// Surefire's random reruns, and with warm exploration runs against fresh
// ones (does the warm analysis find every OD test, how fast); the time per
// OD finding to name and confirm its polluted state, next to ODRepair's
// figures; the JVM runs and time the data-dependency analysis (PraDeT)
// needs to report every known victim and brittle, against the order
// generators, on the fixtures and a generated suite of 2,000 tests, next to
// PraDeT's figures; and what share of the
// fixtures' findings flaky repair fixes, how fast; the time per OD victim to
// infer its problem invariants and find its reset methods, next to Takuan's
// figures, and what tracing costs. Run it with `make bench`; -readme rewrites
// the generated tables of docs/ from the run (docs/performance.md, and the
// tables of docs/order-dependent.md and docs/commands.md); what
// flaky init costs on hostile poms (peak memory, time); and change mode
// (detect --since) on scripted changes of a fixture and of real projects:
// whether it finds exactly the planted OD tests, in how many orders and how
// much time against plain `mvn test` and a full analysis; and flaky chaos
// in each mode on real projects (-chaos-realworld nanohttpd,jjwt): its
// wall time against plain `mvn -q test`, and what it found; and how many
// of a fixture's tests that fail without perturbation flaky chaos finds,
// against plain `mvn test` reruns of the same wall time (-chaos-reruns).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/otiai10/copy"
	"golang.org/x/sync/errgroup"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

func main() {
	hostile.Main()
	orders := flag.Int("orders", 20, "shuffled orders per fixture")
	fixtures := flag.String("fixtures", "junit4,jupiter5", "comma-separated fixtures under testdata/ (empty: skip the launcher benchmark)")
	chaosFixture := flag.String("chaos-fixture", "chaos", "fixture for the API perturbation overhead benchmark (empty: skip it)")
	chaosRuns := flag.Int("chaos-runs", 3, "runs per strategy in the API perturbation benchmark")
	odFixtures := flag.String("od-fixtures", "junit4,jupiter5,jupiter6,mixed-mockito,mockito-subclass,jmock,classfixtures,manyvictims,state,dataflow", "fixtures for the order-dependence benchmark, fresh and warm (empty: skip it)")
	odSeed := flag.Int64("od-seed", 1, "seed of flaky's orders in the order-dependence benchmark")
	odRuns := flag.Int("od-surefire-runs", 15, "most Surefire runOrder=random runs per fixture in the order-dependence benchmark")
	repairFixtures := flag.String("repair-fixtures", "repair,state,junit4,jupiter5,manyvictims,jmock,chaos", "fixtures for the repair benchmark, their expected.json as the report (empty: skip it)")
	stateFixtures := flag.String("state-fixtures", "state,junit4,jupiter5,jupiter6,mixed-mockito,jmock,reactor-deps", "fixtures for the polluted-state benchmark (empty: skip it)")
	startFixture := flag.String("start-fixture", "jupiter5", "fixture for the per-JVM start benchmark (empty: skip it)")
	startRuns := flag.Int("start-runs", 10, "JVMs per JDK and mode in the per-JVM start benchmark")
	readme := flag.Bool("readme", false, "rewrite the generated tables of the docs (docs/performance.md, docs/order-dependent.md's data dependencies, docs/commands.md's limits)")
	dataflowFixtures := flag.String("dataflow-fixtures", "junit4,jupiter5,manyvictims,dataflow", "fixtures for the data-dependency benchmark, their expected.json's victims and brittles (empty: skip them)")
	dataflowSuite := flag.Bool("dataflow-suite", true, "run the data-dependency benchmark on the generated suite of 2,000 tests too")
	invariantFixtures := flag.String("invariant-fixtures", "invariants", "fixtures for the problem-invariant benchmark, their expected.json's victims and brittles (empty: skip it)")
	hostileInit := flag.String("hostile-init", "bin/flaky", "flaky binary whose init the hostile-pom benchmark measures (empty: skip it)")
	evolve := flag.String("evolve", "testdata/evolve/junit4", "comma-separated folders of scripted changes (each with a scenarios.json) for the evolution benchmark of change mode, e.g. internal/bench/evolve/aismessages (empty: skip it)")
	evolveFull := flag.Bool("evolve-full", false, "in the evolution benchmark, also analyse each scripted commit in full (slow on real projects)")
	realworld := flag.String("realworld", "../shared/realworld", "folder of the real projects' source archives the evolution benchmark's scenarios and -chaos-realworld name")
	evolveBin := flag.String("evolve-bin", "bin/flaky", "flaky binary the evolution benchmark runs")
	chaosReal := flag.String("chaos-realworld", "", "comma-separated real projects of the -realworld folder (nanohttpd, jjwt) or fixture folders (testdata/chaos) to run flaky chaos on, against plain mvn -q test (empty: skip it)")
	chaosRealModes := flag.String("chaos-realworld-modes", "combined,single", "comma-separated chaos modes the real-project benchmark runs")
	chaosRealRuns := flag.Int("chaos-realworld-runs", 3, "flaky chaos runs per mode and project in the real-project benchmark: the first (cold) and the warm ones after it; at least 2")
	chaosBin := flag.String("chaos-bin", "bin/flaky", "flaky binary the real-project chaos benchmark runs")
	chaosReruns := flag.String("chaos-reruns", "", "fixture folder whose tests fail without perturbation at known rates (testdata/chaos-reruns), to compare flaky chaos with plain mvn -q test reruns of the same wall time (empty: skip it)")
	chaosRerunsTrials := flag.Int("chaos-reruns-trials", 10, "trials of the reruns benchmark")
	busyDetect := flag.String("busy-detect", "junit4", "fixtures under testdata/ for the scheduling benchmark's flaky detect, quiet and beside -busy-spinners (empty: skip it)")
	busyChaos := flag.String("busy-chaos", "chaos-busy", "fixtures under testdata/ for the scheduling benchmark's flaky chaos, quiet and beside -busy-spinners (empty: skip it)")
	busySpinners := flag.Int("busy-spinners", 16, "processes spinning beside the scheduling benchmark's busy runs")
	flag.Parse()
	if *hostileInit != "" {
		if err := runHostile(*hostileInit); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
	if err := run(*orders, strings.Split(*fixtures, ","), *chaosFixture, *chaosRuns, *startFixture, *startRuns); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := runOD(strings.Split(*odFixtures, ","), *odSeed, *odRuns); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := runDataflow(strings.Split(*dataflowFixtures, ","), *dataflowSuite, *odSeed); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := runState(strings.Split(*stateFixtures, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := runInvariants(strings.Split(*invariantFixtures, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := runRepair(strings.Split(*repairFixtures, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	// The archives are unpacked from other folders.
	if abs, err := filepath.Abs(*realworld); err == nil {
		*realworld = abs
	}
	if err := runEvolve(strings.Split(*evolve, ","), *realworld, *evolveBin, *evolveFull); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := runChaosRealworld(strings.Split(*chaosReal, ","), strings.Split(*chaosRealModes, ","), *chaosRealRuns, *realworld, *chaosBin); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := runBusy(strings.Split(*busyDetect, ","), strings.Split(*busyChaos, ","), *busySpinners, *chaosBin); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := runChaosReruns(*chaosReruns, *chaosRerunsTrials, *chaosBin); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	fmt.Printf("\nmarkdown:\n\n%s\n%s%s%s%s%s%s%s", md.String(), invMD.String(), dfmd.String(), hostileMD.String(), evolveMD.String(), chaosRealMD.String(), busyMD.String(), rerunsMD.String())
	if *readme {
		// Each part only when its benchmarks ran.
		for _, part := range generatedParts {
			if part.text.Len() == 0 {
				continue
			}
			if err := writeTables(part.file, part.begin, part.end, part.text.String()); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
		}
	}
}

// md collects the benchmarks' tables in Markdown, for docs/performance.md.
var md strings.Builder

// The documentation pages that hold the generated tables (paths from the
// repository's root, where make bench runs).
const (
	performanceDoc = "docs/performance.md"
	dataflowDoc    = "docs/order-dependent.md"
	hostileDoc     = "docs/commands.md"
)

// Markers around the generated parts of the docs: in docs/performance.md the
// launcher and order-dependence tables and the problem-invariant ones. The
// markers still say -readme, the flag that rewrites them.
const (
	readmeBegin           = "<!-- make bench -readme: begin -->"
	readmeEnd             = "<!-- make bench -readme: end -->"
	readmeInvariantsBegin = "<!-- make bench -readme: invariants begin -->"
	readmeInvariantsEnd   = "<!-- make bench -readme: invariants end -->"
	// The data-dependency table sits in docs/order-dependent.md's Data dependencies section.
	dataflowBegin = "<!-- make bench -readme: dataflow begin -->"
	dataflowEnd   = "<!-- make bench -readme: dataflow end -->"
	// The hostile-pom table sits in docs/commands.md's Limits section.
	hostileBegin = "<!-- make bench -readme: hostile begin -->"
	hostileEnd   = "<!-- make bench -readme: hostile end -->"
)

// generatedParts are the parts of the docs that -readme rewrites: the file,
// its markers and the benchmarks' Markdown that goes between them.
var generatedParts = []struct {
	file, begin, end string
	text             *strings.Builder
}{
	{performanceDoc, readmeBegin, readmeEnd, &md},
	{performanceDoc, readmeInvariantsBegin, readmeInvariantsEnd, &invMD},
	{dataflowDoc, dataflowBegin, dataflowEnd, &dfmd},
	{hostileDoc, hostileBegin, hostileEnd, &hostileMD},
	{performanceDoc, evolveBegin, evolveEnd, &evolveMD},
}

// writeTables replaces the text between the markers begin and end of path
// with tables.
func writeTables(path, begin, end, tables string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(data)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s ... %s section", path, begin, end)
	}
	text = text[:i+len(begin)] + "\n" + tables + text[j:]
	return safewrite.Atomic(path, []byte(text), 0o644)
}

func run(orders int, fixtures []string, chaosFixture string, chaosRuns int, startFixture string, startRuns int) error {
	jars, err := agent.Extract()
	if err != nil {
		return err
	}
	if startFixture != "" {
		jdks := []string{"java"}
		if other := newestJDK(); other != "" {
			jdks = append(jdks, other)
		}
		figs, err := benchStart(startFixture, jdks, startRuns, jars)
		if err != nil {
			return err
		}
		fmt.Fprintf(&md, "Per-JVM start (%s's first test in a fresh JVM, one at a time, median of %d), without and with the class-data sharing archive:\n\n", startFixture, startRuns)
		md.WriteString("| JDK | plain: wall, CPU | with CDS: wall, CPU | ratio (wall, CPU) |\n|---|---|---|---|\n")
		for _, f := range figs {
			fmt.Fprintf(&md, "| %s | %s, %s | %s, %s | %.2f×, %.2f× |\n", f.jdk, secs(f.plainWall), secs(f.plainCPU), secs(f.sharedWall), secs(f.sharedCPU),
				ratio(f.plainWall, f.sharedWall), ratio(f.plainCPU, f.sharedCPU))
		}
		md.WriteString("\n")
	}
	if len(fixtures) > 0 && fixtures[0] != "" {
		if err := benchLauncher(orders, fixtures, jars); err != nil {
			return err
		}
	}
	if chaosFixture != "" {
		return benchChaos(chaosFixture, chaosRuns, jars)
	}
	return nil
}

func benchLauncher(orders int, fixtures []string, jars agent.Jars) error {
	fmt.Printf("\nlauncher vs surefire: %d shuffled orders of the whole suite\n", orders)
	fmt.Printf("%-10s %6s %7s %12s %12s %12s %12s %12s %14s %8s\n", "fixture", "tests", "orders", "flaky", "flaky+cds", "flaky warm", "flaky(1 jvm)", "surefire", "orders/s", "ratio")
	fmt.Fprintf(&md, "Launcher vs Surefire: a fixture's whole suite in %d shuffled orders with flaky's launcher (%d workers; fresh JVMs plain and with the class-data sharing archive, warm JVMs of %d orders each with the archive (`detect --warm`), and fresh JVMs one at a time), against %d runs of `mvn surefire:test -Dsurefire.runOrder=random`:\n\n", orders, runtime.NumCPU(), od.DefaultWarmOrders, orders)
	md.WriteString("| fixture | tests | flaky | flaky with CDS | flaky warm | flaky, 1 JVM at a time | orders/s (plain, CDS, warm) | Surefire | Surefire / flaky with CDS |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, name := range fixtures {
		r, err := benchFixture(name, orders, jars)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		perSec := func(d time.Duration) float64 { return float64(orders) / d.Seconds() }
		fmt.Printf("%-10s %6d %7d %12s %12s %12s %12s %12s %4.1f %4.1f %4.1f %7.1fx\n", name, r.tests, orders,
			r.flaky.Round(time.Millisecond), r.flakyShared.Round(time.Millisecond), r.flakyWarm.Round(time.Millisecond), r.flakySerial.Round(time.Millisecond),
			r.surefire.Round(time.Millisecond), perSec(r.flaky), perSec(r.flakyShared), perSec(r.flakyWarm), r.surefire.Seconds()/r.flakyShared.Seconds())
		fmt.Fprintf(&md, "| %s | %d | %s | %s | %s | %s | %.1f, %.1f, %.1f | %s | %.1f× |\n", name, r.tests, secs(r.flaky), secs(r.flakyShared), secs(r.flakyWarm), secs(r.flakySerial),
			perSec(r.flaky), perSec(r.flakyShared), perSec(r.flakyWarm), secs(r.surefire), r.surefire.Seconds()/r.flakyShared.Seconds())
	}
	md.WriteString("\n")
	fmt.Println("ratio = surefire / flaky+cds (parallel workers = cores); flaky(1 jvm) runs the same orders one JVM at a time")
	return nil
}

// secs formats a duration in seconds for the Markdown tables.
func secs(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

type figures struct {
	tests                                                int
	flaky, flakyShared, flakyWarm, flakySerial, surefire time.Duration
}

func benchFixture(name string, n int, jars agent.Jars) (figures, error) {
	var f figures
	dir, err := fixtureCopy(name)
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{Log: io.Discard})
	if err != nil {
		return f, err
	}
	env := setup.LaunchEnv("java")

	l, err := launcher.New(env, jars, launcher.Options{})
	if err != nil {
		return f, err
	}
	defer l.Close()
	infos, err := l.List(ctx, launcher.Selection{TestClassesDir: setup.TestClassesDir, Includes: setup.Includes, Excludes: setup.Excludes})
	if err != nil {
		return f, err
	}
	f.tests = len(infos)
	rng := rand.New(rand.NewPCG(42, uint64(len(infos))))
	shuffled := make([][]string, n)
	for i := range shuffled {
		order := make([]string, len(infos))
		for j, ti := range infos {
			order[j] = ti.ID
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		shuffled[i] = order
	}

	start := time.Now()
	if _, err := l.RunAll(ctx, shuffled); err != nil {
		return f, err
	}
	f.flaky = time.Since(start)

	cache, err := os.MkdirTemp("", "flaky-bench-cds-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(cache)
	warm, err := launcher.New(env, jars, launcher.Options{CDSDir: cache})
	if err != nil {
		return f, err
	}
	if _, err := warm.Run(ctx, shuffled[0]); err != nil {
		return f, err
	}
	warm.Close() // the archive is made
	shared, err := launcher.New(env, jars, launcher.Options{CDSDir: cache})
	if err != nil {
		return f, err
	}
	defer shared.Close()
	start = time.Now()
	if _, err := shared.RunAll(ctx, shuffled); err != nil {
		return f, err
	}
	f.flakyShared = time.Since(start)

	start = time.Now()
	if err := runWarm(ctx, shared, shuffled, od.DefaultWarmOrders, runtime.NumCPU()); err != nil {
		return f, err
	}
	f.flakyWarm = time.Since(start)

	serial, err := launcher.New(env, jars, launcher.Options{Workers: 1})
	if err != nil {
		return f, err
	}
	defer serial.Close()
	start = time.Now()
	if _, err := serial.RunAll(ctx, shuffled); err != nil {
		return f, err
	}
	f.flakySerial = time.Since(start)

	start = time.Now()
	for i := 0; i < n; i++ {
		cmd := exec.Command("mvn", "-B", "-q", "surefire:test", "-Dsurefire.runOrder=random",
			fmt.Sprintf("-Dsurefire.runOrder.random.seed=%d", i), "-Dmaven.test.failure.ignore=true")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return f, fmt.Errorf("mvn surefire:test: %w\n%s", err, out)
		}
	}
	f.surefire = time.Since(start)
	return f, nil
}

// runWarm runs orders in warm JVMs of batch orders each, workers JVMs at a
// time, and fails when any order ran in a fresh JVM instead.
func runWarm(ctx context.Context, l *launcher.Launcher, orders [][]string, batch, workers int) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := 0; i < len(orders); i += batch {
		part := orders[i:min(i+batch, len(orders))]
		g.Go(func() error {
			res, err := l.RunWarm(ctx, part)
			if err != nil {
				return err
			}
			for _, r := range res {
				if !r.Warm {
					return fmt.Errorf("an order ran in a fresh JVM, not a warm one: %v", r.Notes)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// fixtureCopy copies testdata/name into a new temporary folder and returns
// it; the caller removes it.
func fixtureCopy(name string) (string, error) {
	dir, err := os.MkdirTemp("", "flaky-bench-")
	if err != nil {
		return "", err
	}
	if err := copy.Copy(filepath.Join("testdata", name), dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("copying fixture %s: %w", name, err)
	}
	return dir, nil
}
