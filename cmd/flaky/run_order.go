package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/invariants"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/surefire"
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
			&cli.DurationFlag{Name: "test-timeout", Usage: "kill the JVM when one test runs longer than this (0: off)"},
			daikonOutFlag,
		}, runOrderChaosFlags...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if c.Duration("timeout") <= 0 || c.Duration("test-timeout") < 0 {
				return usageError("--timeout must be positive and --test-timeout not negative")
			}
			order, err := surefire.ReadOrderFile(c.String("order"))
			if err != nil {
				return usageError("%v", err)
			}
			chaosOptions, err := runOrderChaos(c)
			if err != nil {
				return err
			}
			setup, l, err := openModule(c, launcher.Options{RunTimeout: c.Duration("timeout"), TestTimeout: c.Duration("test-timeout")})
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
			daikonOut := c.String(daikonOutFlag.Name)
			if daikonOut != "" {
				if runOptions.AgentOptions, err = agentOptions.With(invariants.AgentOptions); err != nil {
					return err
				}
			}
			r, err := l.RunWith(c.Context, order, runOptions)
			if err != nil {
				return fmt.Errorf("run order: %w", err)
			}
			if daikonOut != "" {
				if err := writeDaikon(c, daikonOut, r); err != nil {
					return err
				}
			}
			if c.Bool("json") {
				writeNotes(c.App.ErrWriter, r)
				err = writeJSON(c.App.Writer, r)
			} else if err = writeText(c.App.Writer, r); err == nil && chaosOptions != nil {
				err = writePerturbations(c.App.Writer, r)
			}
			if err != nil {
				return err
			}
			if !allPassed(r) {
				return &exitStatus{code: exitTestsFailed}
			}
			return nil
		},
	}
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
