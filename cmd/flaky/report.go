package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/buildinfo"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/output/publish"
	"github.com/flakyhq/flaky/internal/report"
)

// reportCommand regenerates report formats from a module's report.json.
func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write the module's report.json again as index.html, summary.md and flaky.sarif (and the reactor root's pages), without running anything",
		Flags: []cli.Flag{
			moduleFlag,
			&cli.StringSliceFlag{Name: "format", Usage: "formats to write: html, md, sarif, json (repeatable; default all)"},
			&cli.StringFlag{Name: "root", Usage: "the project root that source paths are relative to (default: the module's reactor root)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return runReport(c.Context, reportOptions{
				globalOptions: globalsOf(c),
				Module:        c.String("module"),
				Formats:       c.StringSlice("format"),
				Root:          c.String("root"),
			})
		},
	}
}

// reportOptions are report's flags.
type reportOptions struct {
	globalOptions
	Module  string   // the module's directory
	Formats []string // --format; none: all
	Root    string   // the project root; "": the module's reactor root
}

// runReport writes the module's report.json again in o.Formats, or the
// reactor pages of an aggregator module, and prints the files written.
func runReport(ctx context.Context, o reportOptions) error {
	moduleDir, err := filepath.Abs(o.Module)
	if err != nil {
		return err
	}
	mods, err := mvn.ReactorModules(moduleDir)
	if err != nil {
		return err
	}
	var formats []publish.Format
	for _, s := range o.Formats {
		f, err := publish.ParseFormat(s)
		if err != nil {
			return err
		}
		formats = append(formats, f)
	}
	root := o.Root
	if root == "" {
		root = mvn.ReactorRoot(moduleDir)
	}
	opts := publish.Options{Root: root, ModuleDir: moduleDir, Version: buildinfo.Version(), Formats: formats, Java: o.java()}
	opts.FlakyDir = flakydir.InBuild(mods[0].BuildDir).Path()
	rep, err := report.Read(filepath.Join(opts.FlakyDir, publish.JSON.File()))
	var written []string
	switch {
	case errors.Is(err, fs.ErrNotExist) && len(mods) > 1:
		// an aggregator: the pages over its modules
		opts.Root = moduleDir
		written, err = publish.Reactor(ctx, opts)
	case err != nil:
		return fmt.Errorf("%w (run flaky detect, flaky chaos or mvn -Pflaky verify first)", err)
	default:
		opts.Module = rep.Module
		for _, c := range report.Trim(rep).Cut {
			fmt.Fprintf(o.Stderr, "flaky: report: %s\n", c)
		}
		written, err = publish.Module(ctx, rep, opts)
	}
	for _, w := range written {
		fmt.Fprintln(o.Stdout, w)
	}
	return err
}
