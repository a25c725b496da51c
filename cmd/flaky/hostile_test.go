package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/hostile"
)

// TestInitHostilePoms runs flaky init as a process on each hostile pom: it
// ends within seconds with a clear error (or, for the poms just within the
// bounds, adds the profile), its peak memory under 100 MB.
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
		c, err := hostile.Init(context.Background(), []string{exe}, append(os.Environ(), mainEnv+"=1"), p, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s, peak %d MB, exit %d", p.Name, c.Wall.Round(time.Millisecond), c.PeakRSS>>20, c.ExitCode)
		switch {
		case p.Valid && c.ExitCode != 0:
			t.Errorf("%s: exit %d, stderr %q; want it accepted", p.Name, c.ExitCode, c.Stderr)
		case !p.Valid && (c.ExitCode != exitError || !strings.Contains(c.Stderr, w)):
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", p.Name, c.ExitCode, c.Stderr, exitError, w)
		}
		if c.Wall > 10*time.Second || c.PeakRSS > 100<<20 {
			t.Errorf("%s: %s and %d MB, want seconds and under 100 MB", p.Name, c.Wall, c.PeakRSS>>20)
		}
	}
}
