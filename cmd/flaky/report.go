package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/buildinfo"
	"github.com/flakyhq/flaky/internal/publish"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/flakyhq/flaky/mvn"
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
			moduleDir, err := filepath.Abs(c.String("module"))
			if err != nil {
				return err
			}
			mods, err := mvn.ReactorModules(moduleDir)
			if err != nil {
				return err
			}
			var formats []publish.Format
			for _, s := range c.StringSlice("format") {
				f, err := publish.ParseFormat(s)
				if err != nil {
					return err
				}
				formats = append(formats, f)
			}
			root := c.String("root")
			if root == "" {
				root = mvn.ReactorRoot(moduleDir)
			}
			opts := publish.Options{Root: root, ModuleDir: moduleDir, Version: buildinfo.Version(), Formats: formats, Java: javaPath(c)}
			opts.FlakyDir = filepath.Join(mods[0].BuildDir, "flaky")
			rep, err := report.Read(filepath.Join(opts.FlakyDir, publish.JSON.File()))
			var written []string
			switch {
			case errors.Is(err, fs.ErrNotExist) && len(mods) > 1:
				// an aggregator: the pages over its modules
				opts.Root = moduleDir
				written, err = publish.Reactor(c.Context, opts)
			case err != nil:
				return fmt.Errorf("%w (run flaky detect, flaky chaos or mvn -Pflaky verify first)", err)
			default:
				opts.Module = rep.Module
				written, err = publish.Module(c.Context, rep, opts)
			}
			for _, w := range written {
				fmt.Fprintln(c.App.Writer, w)
			}
			return err
		},
	}
}
