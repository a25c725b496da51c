package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/analysis/dataflow"
	"github.com/flakyhq/flaky/internal/analysis/od"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/verify"
)

// verifyCommand is what the flaky profile runs in each module's verify phase.
func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "analyse a module after the flaky Surefire provider ran (called by mvn -Pflaky verify)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "module", Value: ".", Usage: "the module's base directory"},
			&cli.StringFlag{Name: "build-dir", Usage: "the module's build directory (default: MODULE/target)"},
			&cli.StringFlag{Name: "root", Usage: "the project root holding .flaky/baseline.json (default: the module)"},
			&cli.StringFlag{Name: "gate", Usage: "on: fail on flaky tests not in the baseline; off: only report (default on)"},
			&cli.StringFlag{Name: "reruns", Usage: "reruns of the recorded order (default 3)"},
			&cli.StringFlag{Name: "rounds", Usage: "exploration orders of the order-dependence analysis; 0 for none (default: enough for pairwise class coverage)"},
			&cli.StringFlag{Name: "budget", Usage: "wall-clock budget of the order-dependence analysis per fork, e.g. 2m or 90 (seconds); 0 turns it off (default: scaled to the suite's measured run time, at least 5m)"},
			&cli.DurationFlag{Name: "test-timeout", Value: verify.DefaultTestTimeout, Usage: "cut a test that runs longer than this and go on with the rest of its order in a fresh JVM (0: off)", DefaultText: "the fork's -Dflaky.testTimeout, else " + verify.DefaultTestTimeout.String()},
			&cli.StringFlag{Name: "chaos", Usage: "API perturbation: off (default), combined or single, optionally :STRATEGY+... (see flaky chaos); its attribution gets the same --budget"},
			&cli.StringFlag{Name: "seed", Usage: "seed of the order generators (default: a new one per fork, recorded in the report; with --since, one derived from HEAD's commit)"},
			&cli.StringFlag{Name: "since", Usage: "judge only the tests the changes since the merge base of HEAD and `REF` can affect (see flaky detect --since); auto: the base the CI names for a pull or merge request, if any (default: every test)"},
			&cli.IntFlag{Name: "confirmations", Value: od.DefaultConfirmations, Usage: "runs of an order that must agree before a finding is reported"},
			noStateFlag,
			noInvariantsFlag,
			reverseFlag,
			&cli.StringFlag{Name: "strategy", Usage: "how OD tests are searched for: dataflow, orders or both (default both; see flaky detect --strategy)"},
			knowledgeFlag,
			&cli.StringFlag{Name: "repair", Usage: "true: propose validated patches for the findings in the report (see flaky repair), without applying them (default false)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			o := verifyOptions{globalOptions: globalsOf(c), Module: c.String("module"), BuildDir: c.String("build-dir"), Root: c.String("root"),
				Gate: c.String("gate"), Reruns: c.String("reruns"), Rounds: c.String("rounds"), Budget: c.String("budget"),
				TestTimeout: c.Duration("test-timeout"), Chaos: c.String("chaos"), Seed: c.String("seed"), Confirmations: c.Int("confirmations"),
				NoState: c.Bool(noStateFlag.Name), NoInvariants: c.Bool(noInvariantsFlag.Name), Reverse: c.Bool(reverseFlag.Name),
				Strategy: c.String("strategy"), Repair: c.String("repair"), Since: c.String("since"),
				Knowledge: c.String(knowledgeFlag.Name)}
			if c.IsSet("java") {
				o.JavaSet = true
			}
			o.TimeoutSet = c.IsSet("test-timeout")
			return runVerify(c.Context, o)
		},
	}
}

// verifyOptions are verify's flags: the flaky profile passes the Maven
// properties as they are, so most are strings that may be empty.
type verifyOptions struct {
	globalOptions
	JavaSet       bool // --java was given (else the fork's java)
	Module        string
	BuildDir      string
	Root          string
	Gate          string
	Reruns        string
	Rounds        string
	Budget        string
	TestTimeout   time.Duration
	TimeoutSet    bool // --test-timeout was given (else the fork's timeout applies)
	Chaos         string
	Seed          string
	Confirmations int
	NoState       bool
	NoInvariants  bool
	Reverse       bool
	Strategy      string
	Repair        string
	Since         string
	Knowledge     string
}

// runVerify turns o into a verify.Config, verifies the module and writes
// the gate verdict the flaky profile fails the build on.
func runVerify(ctx context.Context, o verifyOptions) error {
	module, err := filepath.Abs(o.Module)
	if err != nil {
		return err
	}
	cfg := verify.Config{ModuleDir: module, BuildDir: o.BuildDir, Root: o.Root, Out: o.Stdout, Workers: o.Workers, AutoWorkers: !o.WorkersSet, TestTimeout: o.TestTimeout,
		Confirmations: o.Confirmations, DataflowReverse: o.Reverse, NoState: o.NoState, NoInvariants: o.NoInvariants, Debug: o.Debug,
		Knowledge: o.Knowledge, MavenArgs: mvn.CommandLineArgs(os.Getenv("MAVEN_CMD_LINE_ARGS")).Args()}
	if cfg.Confirmations < 1 {
		return usageError("--confirmations must be at least 1")
	}
	shower := progress.New(o.Stdout, progress.ModeFor(o.Stdout, o.Quiet), "[flaky] progress")
	defer shower.Finish()
	cfg.Progress = progress.NewTracker(shower.Func())
	if err := verifyPlaces(&cfg, o, module); err != nil {
		return err
	}
	if err := verifyCounts(&cfg, o); err != nil {
		return err
	}
	if err := verifyAnalyses(&cfg, o, module); err != nil {
		return err
	}
	return verifyModule(ctx, cfg, module)
}

