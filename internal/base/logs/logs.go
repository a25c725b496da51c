// Package logs is flaky's one logging type: what every stage, analysis and
// Maven step is given to say what it does, and what the command that runs
// them turns into lines on its console, in a build log or nowhere.
package logs

import "fmt"

// Logger hands a stage's notes to the sinks of the command that prints
// them: Logf for the progress notes everyone sees, Debugf for notes about
// single items that only --debug shows. The zero Logger drops both, so a
// caller that wants no notes passes none.
type Logger struct {
	stage       string
	note, debug Sink
}

// Sink receives one line of a stage (its name, "" for none), without a
// trailing newline.
type Sink func(stage, line string)

// New returns a Logger that hands progress notes to note and debug notes
// to debug; a nil sink drops its lines.
func New(note, debug Sink) Logger { return Logger{note: note, debug: debug} }

// Printf returns a Logger whose progress notes go to printf (one call per
// note, no trailing newline) and whose debug notes are dropped: what a
// test gives an analysis for t.Logf.
func Printf(printf func(format string, args ...any)) Logger {
	return New(func(_, line string) { printf("%s", line) }, nil)
}

// Stage returns l naming its lines after the stage name.
func (l Logger) Stage(name string) Logger {
	l.stage = name
	return l
}

// WithoutDebug returns l with its debug notes dropped.
func (l Logger) WithoutDebug() Logger {
	l.debug = nil
	return l
}

// Logf hands a progress note to the note sink.
func (l Logger) Logf(format string, args ...any) {
	if l.note != nil {
		l.note(l.stage, fmt.Sprintf(format, args...))
	}
}

// Debugf hands a note about a single item to the debug sink.
func (l Logger) Debugf(format string, args ...any) {
	if l.debug != nil {
		l.debug(l.stage, fmt.Sprintf(format, args...))
	}
}

// Debugging reports whether debug notes are kept, so that a caller can
// skip gathering what only a debug note would say.
func (l Logger) Debugging() bool { return l.debug != nil }
