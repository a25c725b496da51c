package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// jsonResult is one element of run-order --json.
type jsonResult struct {
	Test    string           `json:"test"`
	Outcome launcher.Outcome `json:"outcome"`
	TimeMs  int64            `json:"timeMs"`
	Message string           `json:"message"`
}

// writeJSON prints the results as a JSON array.
func writeJSON(w io.Writer, r *launcher.Result) error {
	out := make([]jsonResult, len(r.Tests))
	for i, t := range r.Tests {
		out[i] = jsonResult{Test: t.Test, Outcome: t.Outcome, TimeMs: t.TimeMs, Message: t.Message}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// maxMessageLines bounds the message lines printed under a test.
const maxMessageLines = 12

// maxCrashStackLines bounds the lines printed of the stack that called System.exit.
const maxCrashStackLines = 6

// writeText prints one aligned line per test, the message of every failed
// test indented below it, and a summary.
func writeText(w io.Writer, r *launcher.Result) error {
	took := make([]string, len(r.Tests))
	width := 0
	for i, t := range r.Tests {
		took[i] = "-"
		if t.Outcome != launcher.NotRun {
			took[i] = strconv.FormatInt(t.TimeMs, 10) + "ms"
		}
		width = max(width, len(took[i]))
	}
	for i, t := range r.Tests {
		fmt.Fprintf(w, "%-7s %*s  %s\n", strings.ToUpper(string(t.Outcome)), width, took[i], t.Test)
		if t.Outcome.Failed() && t.Message != "" {
			fmt.Fprint(w, indent(t.Message, maxMessageLines))
		}
		if t.Outcome == launcher.Crash && t.Stack != "" {
			fmt.Fprint(w, indent(t.Stack, maxCrashStackLines))
		}
	}
	for _, ce := range r.ClassErrors {
		fmt.Fprintf(w, "CLASS ERROR in %s: %s\n", ce.Class, report.FirstLine(ce.Message))
	}
	writeNotes(w, r)
	_, err := fmt.Fprintln(w, summary(r))
	return err
}

// writeNotes prints what the driver ignored, refused or cleaned up.
func writeNotes(w io.Writer, r *launcher.Result) {
	for _, n := range r.Notes {
		fmt.Fprint(w, "note: "+strings.TrimPrefix(indent(n, maxMessageLines), "        "))
	}
}

// indent returns the first max lines of msg, each indented, with a note
// about the rest.
func indent(msg string, max int) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(&b, "        ... %d more lines\n", len(lines)-max)
			break
		}
		b.WriteString("        " + l + "\n")
	}
	return b.String()
}

// summary counts the outcomes, e.g. "3 tests: 2 passed, 1 failed (1.2s)",
// and notes a JVM that was killed or ended early.
func summary(r *launcher.Result) string {
	words := []struct {
		outcome launcher.Outcome
		word    string
	}{
		{"pass", "passed"}, {"fail", "failed"}, {"error", "errored"}, {"skipped", "skipped"},
		{"timeout", "timed out"}, {"crash", "crashed"}, {"not-run", "not run"},
	}
	counts := map[launcher.Outcome]int{}
	for _, t := range r.Tests {
		counts[t.Outcome]++
	}
	var parts []string
	for _, w := range words {
		if n := counts[w.outcome]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, w.word))
		}
	}
	noun := "tests"
	if len(r.Tests) == 1 {
		noun = "test"
	}
	s := fmt.Sprintf("%d %s: %s (%s)", len(r.Tests), noun, strings.Join(parts, ", "), r.Duration.Round(10*time.Millisecond))
	if n := len(r.ClassErrors); n > 0 {
		s += fmt.Sprintf("; %d class fixture errors", n)
	}
	if r.TimedOut && counts["timeout"] == 0 {
		s += "; the JVM was killed at the timeout"
	} else if r.Exit.SystemExit && counts["crash"] == 0 {
		s += fmt.Sprintf("; System.exit(%d) was called outside a test", r.Exit.Status)
	}
	return s
}
