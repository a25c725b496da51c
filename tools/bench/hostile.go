package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

// hostileMD is the hostile-pom table, for docs/commands.md's Limits section.
var hostileMD strings.Builder

// runHostile measures `flaky init` (the binary exe) on each hostile pom:
// its wall time, peak resident memory and exit status.
func runHostile(exe string) error {
	abs, err := filepath.Abs(exe)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "flaky-bench-hostile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	poms, err := hostile.Poms(dir)
	if err != nil {
		return err
	}
	fmt.Printf("\nflaky init on hostile poms\n%-45s %10s %10s %5s\n", "pom", "wall", "peak MB", "exit")
	hostileMD.WriteString("`flaky init` on hostile poms (peak resident memory of the process; exit 2 is a clear error, 0 the profile added):\n\n| pom | wall | peak memory | exit |\n|---|---|---|---|\n")
	for _, p := range poms {
		c, err := hostile.Init(context.Background(), []string{abs}, os.Environ(), p, time.Minute)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		fmt.Printf("%-45s %10s %10d %5d\n", p.Name, c.Wall.Round(time.Millisecond), c.PeakRSS>>20, c.ExitCode)
		fmt.Fprintf(&hostileMD, "| %s | %s | %d MB | %d |\n", p.Name, secs(c.Wall), c.PeakRSS>>20, c.ExitCode)
	}
	return nil
}
