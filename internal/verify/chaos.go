package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/maven/surefire"
)

// ChaosConfig turns on the API perturbation analysis (flaky chaos) in verify.
type ChaosConfig struct {
	Mode       chaos.Mode       // empty: off
	Strategies []chaos.Strategy // nil: the mode's default
	Budget     time.Duration    // 0: sized from the unperturbed runs (at least chaos.DefaultBudget)
}

// ParseChaos parses the flaky.chaos property: empty or "off", or a mode
// ("combined", "single") optionally followed by ':' and strategies or groups
// joined with '+', e.g. "single:TIME+RANDOM_MAX".
func ParseChaos(value string) (ChaosConfig, error) {
	value = strings.TrimSpace(value)
	if value == "" || strings.EqualFold(value, "off") {
		return ChaosConfig{}, nil
	}
	mode, names, _ := strings.Cut(value, ":")
	m, err := chaos.ParseMode(mode)
	if err != nil || strings.TrimSpace(mode) == "" {
		return ChaosConfig{}, fmt.Errorf("chaos %q: want off, combined or single, optionally followed by :STRATEGY+STRATEGY...", value)
	}
	cc := ChaosConfig{Mode: m}
	if strings.TrimSpace(names) != "" {
		if cc.Strategies, err = chaos.Parse(names); err != nil {
			return ChaosConfig{}, fmt.Errorf("chaos %q: %w", value, err)
		}
	}
	return cc, nil
}

// classRoots are the module's class directories on the fork's classpath:
// the directories inside its build directory (target/test-classes,
// target/classes), relative to the fork's working directory.
func classRoots(rec *surefire.ForkRecord, buildDir string) []string {
	var dirs []string
	for _, p := range rec.Classpath {
		if rel, err := filepath.Rel(buildDir, p); err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 && rec.TestClassesDirectory != "" {
		dirs = append(dirs, rec.TestClassesDirectory)
	}
	return chaos.RootsFor(rec.WorkingDirectory, dirs...)
}
