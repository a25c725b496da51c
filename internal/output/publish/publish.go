// Package publish writes a module's report in every format flaky offers —
// report.json, index.html, summary.md and flaky.sarif, side by side in the
// module's target/flaky — and the same pages over all modules at the
// reactor root; on GitHub Actions it also annotates each flaky test and
// appends the summary to the job summary.
package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/fix/sources"
	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/output/annotate"
	"github.com/flakyhq/flaky/internal/output/htmlreport"
	"github.com/flakyhq/flaky/internal/output/sarifreport"
	"github.com/flakyhq/flaky/internal/output/summary"
	"github.com/flakyhq/flaky/internal/report"
)

// Format names one output format.
type Format string

// The formats, with the file each is written to in target/flaky.
const (
	JSON     Format = "json"  // report.json
	HTML     Format = "html"  // index.html
	Markdown Format = "md"    // summary.md
	SARIF    Format = "sarif" // flaky.sarif
)

// Formats are all formats, in the order they are written.
var Formats = []Format{JSON, HTML, Markdown, SARIF}

// File is the file name a format is written to.
func (f Format) File() string {
	switch f {
	case JSON:
		return "report.json"
	case HTML:
		return "index.html"
	case Markdown:
		return "summary.md"
	case SARIF:
		return "flaky.sarif"
	}
	return ""
}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if f.File() == "" {
		return "", fmt.Errorf("unknown report format %q (want one of json, html, md, sarif)", s)
	}
	return f, nil
}

// Options says where a module's report goes and what else to publish.
type Options struct {
	Root      string // the project (reactor) root; paths in reports are relative to it
	ModuleDir string // the module's directory
	FlakyDir  string // the module's target/flaky
	Module    string // the module's name in reports
	Version   string // flaky's version
	// Formats to write; nil means all.
	Formats []Format
	// CI is where GitHub Actions annotations go (the job's log); nil
	// prints none.
	CI io.Writer
	// Getenv reads the environment (GITHUB_ACTIONS, GITHUB_STEP_SUMMARY);
	// nil means os.Getenv.
	Getenv func(string) string
	// Now is the time pages say they were generated; zero means now.
	Now time.Time
	// Java runs the source editor that finds test methods' lines; "" looks
	// for java on PATH, and without one reports name files only.
	Java string
}

// CheckWritable checks, before any analysis, that the directories Module
// will write can be written: the module's FlakyDir and, when the module is
// part of a larger reactor, the root's target/flaky.
func CheckWritable(o Options) error {
	dirs := []string{o.FlakyDir}
	if root, err := filepath.Abs(o.Root); err == nil {
		if dir, err := filepath.Abs(o.ModuleDir); err == nil && dir != root {
			if modules, err := mvn.ReactorModules(o.Root); err == nil && len(modules) > 0 {
				dirs = append(dirs, flakydir.InBuild(modules[0].BuildDir).Path())
			}
		}
	}
	for _, d := range dirs {
		if err := safewrite.CheckDir(d); err != nil {
			return fmt.Errorf("the report cannot be written: %w", err)
		}
	}
	return nil
}

// Module writes the module's report in the chosen formats, atomically,
// then (when the module is part of a larger reactor) the pages over all
// modules at the root, then the CI annotations and job summary.
func Module(ctx context.Context, rep *report.Report, o Options) ([]string, error) {
	o = defaults(o)
	if rep.Name == "" {
		rep.Name = mvn.ArtifactID(o.ModuleDir)
	}
	name := o.Module // the root module goes by its artifactId, as in DisplayName
	if (name == "" || name == ".") && rep.Name != "" {
		name = rep.Name
	}
	mod := module{dir: o.ModuleDir, name: name, report: rep, flakyDir: o.FlakyDir, locate: locator(ctx, o, o.ModuleDir, rep)}
	title := name
	if title == "" || title == "." {
		if abs, err := filepath.Abs(o.ModuleDir); err == nil {
			title = filepath.Base(abs)
		}
	}
	written, err := write(o.FlakyDir, o, []module{mod}, title, true)
	if err != nil {
		return written, err
	}
	if root, err := filepath.Abs(o.Root); err == nil {
		if dir, err := filepath.Abs(o.ModuleDir); err == nil && dir != root {
			more, err := Reactor(ctx, o)
			written = append(written, more...)
			if err != nil {
				return written, err
			}
		}
	}
	if o.CI != nil && annotate.OnGitHub(o.Getenv) {
		annotate.GitHub(o.CI, []annotate.Module{{Name: mod.name, Report: rep, Locate: mod.locate}})
		if err := annotate.AppendStepSummary(o.Getenv, summary.Markdown([]summary.Module{{Name: mod.name, Report: rep, Dir: mod.dir}})); err != nil {
			return written, err
		}
	}
	return written, nil
}

