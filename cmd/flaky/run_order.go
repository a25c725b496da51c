package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/analysis/invariants"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/maven/surefire"
)

func runOrderCommand() *cli.Command {
	return &cli.Command{
		Name:  "run-order",
		Usage: "run the tests of an order file once, in that order, in one JVM",
		Flags: append([]cli.Flag{
			moduleFlag,
			mavenProfileFlag(),
			mavenPropertyFlag(),
			&cli.StringFlag{Name: "order", Required: true, Usage: "file with one test id per line (# comments allowed)"},
			&cli.BoolFlag{Name: "json", Usage: "print the results as a JSON array"},
			&cli.DurationFlag{Name: "timeout", Value: launcher.DefaultRunTimeout, Usage: "kill the JVM after this long"},
			testTimeoutFlag("kill the JVM when one test runs longer than this"),
			daikonOutFlag,
		}, runOrderChaosFlags...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runOrder(c.Context, runOrderOptions{
				globalOptions: globalsOf(c),
				Module:        c.String("module"),
				Order:         c.String("order"),
				JSON:          c.Bool("json"),
				Timeout:       c.Duration("timeout"),
				TestTimeout:   c.Duration("test-timeout"),
				DaikonOut:     c.String(daikonOutFlag.Name),
				Chaos: runOrderChaosOptions{
					Strategies: c.StringSlice("chaos"),
					Params:     c.StringSlice("chaos-param"),
					Include:    c.StringSlice("chaos-include"),
					Exclude:    c.StringSlice("chaos-exclude"),
				},
			})
		},
	}
}

// runOrderOptions are run-order's flags.
type runOrderOptions struct {
	globalOptions
	Module      string // the module's directory
	Order       string // the order file
	JSON        bool
	Timeout     time.Duration
	TestTimeout time.Duration
	DaikonOut   string // the directory for Daikon's files; "": no tracing
	Chaos       runOrderChaosOptions
}

// runOrderChaosOptions are run-order's --chaos flags.
type runOrderChaosOptions struct {
	Strategies []string // --chaos; none: no perturbation
	Params     []string
	Include    []string
	Exclude    []string
}

// runOrder runs the tests of o.Order once, in that order, in one JVM, and
// prints their results; it exits 1 when one did not pass or skip.
func runOrder(ctx context.Context, o runOrderOptions) error {
	if o.Timeout <= 0 || o.TestTimeout < 0 {
		return usageError("--timeout must be positive and --test-timeout not negative")
	}
	order, err := surefire.ReadOrderFile(o.Order)
	if err != nil {
		return usageError("%v", err)
	}
	chaosOptions, err := o.Chaos.agentOptions()
	if err != nil {
		return err
	}
	setup, l, err := o.openModule(ctx, o.Module, launcher.Options{RunTimeout: o.Timeout, TestTimeout: o.TestTimeout})
	if err != nil {
		return err
	}
	defer l.Close()
	var agentOptions agent.Options
	if chaosOptions != nil {
		if agentOptions, err = chaosOptions(setup); err != nil {
			return err
		}
	}
	runOptions := launcher.RunOptions{AgentOptions: agentOptions}
	if o.DaikonOut != "" {
		if runOptions.AgentOptions, err = agentOptions.With(invariants.AgentOptions); err != nil {
			return err
		}
	}
	r, err := l.RunWith(ctx, order, runOptions)
	if err != nil {
		return fmt.Errorf("run order: %w", err)
	}
	if o.DaikonOut != "" {
		if err := writeDaikon(o.Stderr, o.DaikonOut, r); err != nil {
			return err
		}
	}
	if o.JSON {
		writeNotes(o.Stderr, r)
		err = writeJSON(o.Stdout, r)
	} else if err = writeText(o.Stdout, r); err == nil && chaosOptions != nil {
		err = writePerturbations(o.Stdout, r)
	}
	if err != nil {
		return err
	}
	if !allPassed(r) {
		return &exitStatus{code: exitTestsFailed}
	}
	return nil
}

// runOrderChaosFlags are run-order's flags for running with perturbation.
var runOrderChaosFlags = []cli.Flag{
	&cli.StringSliceFlag{Name: "chaos", Usage: "perturb APIs with this strategy or group (repeatable, or joined with +; see flaky chaos)"},
	&cli.StringSliceFlag{Name: "chaos-param", Usage: "strategy parameter key=value (repeatable)"},
	&cli.StringSliceFlag{Name: "chaos-include", Usage: "instrument the classes matching this class-name pattern instead of the module's own classes (repeatable)"},
	&cli.StringSliceFlag{Name: "chaos-exclude", Usage: "do not instrument the classes matching this class-name pattern (repeatable)"},
}

// agentOptions checks run-order's --chaos flags and returns the agent
// options they ask for once the module is prepared; nil without --chaos.
func (o runOrderChaosOptions) agentOptions() (func(*mvn.TestSetup) (agent.Options, error), error) {
	if len(o.Strategies) == 0 {
		for _, f := range []struct {
			name string
			set  []string
		}{{"chaos-param", o.Params}, {"chaos-include", o.Include}, {"chaos-exclude", o.Exclude}} {
			if len(f.set) > 0 {
				return nil, usageError("--%s needs --chaos", f.name)
			}
		}
		return nil, nil
	}
	strategies, err := chaos.Parse(o.Strategies...)
	if err != nil {
		return nil, usageError("--chaos: %v", err)
	}
	if len(strategies) == 0 {
		return nil, usageError("--chaos names no strategy")
	}
	settings := chaos.Settings{Include: o.Include, Exclude: o.Exclude, Params: o.Params}
	if _, err := settings.AgentOptions(strategies); err != nil {
		return nil, usageError("%v", err)
	}
	return func(setup *mvn.TestSetup) (agent.Options, error) {
		return withModuleRoots(settings, setup).AgentOptions(strategies)
	}, nil
}

// writePerturbations prints the perturbed call sites each failed test hit.
func writePerturbations(w io.Writer, r *launcher.Result) error {
	for _, t := range r.Tests {
		if !t.Outcome.Failed() {
			continue
		}
		class := testid.ClassOf(t.Test)
		var lines []string
		for _, p := range r.Perturbations {
			if p.Test == t.Test || p.Test == class {
				lines = append(lines, fmt.Sprintf("  %s at %s.%s(%s:%d) calls %s", p.Strategy, p.Class, p.Method, p.File, p.Line, p.API))
			}
		}
		if len(lines) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "perturbed call sites %s hit:\n%s\n", t.Test, strings.Join(lines, "\n")); err != nil {
			return err
		}
	}
	return nil
}

// allPassed reports whether every test passed or was skipped.
func allPassed(r *launcher.Result) bool {
	for _, t := range r.Tests {
		switch t.Outcome {
		case launcher.Pass, launcher.Skipped:
		default:
			return false
		}
	}
	return true
}
