package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/gate"
	"github.com/flakyhq/flaky/internal/report"
)

// baselineCommand manages the project's accepted flaky tests.
func baselineCommand() *cli.Command {
	return &cli.Command{
		Name:  "baseline",
		Usage: "manage the accepted flaky tests in " + gate.BaselinePath,
		Subcommands: []*cli.Command{{
			Name:      "accept",
			Usage:     "accept every flaky test in the project's target/flaky/report.json files",
			ArgsUsage: "[DIR]",
			Action: func(c *cli.Context) error {
				root := "."
				if c.NArg() > 1 {
					return usageError("baseline accept takes at most one directory")
				}
				if c.NArg() == 1 {
					root = c.Args().First()
				}
				return acceptBaseline(baselineAcceptOptions{globalOptions: globalsOf(c), Root: root})
			},
		}},
	}
}

// baselineAcceptOptions are baseline accept's directory.
type baselineAcceptOptions struct {
	globalOptions
	Root string // the project's root
}

// acceptBaseline adds the flaky tests of the reports under o.Root to its
// baseline.
func acceptBaseline(o baselineAcceptOptions) error {
	root := o.Root
	reports, err := findReports(root)
	if err != nil {
		return err
	}
	if len(reports) == 0 {
		return fmt.Errorf("no target/flaky/report.json under %s: run mvn -Pflaky verify first", root)
	}
	b, err := gate.LoadBaseline(root)
	if err != nil {
		return err
	}
	added := 0
	for _, path := range reports {
		r, err := report.Read(path)
		if err != nil {
			return err
		}
		added += b.Accept(r)
	}
	if err := b.Save(root); err != nil {
		return err
	}
	fmt.Fprintf(o.Stdout, "accepted %d new flaky test(s); %s lists %d\n", added, filepath.Join(root, gate.BaselinePath), len(b.Accepted))
	return nil
}

// findReports returns the target/flaky/report.json files of root and its modules.
func findReports(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == ".git" || name == "node_modules" || name == "src" || name == ".flaky") {
			return filepath.SkipDir
		}
		if name == "target" {
			r := filepath.Join(path, "flaky", "report.json")
			if _, err := os.Stat(r); err == nil {
				out = append(out, r)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("looking for reports under %s: %w", root, err)
	}
	return out, nil
}