// Reactor writes index.html, summary.md and flaky.sarif over every module
// of the reactor at o.Root that has a report, into the root's target/flaky.
func Reactor(ctx context.Context, o Options) ([]string, error) {
	o = defaults(o)
	modules, err := mvn.ReactorModules(o.Root)
	if err != nil {
		return nil, err
	}
	if len(modules) == 0 {
		return nil, nil
	}
	var mods []module
	for _, m := range modules {
		flakyDir := flakydir.InBuild(m.BuildDir).Path()
		rep, err := report.Read(filepath.Join(flakyDir, JSON.File()))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		name := rep.DisplayName()
		if name == "" || name == "." {
			name = filepath.Base(m.Dir)
		}
		mods = append(mods, module{dir: m.Dir, name: name, report: rep, flakyDir: flakyDir, locate: locator(ctx, o, m.Dir, rep)})
	}
	if len(mods) == 0 {
		return nil, nil
	}
	o.Formats = slices.DeleteFunc(slices.Clone(o.Formats), func(f Format) bool { return f == JSON })
	return write(flakydir.InBuild(modules[0].BuildDir).Path(), o, mods, filepath.Base(o.Root), false)
}

type module struct {
	dir      string // the module's directory
	name     string
	report   *report.Report
	flakyDir string
	locate   func(class, method, file string) (string, int)
}

func defaults(o Options) Options {
	if o.Formats == nil {
		o.Formats = Formats
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Root == "" {
		o.Root = o.ModuleDir
	}
	return o
}

// locator finds the sources of a module's classes and the lines of the
// methods its report names (the findings' tests, polluters, cleaners and
// state-setters).
func locator(ctx context.Context, o Options, moduleDir string, rep *report.Report) func(class, method, file string) (string, int) {
	var ids []string
	for _, f := range rep.Findings {
		ids = append(ids, f.Test)
		for _, gs := range [][][]string{f.Polluters, f.Cleaners, f.Setters} {
			for _, g := range gs {
				ids = append(ids, g...)
			}
		}
	}
	java := o.Java
	if java == "" {
		java, _ = exec.LookPath("java")
	}
	return sources.New(o.Root, moduleDir).Index(ctx, java, ids).Locate
}

// write renders mods in o.Formats into dir; withJSON also writes the
// report itself (of the single module).
func write(dir string, o Options, mods []module, title string, withJSON bool) ([]string, error) {
	var written []string
	full := mods[0].report
	// The pages show a bounded copy of each report; report.json keeps all.
	mods = slices.Clone(mods)
	for i := range mods {
		mods[i].report = report.Trim(mods[i].report)
	}
	for _, f := range o.Formats {
		var data []byte
		switch f {
		case JSON:
			if !withJSON {
				continue
			}
			path := filepath.Join(dir, f.File())
			if err := report.Write(path, full); err != nil {
				return written, err
			}
			written = append(written, path)
			continue
		case HTML:
			var buf bytes.Buffer
			p := htmlreport.Page{Title: "flaky report: " + title, Version: o.Version, Generated: o.Now, Root: o.Root, OutDir: dir}
			for _, m := range mods {
				p.Modules = append(p.Modules, htmlreport.Module{Name: m.name, Report: m.report, FlakyDir: m.flakyDir, Dir: m.dir, Locate: m.locate})
			}
			if err := htmlreport.Render(&buf, p); err != nil {
				return written, err
			}
			data = buf.Bytes()
		case Markdown:
			var sm []summary.Module
			for _, m := range mods {
				sm = append(sm, summary.Module{Name: m.name, Report: m.report, Dir: m.dir})
			}
			data = []byte(summary.Markdown(sm))
		case SARIF:
			var sm []sarifreport.Module
			for _, m := range mods {
				sm = append(sm, sarifreport.Module{Name: m.name, Report: m.report, Locate: m.locate})
			}
			var err error
			if data, err = sarifreport.Encode(o.Version, sm); err != nil {
				return written, err
			}
		}
		path := filepath.Join(dir, f.File())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return written, fmt.Errorf("writing %s: %w", f.File(), err)
		}
		if err := safewrite.Atomic(path, data, 0o644); err != nil {
			return written, fmt.Errorf("writing %s: %w", f.File(), err)
		}
		written = append(written, path)
	}
	return written, nil
}
