package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

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
			&cli.StringFlag{Name: "rounds", Usage: "reserved for the order-dependence analyses"},
			&cli.StringFlag{Name: "budget", Usage: "reserved for the order-dependence analyses"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			module, err := filepath.Abs(c.String("module"))
			if err != nil {
				return err
			}
			cfg := verify.Config{ModuleDir: module, BuildDir: c.String("build-dir"), Root: c.String("root"), Out: c.App.Writer, Workers: c.Int("workers")}
			if c.IsSet("java") {
				cfg.Java = javaPath(c)
			}
			if cfg.BuildDir == "" {
				cfg.BuildDir = filepath.Join(module, "target")
			}
			if cfg.Root == "" {
				cfg.Root = module
			}
			switch g := strings.ToLower(strings.TrimSpace(c.String("gate"))); g {
			case "", "on", "true":
				cfg.Gate = true
			case "off", "false":
			default:
				return usageError("--gate must be on or off, not %q", g)
			}
			if r := strings.TrimSpace(c.String("reruns")); r != "" {
				n, err := strconv.Atoi(r)
				if err != nil || n < 1 {
					return usageError("--reruns must be a positive number, not %q", r)
				}
				cfg.Reruns = n
			}
			res, err := verify.Run(c.Context, cfg)
			if err != nil {
				return fmt.Errorf("verify %s: %w", module, err)
			}
			if !res.Pass {
				return &exitStatus{code: exitTestsFailed}
			}
			return nil
		},
	}
}
