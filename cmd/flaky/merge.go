package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/pipeline"
	"github.com/flakyhq/flaky/internal/report"
)

// mergeCommand combines the partial reports of detect's shards.
func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the partial reports of flaky detect --shard I/N runs, rerun the original order and a sample of each part's orders, confirm and minimise their candidates in the module and write target/flaky/report.json; exits 1 when it finds flaky tests, when tests did not run, or when a clean verdict would rest on outcomes of the parts that no run here checked (see --verify, --trust-parts)",
		ArgsUsage: "PART...  (each a shard's target/flaky directory)",
		Flags: []cli.Flag{
			moduleFlag,
			&cli.StringFlag{Name: "root", Usage: "the project's Maven root, for -pl in the reproduce commands (default: the root of the reactor on disk that builds the module)"},
			&cli.DurationFlag{Name: "budget", Usage: "wall-clock budget for confirming and minimising", DefaultText: "scaled to the suite, at least 5m"},
			&cli.IntFlag{Name: "confirmations", Value: od.DefaultConfirmations, Usage: "runs of an order that must agree before a finding is reported"},
			testTimeoutFlag("kill a JVM when one test runs longer than this"),
			&cli.StringFlag{Name: "verify", Value: "1", Usage: "how many of each part's detection orders to rerun here, chosen at random, or all (which earns a clean verdict on this machine's runs alone)"},
			noStateFlag,
			noInvariantsFlag,
			&cli.BoolFlag{Name: "trust-parts", Usage: "vouch for the parts (they come from jobs as trusted as this one, never from a fork's): a clean verdict may rest on their outcomes that no run here checked"},
		},
		Action: func(c *cli.Context) error {
			verify, err := parseVerify(c.String("verify"))
			if err != nil {
				return err
			}
			return runMerge(c.Context, mergeOptions{
				globalOptions: globalsOf(c),
				Module:        c.String("module"),
				Root:          c.String("root"),
				Parts:         c.Args().Slice(),
				Budget:        c.Duration("budget"),
				BudgetSet:     c.IsSet("budget"),
				Confirmations: c.Int("confirmations"),
				TestTimeout:   c.Duration("test-timeout"),
				Verify:        verify,
				TrustParts:    c.Bool("trust-parts"),
				NoState:       c.Bool(noStateFlag.Name),
				NoInvariants:  c.Bool(noInvariantsFlag.Name),
			})
		},
	}
}

// mergeOptions are merge's flags and arguments.
type mergeOptions struct {
	globalOptions
	Module        string   // the module's directory
	Root          string   // the project's Maven root; "": the reactor root on disk
	Parts         []string // the shards' target/flaky directories
	Budget        time.Duration
	BudgetSet     bool // --budget was given (it must then be positive)
	Confirmations int
	TestTimeout   time.Duration
	Verify        int  // detection orders of each part to rerun; negative: all
	TrustParts    bool // the user vouches for the parts
	NoState       bool
	NoInvariants  bool
}

// parseVerify reads --verify: a number, 0 or more, or all (-1).
func parseVerify(s string) (int, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return -1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0, usageError("--verify must be a number, 0 or more, or all, not %q", s)
	}
	return n, nil
}

// runMerge checks o, reads the shards' partial reports and replays them
// in the detection pipeline, which confirms and minimises their candidates.
func runMerge(ctx context.Context, o mergeOptions) error {
	if len(o.Parts) == 0 {
		return usageError("merge needs the shards' target/flaky directories")
	}
	if o.Budget < 0 || (o.BudgetSet && o.Budget == 0) || o.Confirmations < 1 || o.TestTimeout < 0 {
		return usageError("--budget must be positive, --confirmations at least 1, --test-timeout not negative")
	}
	parts, err := od.ReadPartials(o.Parts)
	if err != nil {
		return &exitStatus{code: exitError, msg: "merge: " + err.Error()}
	}
	return analyseModule(ctx, o.globalOptions, "merge", analysedModule{Dir: o.Module, Root: o.Root, TestTimeout: o.TestTimeout},
		&pipeline.DetectOptions{Partials: parts, Budget: o.Budget, Confirmations: o.Confirmations, Verify: o.Verify, TrustParts: o.TrustParts,
			NoState: o.NoState, NoInvariants: o.NoInvariants})
}

// printMerge says, per part, what the runs here checked of it, and
// whether the verdict rests on outcomes no run here checked.
func printMerge(w io.Writer, ms *report.MergeStats) {
	if ms == nil {
		return
	}
	for _, p := range ms.Parts {
		fmt.Fprintf(w, "part %s (shard %s, %s): digest checked, %d of its %d runs rerun here (%s)", p.File, p.Shard, p.Digest, p.Rerun, p.Runs, p.Status)
		if p.Differences > 0 {
			var ds []string
			for _, d := range p.Differ {
				ds = append(ds, fmt.Sprintf("%s (%s in its %q, %s here)", d.Test, d.Recorded, d.Run, d.Here))
			}
			fmt.Fprintf(w, "; outcomes that differ here (a NOD test, or a part that is not what its shard ran): %d, %s", p.Differences, strings.Join(ds, ", "))
		}
		fmt.Fprintln(w)
	}
	unchecked, runs := ms.Unchecked()
	switch {
	case unchecked == 0:
		fmt.Fprintf(w, "verified: every run of the parts ran again here\n")
	case ms.Trusted:
		fmt.Fprintf(w, "trusted (--trust-parts): %d of the parts' %d runs are their shards' word, no run here checked them\n", unchecked, runs)
	default:
		fmt.Fprintf(w, "unverified: %d of the parts' %d runs are their shards' word, no run here checked them: no clean verdict rests on them (--verify all reruns them; --trust-parts vouches for parts from jobs as trusted as this one)\n", unchecked, runs)
	}
}
