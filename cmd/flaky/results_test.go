package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

func TestWriteText(t *testing.T) {
	tests := []struct {
		name   string
		result launcher.Result
		want   string
	}{
		{
			name: "passes and a failure",
			result: launcher.Result{
				Duration: 1234 * time.Millisecond,
				Tests: []launcher.TestResult{
					{Test: "pkg.C#m", Outcome: launcher.Pass, TimeMs: 12},
					{Test: "pkg.C#slow", Outcome: launcher.Pass, TimeMs: 1500},
					{Test: "pkg.D#f", Outcome: launcher.Fail, TimeMs: 3, Message: "expected:<1> but was:<2>"},
					{Test: "pkg.D#g", Outcome: launcher.NotRun},
				},
			},
			want: "" +
				"PASS      12ms  pkg.C#m\n" +
				"PASS    1500ms  pkg.C#slow\n" +
				"FAIL       3ms  pkg.D#f\n" +
				"        expected:<1> but was:<2>\n" +
				"NOT-RUN      -  pkg.D#g\n" +
				"4 tests: 2 passed, 1 failed, 1 not run (1.23s)\n",
		},
		{
			name: "skipped, crash message multi-line",
			result: launcher.Result{
				Tests: []launcher.TestResult{
					{Test: "a.B#c", Outcome: launcher.Skipped, TimeMs: 1, Message: "assumption failed"},
					{Test: "a.B#d", Outcome: launcher.Crash, TimeMs: 7, Message: "the JVM died (exit status 1); output tail:\nOutOfMemoryError"},
				},
				Exit: launcher.Exit{Status: 1},
			},
			want: "" +
				"SKIPPED 1ms  a.B#c\n" +
				"CRASH   7ms  a.B#d\n" +
				"        the JVM died (exit status 1); output tail:\n" +
				"        OutOfMemoryError\n" +
				"2 tests: 1 skipped, 1 crashed (0s)\n",
		},
		{
			name: "System.exit stack shown, truncated",
			result: launcher.Result{
				Tests: []launcher.TestResult{{Test: "a.B#c", Outcome: launcher.Crash, TimeMs: 2, Message: "System.exit(1) was called",
					Stack: "Thread \"main\" called exit\n\tat java.lang.Runtime.exit\n\tat java.lang.System.exit\n\tat a.B.c(B.java:9)\n\tat 4\n\tat 5\n\tat 6\n\tat 7"}},
				Exit: launcher.Exit{Status: 1, SystemExit: true},
			},
			want: "" +
				"CRASH   2ms  a.B#c\n" +
				"        System.exit(1) was called\n" +
				"        Thread \"main\" called exit\n" +
				"        \tat java.lang.Runtime.exit\n" +
				"        \tat java.lang.System.exit\n" +
				"        \tat a.B.c(B.java:9)\n" +
				"        \tat 4\n" +
				"        \tat 5\n" +
				"        ... 2 more lines\n" +
				"1 test: 1 crashed (0s)\n",
		},
		{
			name: "one test, class error, exit outside a test",
			result: launcher.Result{
				Tests:       []launcher.TestResult{{Test: "a.B#c", Outcome: launcher.Pass, TimeMs: 5}},
				ClassErrors: []agent.ClassError{{Class: "a.B", Message: "teardown broke\nat x"}},
				Exit:        launcher.Exit{Status: 3, SystemExit: true},
			},
			want: "" +
				"PASS    5ms  a.B#c\n" +
				"CLASS ERROR in a.B: teardown broke\n" +
				"1 test: 1 passed (0s); 1 class fixture errors; System.exit(3) was called outside a test\n",
		},
		{
			name: "killed without a running test",
			result: launcher.Result{
				Tests:    []launcher.TestResult{{Test: "a.B#c", Outcome: launcher.NotRun}},
				TimedOut: true,
			},
			want: "" +
				"NOT-RUN -  a.B#c\n" +
				"1 test: 1 not run (0s); the JVM was killed at the timeout\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeText(&b, &tt.result); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestIndentTruncates(t *testing.T) {
	msg := strings.Repeat("line\n", 20)
	got := indent(msg, 3)
	want := "        line\n        line\n        line\n        ... 17 more lines\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWriteJSON(t *testing.T) {
	r := &launcher.Result{Tests: []launcher.TestResult{
		{Test: "a.B#c", Outcome: launcher.Pass, TimeMs: 5},
		{Test: "a.B#d", Outcome: launcher.Skipped, TimeMs: 1, Message: "nope <html> & co", Stack: "at x"},
		{Test: "a.B#e", Outcome: launcher.Timeout, TimeMs: 3000, Message: "timed out"},
		{Test: "a.B#f", Outcome: launcher.NotRun},
	}}
	var b bytes.Buffer
	if err := writeJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<html> & co") {
		t.Errorf("JSON escapes HTML characters:\n%s", b.String())
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"test": "a.B#c", "outcome": "pass", "timeMs": 5.0, "message": ""},
		{"test": "a.B#d", "outcome": "skipped", "timeMs": 1.0, "message": "nope <html> & co"},
		{"test": "a.B#e", "outcome": "timeout", "timeMs": 3000.0, "message": "timed out"},
		{"test": "a.B#f", "outcome": "not-run", "timeMs": 0.0, "message": ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestAllPassed(t *testing.T) {
	tests := []struct {
		outcomes []launcher.Outcome
		want     bool
	}{
		{[]launcher.Outcome{launcher.Pass, launcher.Skipped}, true},
		{[]launcher.Outcome{launcher.Pass, launcher.Fail}, false},
		{[]launcher.Outcome{launcher.Error}, false},
		{[]launcher.Outcome{launcher.Timeout}, false},
		{[]launcher.Outcome{launcher.Crash}, false},
		{[]launcher.Outcome{launcher.Pass, launcher.NotRun}, false},
	}
	for _, tt := range tests {
		r := &launcher.Result{}
		for _, o := range tt.outcomes {
			r.Tests = append(r.Tests, launcher.TestResult{Test: "x", Outcome: o})
		}
		if got := allPassed(r); got != tt.want {
			t.Errorf("allPassed(%v) = %v, want %v", tt.outcomes, got, tt.want)
		}
	}
}
