package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/gate/baseline"
	"github.com/flakyhq/flaky/internal/report"
)

// baselineCommand manages the project's accepted flaky tests.
func baselineCommand() *cli.Command {
	return &cli.Command{
		Name:  "baseline",
		Usage: "manage the accepted flaky tests in " + baseline.BaselinePath,
		Subcommands: []*cli.Command{{
			Name:      "list",
			Usage:     "print the accepted flaky tests: kind, test and, when accepted for one module only, the module",
			ArgsUsage: "[DIR]",
			Action: func(c *cli.Context) error {
				if c.NArg() > 1 {
					return usageError("baseline list takes at most one directory")
				}
				root := "."
				if c.NArg() == 1 {
					root = c.Args().First()
				}
				return listBaseline(globalsOf(c), root)
			},
		}, {
			Name:      "remove",
			Usage:     "stop accepting flaky tests (one fixed, or accepted by mistake): the gate fails on them again",
			ArgsUsage: "TEST...",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "root", Value: ".", Usage: "the project root holding " + baseline.BaselinePath},
				&cli.StringFlag{Name: "module", Usage: "remove only the test's acceptance for this module (its path from the root, as the baseline names it)", DefaultText: "every module's"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() == 0 {
					return usageError("baseline remove takes the tests to remove, e.g. com.example.FooTest#bar")
				}
				return removeFromBaseline(baselineRemoveOptions{globalOptions: globalsOf(c), Root: c.String("root"), Module: c.String("module"), Tests: c.Args().Slice()})
			},
		}, {
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

// listBaseline prints the baseline of the project at root, one accepted
// test a line.
func listBaseline(g globalOptions, root string) error {
	b, err := baseline.LoadBaseline(root)
	if err != nil {
		return err
	}
	path := filepath.Join(root, baseline.BaselinePath)
	if len(b.Accepted) == 0 {
		fmt.Fprintf(g.Stdout, "%s accepts no flaky test\n", path)
		return nil
	}
	for _, a := range b.Accepted {
		fmt.Fprintf(g.Stdout, "%-12s %s%s\n", a.Kind, a.Test, moduleSuffix(a.Module))
	}
	fmt.Fprintf(g.Stdout, "%s accepts %d flaky test(s)\n", path, len(b.Accepted))
	return nil
}

// moduleSuffix names the module an acceptance is limited to.
func moduleSuffix(module string) string {
	if module == "" {
		return ""
	}
	return " (module " + module + ")"
}

// baselineRemoveOptions are baseline remove's flags and tests.
type baselineRemoveOptions struct {
	globalOptions
	Root   string   // the project's root
	Module string   // only this module's acceptances; "" for all
	Tests  []string // the tests to remove
}

// removeFromBaseline takes o.Tests out of the baseline at o.Root. A test
// the baseline does not accept (a typo) is an error, and then nothing is
// removed.
func removeFromBaseline(o baselineRemoveOptions) error {
	b, err := baseline.LoadBaseline(o.Root)
	if err != nil {
		return err
	}
	path := filepath.Join(o.Root, baseline.BaselinePath)
	var removed []baseline.Accepted
	for _, test := range o.Tests {
		r := b.Remove(test, o.Module)
		if len(r) == 0 {
			return usageError("%s does not accept %s%s (see flaky baseline list); nothing removed", path, test, moduleSuffix(o.Module))
		}
		removed = append(removed, r...)
	}
	if err := b.Save(o.Root); err != nil {
		return err
	}
	for _, a := range removed {
		fmt.Fprintf(o.Stdout, "removed %s %s%s\n", a.Kind, a.Test, moduleSuffix(a.Module))
	}
	fmt.Fprintf(o.Stdout, "%s accepts %d flaky test(s)\n", path, len(b.Accepted))
	return nil
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
	b, err := baseline.LoadBaseline(root)
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
	fmt.Fprintf(o.Stdout, "accepted %d new flaky test(s); %s lists %d\n", added, filepath.Join(root, baseline.BaselinePath), len(b.Accepted))
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
			r := flakydir.InBuild(path).Report()
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
