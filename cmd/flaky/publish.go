package main

import (
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/buildinfo"
	"github.com/flakyhq/flaky/internal/publish"
	"github.com/flakyhq/flaky/internal/report"
)

// publishReport writes a standalone command's report in every format into
// flakyDir (and the reactor root's pages) and returns report.json's path.
func publishReport(c *cli.Context, rep *report.Report, root, moduleDir, flakyDir string) (string, error) {
	_, err := publish.Module(c.Context, rep, publish.Options{
		Root: root, ModuleDir: moduleDir, FlakyDir: flakyDir, Module: rep.Module,
		Version: buildinfo.Version(), CI: c.App.Writer, Java: javaPath(c),
	})
	return filepath.Join(flakyDir, publish.JSON.File()), err
}
