package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/pipeline"
)

// sinceFlag narrows detect to what a change can affect.
var sinceFlag = &cli.StringFlag{Name: "since", Usage: "judge only the tests the changes since the merge base of HEAD and `REF` (a branch, tag or commit; uncommitted and untracked files included) can affect, in orders that pair them with the tests sharing state with them; the seed then derives from HEAD's commit. auto takes the base the CI names for a pull or merge request (GITHUB_BASE_REF, CI_MERGE_REQUEST_DIFF_BASE_SHA) and analyses everything when it names none"}

// sinceAuto is the --since value that takes the base from the CI.
const sinceAuto = "auto"

// changeSince resolves --since for the module at dir: nil for a full
// analysis (auto outside a pull or merge request build).
// Notes go to stderr, after prefix.
func changeSince(dir, since string, stderr io.Writer, prefix string) (*pipeline.ChangeOptions, error) {
	ref := since
	if since == sinceAuto {
		if ref = change.CIBase(nil); ref == "" {
			fmt.Fprintln(stderr, prefix+"--since auto: the CI names no pull or merge request base: analysing every test")
			return nil, nil
		}
	}
	ch, err := change.Since(dir, ref, change.Options{})
	if err != nil {
		return nil, usageError("--since: %v", err)
	}
	return &pipeline.ChangeOptions{Change: ch}, nil
}

// reportInert writes the report of a change that needs no analysis,
// without building the module or starting a JVM, and says why.
func reportInert(ctx context.Context, g globalOptions, name string, am analysedModule, d *pipeline.DetectOptions) error {
	dir, err := filepath.Abs(am.Dir)
	if err != nil {
		return err
	}
	root := am.Root
	if root == "" {
		root = d.Change.Change.Top
	}
	if root, err = filepath.Abs(root); err != nil {
		return err
	}
	m := pipeline.NewModule(root, dir, flakydir.OfModule(dir))
	res, err := pipeline.Run(ctx, m, pipeline.Options{Detect: d}, logs.Logger{})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	path, err := g.publishReport(ctx, res.Report, root, dir, m.FlakyDir)
	if err != nil {
		return err
	}
	printChange(g.Stdout, res.Report.Stats.Change)
	fmt.Fprintf(g.Stdout, "report: %s (and index.html, summary.md, flaky.sarif)\n", path)
	return nil
}