// verifyPlaces sets cfg's test timeout, Java, build and root directories
// and gate from the flags.
func verifyPlaces(cfg *verify.Config, o verifyOptions, module string) error {
	switch {
	case cfg.TestTimeout < 0:
		return usageError("--test-timeout must not be negative")
	case !o.TimeoutSet:
		cfg.TestTimeout = 0 // the fork's
	case cfg.TestTimeout == 0:
		cfg.TestTimeout = -1 // off
	}
	if o.JavaSet {
		cfg.Java = o.java()
	}
	if cfg.BuildDir == "" {
		cfg.BuildDir = filepath.Join(module, "target")
	}
	if cfg.Root == "" {
		cfg.Root = module
	}
	switch g := strings.ToLower(strings.TrimSpace(o.Gate)); g {
	case "", "on", "true":
		cfg.Gate = true
	case "off", "false":
	default:
		return usageError("--gate must be on or off, not %q", g)
	}
	return nil
}

// verifyCounts sets cfg's reruns, rounds, seed and budget from the flags.
func verifyCounts(cfg *verify.Config, o verifyOptions) error {
	if r := strings.TrimSpace(o.Reruns); r != "" {
		n, err := strconv.Atoi(r)
		if err != nil || n < 1 {
			return usageError("--reruns must be a positive number, not %q", r)
		}
		cfg.Reruns = n
	}
	if r := strings.TrimSpace(o.Rounds); r != "" {
		n, err := strconv.Atoi(r)
		if err != nil || n < 0 {
			return usageError("--rounds must be a number, 0 or more, not %q", r)
		}
		cfg.Rounds = n
		if n == 0 {
			cfg.Rounds = -1
		}
	}
	if v := strings.TrimSpace(o.Seed); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n == 0 {
			return usageError("--seed must be a number other than 0, not %q", v)
		}
		cfg.Seed = n
	}
	if b := strings.TrimSpace(o.Budget); b != "" {
		d, err := parseBudget(b)
		if err != nil {
			return usageError("--budget: %v", err)
		}
		cfg.Budget = d
		if d == 0 {
			cfg.Budget = -1
		}
	}
	return nil
}

// verifyAnalyses sets cfg's chaos analysis, repair, strategy and change
// from the flags (after verifyCounts: the chaos analysis takes the budget).
func verifyAnalyses(cfg *verify.Config, o verifyOptions, module string) error {
	var err error
	if cfg.Chaos, err = verify.ParseChaos(o.Chaos); err != nil {
		return usageError("--chaos: %v", err)
	}
	if cfg.Budget > 0 {
		cfg.Chaos.Budget = cfg.Budget
	}
	switch r := strings.ToLower(strings.TrimSpace(o.Repair)); r {
	case "true", "on":
		cfg.Repair = true
	case "", "false", "off":
	default:
		return usageError("--repair must be true or false, not %q", r)
	}
	if cfg.Strategy, err = dataflow.ParseStrategy(strings.ToLower(strings.TrimSpace(o.Strategy))); err != nil {
		return usageError("--strategy: %v", err)
	}
	if since := strings.TrimSpace(o.Since); since != "" {
		if cfg.Change, err = changeSince(module, since, o.Stderr, "[flaky] "); err != nil {
			return err
		}
	}
	return nil
}

// verifyModule verifies the module and, when it does not pass, writes the
// gate verdict the flaky profile fails the build on.
func verifyModule(ctx context.Context, cfg verify.Config, module string) error {
	gateFile := flakydir.InBuild(cfg.BuildDir).GateFile()
	if err := os.Remove(gateFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the previous gate verdict: %w", err)
	}
	res, err := verify.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("verify %s: %w", module, err)
	}
	if !res.Pass {
		// The flaky profile fails the build on this file, with its text
		// as the error.
		verdict := res.GateMessage(res.Report.DisplayName(), flakydir.InBuild(cfg.BuildDir).Report())
		if err := os.MkdirAll(filepath.Dir(gateFile), 0o755); err != nil {
			return fmt.Errorf("write the gate verdict: %w", err)
		}
		if err := os.WriteFile(gateFile, []byte(verdict), 0o644); err != nil {
			return fmt.Errorf("write the gate verdict: %w", err)
		}
		return &exitStatus{code: exitTestsFailed}
	}
	return nil
}

// parseBudget reads a duration ("90s", "2m") or a number of seconds.
func parseBudget(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 5m or a number of seconds, not %q", s)
	}
	return d, nil
}
