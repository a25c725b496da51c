package main

import (
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// eachFlag calls f with every flag of the app and of each command, and the
// command's name ("flaky" for the global flags).
func eachFlag(f func(command string, fl cli.Flag)) {
	app := newApp(io.Discard, io.Discard)
	for _, fl := range app.Flags {
		f("flaky", fl)
	}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := prefix + " " + c.Name
			for _, fl := range c.Flags {
				f(name, fl)
			}
			walk(name, c.Subcommands)
		}
	}
	walk("flaky", app.Commands)
}

// Each flag's help names its default once: a default said in the usage
// text goes in DefaultText, not next to urfave/cli's "(default: 0)".
func TestHelpNamesOneDefault(t *testing.T) {
	eachFlag(func(command string, fl cli.Flag) {
		help := cli.FlagStringer(fl)
		if n := strings.Count(help, "(default"); n > 1 {
			t.Errorf("%s: %s names %d defaults", command, help, n)
		}
	})
}

// Every --test-timeout has the one default, launcher.DefaultTestTimeout.
func TestOneTestTimeoutDefault(t *testing.T) {
	seen := 0
	eachFlag(func(command string, fl cli.Flag) {
		d, ok := fl.(*cli.DurationFlag)
		if !ok || d.Name != "test-timeout" {
			return
		}
		seen++
		if d.Value != launcher.DefaultTestTimeout {
			t.Errorf("%s --test-timeout defaults to %s, want %s", command, d.Value, launcher.DefaultTestTimeout)
		}
	})
	if seen < 8 {
		t.Errorf("found %d --test-timeout flags, want those of detect, run-order, merge, pollution, explain, repair, chaos and verify", seen)
	}
}
