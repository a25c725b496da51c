package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// startFigures is the per-JVM start benchmark on one JDK: one short test per
// JVM, one JVM at a time, medians of the JVMs' wall and CPU time.
type startFigures struct {
	jdk                    string
	plainWall, plainCPU    time.Duration
	sharedWall, sharedCPU  time.Duration
	sharedUsed, sharedRuns int
}

// newestJDK returns the java of the newest JDK under /usr/lib/jvm other
// than the one on PATH, or "".
func newestJDK() string {
	matches, _ := filepath.Glob("/usr/lib/jvm/*/bin/java")
	best, bestMajor := "", 0
	onPath, _ := exec.LookPath("java")
	onPath, _ = filepath.EvalSymlinks(onPath)
	for _, m := range matches {
		real, _ := filepath.EvalSymlinks(m)
		if real == onPath {
			continue
		}
		if v := javaMajor(m); v > bestMajor {
			best, bestMajor = m, v
		}
	}
	return best
}

var versionRE = regexp.MustCompile(`version "(\d+)`)

// javaMajor is a java's major version, 0 when unknown.
func javaMajor(java string) int {
	out, _ := exec.Command(java, "-version").CombinedOutput()
	m := versionRE.FindSubmatch(out)
	if m == nil {
		return 0
	}
	v, _ := strconv.Atoi(string(m[1]))
	return v
}

// benchStart measures the per-JVM start of a fixture's first test with
// plain JVMs and with the class-data sharing archive, on each JDK,
// alternating the two so that machine load shifts both alike.
func benchStart(name string, jdks []string, runs int, jars agent.Jars) ([]startFigures, error) {
	dir, err := fixtureCopy(name)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	setup, err := mvn.Prepare(ctx, dir, mvn.PrepareOptions{Log: io.Discard})
	if err != nil {
		return nil, err
	}
	var out []startFigures
	for _, java := range jdks {
		f, err := benchStartJDK(ctx, setup, java, runs, jars)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", java, err)
		}
		out = append(out, f)
	}
	fmt.Printf("\nper-JVM start: %s's first test in a fresh JVM, one JVM at a time, median of %d runs\n", name, runs)
	fmt.Printf("%-8s %12s %12s %12s %12s %8s %8s\n", "jdk", "plain wall", "plain cpu", "cds wall", "cds cpu", "wall x", "cpu x")
	for _, f := range out {
		fmt.Printf("%-8s %12s %12s %12s %12s %7.2fx %7.2fx\n", f.jdk, f.plainWall.Round(time.Millisecond), f.plainCPU.Round(time.Millisecond),
			f.sharedWall.Round(time.Millisecond), f.sharedCPU.Round(time.Millisecond), ratio(f.plainWall, f.sharedWall), ratio(f.plainCPU, f.sharedCPU))
	}
	fmt.Println("x = plain / with the class-data sharing archive (higher is better)")
	return out, nil
}

func benchStartJDK(ctx context.Context, setup *mvn.TestSetup, java string, runs int, jars agent.Jars) (startFigures, error) {
	f := startFigures{jdk: fmt.Sprint(javaMajor(java))}
	cache, err := os.MkdirTemp("", "flaky-bench-cds-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(cache)
	env := launcher.FastStart(setup.LaunchEnv(java))
	plain, err := launcher.New(env, jars, launcher.Options{Workers: 1})
	if err != nil {
		return f, err
	}
	defer plain.Close()
	infos, err := plain.List(ctx, launcher.Selection{TestClassesDir: setup.TestClassesDir, Includes: setup.Includes, Excludes: setup.Excludes})
	if err != nil {
		return f, err
	}
	order := []string{infos[0].ID}
	// The first launcher records the classes and dumps the archive.
	warm, err := launcher.New(env, jars, launcher.Options{Workers: 1, CDSDir: cache})
	if err != nil {
		return f, err
	}
	if _, err := warm.Run(ctx, order); err != nil {
		return f, err
	}
	warm.Close()
	// The class-load log tells whether the archive was used.
	logged := env
	logged.JVMArgs = append(append([]string(nil), env.JVMArgs...), "-Xlog:class+load=info")
	check, err := launcher.New(logged, jars, launcher.Options{Workers: 1, CDSDir: cache})
	if err != nil {
		return f, err
	}
	r, err := check.Run(ctx, order)
	check.Close()
	if err != nil {
		return f, err
	}
	if regexp.MustCompile(`org\.junit\.\S+ source: shared objects file`).MatchString(r.Output) {
		f.sharedUsed = 1
	}
	shared, err := launcher.New(env, jars, launcher.Options{Workers: 1, CDSDir: cache})
	if err != nil {
		return f, err
	}
	defer shared.Close()
	var pw, pc, sw, sc []time.Duration
	for range runs {
		r, err := plain.Run(ctx, order)
		if err != nil {
			return f, err
		}
		pw, pc = append(pw, r.Duration), append(pc, r.CPU)
		if r, err = shared.Run(ctx, order); err != nil {
			return f, err
		}
		sw, sc = append(sw, r.Duration), append(sc, r.CPU)
	}
	f.sharedRuns = runs
	f.plainWall, f.plainCPU, f.sharedWall, f.sharedCPU = median(pw), median(pc), median(sw), median(sc)
	if f.sharedUsed == 0 {
		f.jdk += " (no archive)"
	}
	return f, nil
}
