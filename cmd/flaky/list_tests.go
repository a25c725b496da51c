package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/launcher"
)

func listTestsCommand() *cli.Command {
	return &cli.Command{
		Name:  "list-tests",
		Usage: "print the module's tests, one id per line, in their default order",
		Flags: []cli.Flag{
			moduleFlag,
			&cli.BoolFlag{Name: "json", Usage: "print the tests as a JSON array of {id, class, method, engine, classFixtures}"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			setup, l, err := openModule(c, launcher.Options{})
			if err != nil {
				return err
			}
			defer l.Close()
			tests, err := l.List(c.Context, launcher.Selection{
				TestClassesDir: setup.TestClassesDir,
				Includes:       setup.Includes,
				Excludes:       setup.Excludes,
			})
			if err != nil {
				return fmt.Errorf("list tests: %w", err)
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(tests)
			}
			for _, t := range tests {
				if _, err := fmt.Fprintln(c.App.Writer, t.ID); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
