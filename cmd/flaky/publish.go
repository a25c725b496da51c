package main

import (
	"context"
	"path/filepath"

	"github.com/flakyhq/flaky/internal/base/buildinfo"
	"github.com/flakyhq/flaky/internal/output/publish"
	"github.com/flakyhq/flaky/internal/report"
)

// publishReport writes a standalone command's report in every format into
// flakyDir (and the reactor root's pages) and returns report.json's path.
func (g globalOptions) publishReport(ctx context.Context, rep *report.Report, root, moduleDir, flakyDir string) (string, error) {
	_, err := publish.Module(ctx, rep, publish.Options{
		Root: root, ModuleDir: moduleDir, FlakyDir: flakyDir, Module: rep.Module,
		Version: buildinfo.Version(), CI: g.Stdout, Java: g.java(),
	})
	return filepath.Join(flakyDir, publish.JSON.File()), err
}
