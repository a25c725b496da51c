package main

import (
	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/engine/launcher"
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

// log maps the pipeline's lines onto the command's notes, after prefix:
// its lines about single items only with --debug.
func (p *commandProgress) log(g globalOptions, prefix string) logs.Logger {
	note := func(_, line string) { p.shower.Printf("%s%s\n", prefix, line) }
	if !g.Debug {
		return logs.New(note, nil)
	}
	return logs.New(note, note)
}

// ran is the launcher's Options.Ran: every run counts.
func (p *commandProgress) ran(*launcher.Result) { p.tracker.Ran() }

// finish removes the display.
func (p *commandProgress) finish() { p.shower.Finish() }
