package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

// hostileSlack is how many times the CPU time of init of a plain pom init
// of a hostile pom may take: the largest poms flaky accepts take 40 to 60
// times that (measured here, idle and beside 16 spinning processes), the
// ones it refuses about as much as a plain pom.
const hostileSlack = 200

// TestInitHostilePoms runs flaky init as a process on each hostile pom: it
// ends with a clear error (or, for the poms just within the bounds, adds
// the profile), within seconds of CPU time and its peak memory under 100 MB.
// Within seconds is 10 s or, when more, hostileSlack times the CPU time of
// init of a plain pom just measured: CPU time, unlike wall time, is not
// stretched by a busy machine, and a slow one slows the control as much. A
// pom that makes init wait (a FIFO) or read forever ends only by the kill
// at the test's deadline or above 1 GiB (exit -1).
func TestInitHostilePoms(t *testing.T) {
	poms, err := hostile.Poms(t.TempDir())
	if err != nil {
		t.Skip("cannot build the hostile poms here:", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The errors, in the order of hostile.Poms.
	want := []string{"not a regular file (a character device)", "not a regular file (a FIFO)", "more than the 4 MiB", "more than the 4 MiB", "elements nest more than 1000 deep"}
	for i, p := range poms {
		w := "?"
		if i < len(want) {
			w = want[i]
		}
		limit := max(10*time.Second, hostileSlack*plainInit(t, exe))
		c := initPom(t, exe, p)
		t.Logf("%s: %s wall, %s CPU (limit %s), peak %d MB, exit %d", p.Name, c.Wall.Round(time.Millisecond), c.CPU.Round(time.Millisecond), limit.Round(time.Millisecond), c.PeakRSS>>20, c.ExitCode)
		switch {
		case p.Valid && c.ExitCode != 0:
			t.Errorf("%s: exit %d, stderr %q; want it accepted", p.Name, c.ExitCode, c.Stderr)
		case !p.Valid && (c.ExitCode != exitError || !strings.Contains(c.Stderr, w)):
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", p.Name, c.ExitCode, c.Stderr, exitError, w)
		}
		if c.CPU > limit || c.PeakRSS > 100<<20 {
			t.Errorf("%s: %s CPU time and %d MB, want at most %s and under 100 MB", p.Name, c.CPU, c.PeakRSS>>20, limit)
		}
	}
}

// initPom runs flaky init on p in a process of its own, killed at the
// test's deadline, and returns its cost.
func initPom(t *testing.T, exe string, p hostile.Pom) hostile.Cost {
	t.Helper()
	c, err := hostile.Init(context.Background(), []string{exe}, append(os.Environ(), mainEnv+"=1"), p, time.Until(awaitBy(t)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// plainInit is the control of TestInitHostilePoms: the CPU time of init of
// a plain pom.
func plainInit(t *testing.T, exe string) time.Duration {
	t.Helper()
	p := hostile.Pom{Name: "plain", Dir: t.TempDir(), Valid: true}
	pom := "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>\n"
	if err := os.WriteFile(filepath.Join(p.Dir, "pom.xml"), []byte(pom), 0o644); err != nil {
		t.Fatal(err)
	}
	c := initPom(t, exe, p)
	if c.ExitCode != 0 {
		t.Fatalf("init of a plain pom: exit %d, stderr %q", c.ExitCode, c.Stderr)
	}
	return c.CPU
}
