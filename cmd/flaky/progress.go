package main

import (
	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/pipeline"
)

// quietFlag turns progress displays off.
var quietFlag = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress display for long commands"}

// commandProgress shows a long command's progress on stderr: a bar on a
// terminal, a line every few seconds otherwise, nothing with --quiet.
type commandProgress struct {
	shower  *progress.Shower
	tracker *progress.Tracker
}

// startProgress starts the progress display of the command named label.
func (g globalOptions) startProgress(label string) *commandProgress {
	s := progress.New(g.Stderr, progress.ModeFor(g.Stderr, g.Quiet), label)
	return &commandProgress{shower: s, tracker: progress.NewTracker(s.Func())}
}

// log maps the pipeline's lines onto the command's notes, after prefix.
func (p *commandProgress) log(prefix string) pipeline.Log {
	return func(_ pipeline.Stage, line string) { p.shower.Printf("%s%s\n", prefix, line) }
}

// debug maps the pipeline's lines about single items onto the command's
// notes, after prefix, with --debug; without it they are dropped.
func (p *commandProgress) debug(g globalOptions, prefix string) pipeline.Log {
	if !g.Debug {
		return nil
	}
	return p.log(prefix)
}

// ran is the launcher's Options.Ran: every run counts.
func (p *commandProgress) ran(*launcher.Result) { p.tracker.Ran() }

// finish removes the display.
func (p *commandProgress) finish() { p.shower.Finish() }
