package launcher

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

type timed struct {
	ms  int
	msg agent.Message
}

func start(ms int, test string, index int) timed {
	return timed{ms, &agent.TestStart{Test: test, Index: index}}
}

func end(ms int, test string, index int, outcome string) timed {
	return timed{ms, &agent.TestEnd{Test: test, Index: index, Outcome: outcome, TimeMs: 1}}
}

func TestAssemble(t *testing.T) {
	tests := []struct {
		name      string
		order     []string
		events    []timed
		ending    ending
		endMs     int
		want      []TestResult
		wantExit  Exit
		checkMsgs map[string]string // test -> substring its message must contain
	}{
		{
			name:  "all pass",
			order: []string{"p.A#a", "p.A#b"},
			events: []timed{
				{0, &agent.RunStart{Count: 2}},
				{0, &agent.ClassStart{Class: "p.A"}},
				start(1, "p.A#a", 0), end(2, "p.A#a", 0, "pass"),
				start(2, "p.A#b", 1), end(3, "p.A#b", 1, "fail"),
				{4, &agent.ClassEnd{Class: "p.A"}},
				{4, &agent.RunEnd{Count: 2}},
			},
			want: []TestResult{
				{Test: "p.A#a", Outcome: Pass, TimeMs: 1},
				{Test: "p.A#b", Outcome: Fail, TimeMs: 1, Message: "fail (no message)"},
			},
		},
		{
			name:  "missing results become not-run in order",
			order: []string{"p.A#a", "p.A#b", "p.B#c"},
			events: []timed{
				{0, &agent.RunStart{Count: 3}},
				start(1, "p.A#b", 1), end(2, "p.A#b", 1, "pass"),
				{4, &agent.RunEnd{Count: 1}},
			},
			want: []TestResult{
				{Test: "p.A#b", Outcome: Pass, TimeMs: 1},
				{Test: "p.A#a", Outcome: NotRun},
				{Test: "p.B#c", Outcome: NotRun},
			},
		},
		{
			name:  "template invocations answer their entry",
			order: []string{"p.A#t", "p.A#u[2]"},
			events: []timed{
				{0, &agent.RunStart{Count: 2}},
				start(1, "p.A#t[1]", 0), end(2, "p.A#t[1]", 0, "pass"),
				start(2, "p.A#t[2]", 0), end(3, "p.A#t[2]", 0, "fail"),
				start(3, "p.A#u[2]", 1), end(4, "p.A#u[2]", 1, "pass"),
				{5, &agent.RunEnd{Count: 3}},
			},
			want: []TestResult{
				{Test: "p.A#t[1]", Outcome: Pass, TimeMs: 1},
				{Test: "p.A#t[2]", Outcome: Fail, TimeMs: 1, Message: "fail (no message)"},
				{Test: "p.A#u[2]", Outcome: Pass, TimeMs: 1},
			},
		},
		{
			name:  "prefix of another method is no match",
			order: []string{"p.A#test", "p.A#test2"},
			events: []timed{
				{0, &agent.RunStart{Count: 2}},
				end(1, "p.A#test2", -1, "pass"),
				{5, &agent.RunEnd{Count: 1}},
			},
			want: []TestResult{
				{Test: "p.A#test2", Outcome: Pass, TimeMs: 1},
				{Test: "p.A#test", Outcome: NotRun},
			},
		},
		{
			name:  "repeated entry matched by index",
			order: []string{"p.A#a", "p.A#a"},
			events: []timed{
				{0, &agent.RunStart{Count: 2}},
				start(1, "p.A#a", 1), end(2, "p.A#a", 1, "fail"),
				{5, &agent.RunEnd{Count: 1}},
			},
			want: []TestResult{
				{Test: "p.A#a", Outcome: Fail, TimeMs: 1, Message: "fail (no message)"},
				{Test: "p.A#a", Outcome: NotRun},
			},
		},
		{
			name:  "bad index falls back to the first unanswered entry",
			order: []string{"p.A#a", "p.A#a"},
			events: []timed{
				{0, &agent.RunStart{Count: 2}},
				end(1, "p.A#a", 7, "pass"),
				end(2, "p.A#a", 7, "pass"),
				{5, &agent.RunEnd{Count: 2}},
			},
			want: []TestResult{
				{Test: "p.A#a", Outcome: Pass, TimeMs: 1},
				{Test: "p.A#a", Outcome: Pass, TimeMs: 1},
			},
		},
		{
			name:  "killed while a test runs: timeout, later not-run",
			order: []string{"p.A#a", "p.A#hang", "p.A#c"},
			events: []timed{
				{0, &agent.RunStart{Count: 3}},
				{0, &agent.ClassStart{Class: "p.A"}},
				start(1, "p.A#a", 0), end(2, "p.A#a", 0, "pass"),
				start(10, "p.A#hang", 1),
			},
			ending: ending{killed: "timed out after 3s", status: -1, signal: "SIGKILL"},
			endMs:  3010,
			want: []TestResult{
				{Test: "p.A#a", Outcome: Pass, TimeMs: 1},
				{Test: "p.A#hang", Outcome: Timeout, TimeMs: 3000, Message: "timed out after 3s"},
				{Test: "p.A#c", Outcome: NotRun},
			},
			wantExit: Exit{Status: -1, Signal: "SIGKILL"},
		},
		{
			name:  "System.exit while a test runs: crash with the exit stack",
			order: []string{"p.A#a", "p.A#exit", "p.B#c"},
			events: []timed{
				{0, &agent.RunStart{Count: 3}},
				start(1, "p.A#a", 0), end(2, "p.A#a", 0, "pass"),
				start(5, "p.A#exit", 1),
				{6, &agent.Exit{Status: 1, Test: "p.A#exit", Class: "p.A", Stack: "at java.lang.System.exit"}},
			},
			ending: ending{status: 1},
			endMs:  7,
			want: []TestResult{
				{Test: "p.A#a", Outcome: Pass, TimeMs: 1},
				{Test: "p.A#exit", Outcome: Crash, TimeMs: 2, Message: "System.exit(1) was called", Stack: "at java.lang.System.exit"},
				{Test: "p.B#c", Outcome: NotRun},
			},
			wantExit: Exit{Status: 1, SystemExit: true, Stack: "at java.lang.System.exit"},
		},
		{
			name:  "exit status unknown to the agent comes from the process",
			order: []string{"p.A#exit"},
			events: []timed{
				{0, &agent.RunStart{Count: 1}},
				start(1, "p.A#exit", 0),
				{2, &agent.Exit{Status: -1, Test: "p.A#exit", Class: "p.A"}},
			},
			ending:   ending{status: 1},
			endMs:    3,
			want:     []TestResult{{Test: "p.A#exit", Outcome: Crash, TimeMs: 2, Message: "System.exit(1) was called"}},
			wantExit: Exit{Status: 1, SystemExit: true},
		},
		{
			name:  "exit event names the test when no test-start arrived",
			order: []string{"p.A#a", "p.A#b"},
			events: []timed{
				{0, &agent.RunStart{Count: 2}},
				{6, &agent.Exit{Status: 2, Test: "p.A#b", Class: "p.A"}},
			},
			ending: ending{status: 2},
			endMs:  7,
			want: []TestResult{
				{Test: "p.A#b", Outcome: Crash, Message: "System.exit(2) was called"},
				{Test: "p.A#a", Outcome: NotRun},
			},
			wantExit: Exit{Status: 2, SystemExit: true},
		},
		{
			name:  "JVM died: crash with signal and output tail",
			order: []string{"p.A#a", "p.A#b"},
			events: []timed{
				{0, &agent.RunStart{Count: 2}},
				start(1, "p.A#a", 0),
			},
			ending: ending{status: -1, signal: "SIGSEGV", output: "line1\n# A fatal error has been detected\n# hs_err_pid42.log\n"},
			endMs:  11,
			want: []TestResult{
				{Test: "p.A#a", Outcome: Crash, TimeMs: 10},
				{Test: "p.A#b", Outcome: NotRun},
			},
			wantExit: Exit{Status: -1, Signal: "SIGSEGV"},
			checkMsgs: map[string]string{
				"p.A#a": "the JVM died (killed by SIGSEGV); output tail:\nline1\n# A fatal error has been detected\n# hs_err_pid42.log",
			},
		},
		{
			name:  "JVM died with a status",
			order: []string{"p.A#a"},
			events: []timed{
				{0, &agent.RunStart{Count: 1}},
				start(1, "p.A#a", 0),
			},
			ending:    ending{status: 3, output: "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n"},
			endMs:     2,
			want:      []TestResult{{Test: "p.A#a", Outcome: Crash, TimeMs: 1}},
			wantExit:  Exit{Status: 3},
			checkMsgs: map[string]string{"p.A#a": "the JVM died (exit status 3); output tail:\nException in thread \"main\" java.lang.OutOfMemoryError"},
		},
		{
			name:  "hang in class fixtures: next test of that class times out",
			order: []string{"p.A#a", "p.B#b", "p.B#c"},
			events: []timed{
				{0, &agent.RunStart{Count: 3}},
				start(1, "p.A#a", 0), end(2, "p.A#a", 0, "pass"),
				{3, &agent.ClassEnd{Class: "p.A"}},
				{3, &agent.ClassStart{Class: "p.B"}},
			},
			ending: ending{killed: "timed out after 1s", status: -1, signal: "SIGKILL"},
			endMs:  1003,
			want: []TestResult{
				{Test: "p.A#a", Outcome: Pass, TimeMs: 1},
				{Test: "p.B#b", Outcome: Timeout, TimeMs: 1000, Message: "in the class fixtures of p.B: timed out after 1s"},
				{Test: "p.B#c", Outcome: NotRun},
			},
			wantExit: Exit{Status: -1, Signal: "SIGKILL"},
		},
		{
			name:  "hang in @AfterClass: nobody to blame",
			order: []string{"p.A#a", "p.B#b"},
			events: []timed{
				{0, &agent.RunStart{Count: 2}},
				{0, &agent.ClassStart{Class: "p.A"}},
				start(1, "p.A#a", 0), end(2, "p.A#a", 0, "pass"),
			},
			ending: ending{killed: "timed out", status: -1, signal: "SIGKILL"},
			endMs:  1003,
			want: []TestResult{
				{Test: "p.A#a", Outcome: Pass, TimeMs: 1},
				{Test: "p.B#b", Outcome: NotRun},
			},
			wantExit: Exit{Status: -1, Signal: "SIGKILL"},
		},
		{
			name:   "died before run-start",
			order:  []string{"p.A#a"},
			ending: ending{status: 1},
			want:   []TestResult{{Test: "p.A#a", Outcome: NotRun}},
			wantExit: Exit{
				Status: 1,
			},
		},
		{
			name:  "killed after run-end changes nothing",
			order: []string{"p.A#a"},
			events: []timed{
				{0, &agent.RunStart{Count: 1}},
				start(1, "p.A#a", 0), end(2, "p.A#a", 0, "pass"),
				{3, &agent.RunEnd{Count: 1}},
			},
			ending:   ending{killed: "the run timed out", status: -1, signal: "SIGKILL"},
			want:     []TestResult{{Test: "p.A#a", Outcome: Pass, TimeMs: 1}},
			wantExit: Exit{Status: -1, Signal: "SIGKILL"},
		},
		{
			name:  "unknown test reported by the runner is kept",
			order: []string{"p.A#missing"},
			events: []timed{
				{0, &agent.RunStart{Count: 1}},
				{1, &agent.TestEnd{Test: "p.A#missing", Index: 0, Outcome: "error", FailureType: "flaky.TestNotFound", Message: "no such test"}},
				{2, &agent.RunEnd{Count: 1}},
			},
			want: []TestResult{{Test: "p.A#missing", Outcome: Error, FailureType: "flaky.TestNotFound", Message: "no such test"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAssembler(tt.order)
			for _, ev := range tt.events {
				a.handle(ev.msg, at(ev.ms))
			}
			got, exit := a.finish(tt.ending, at(tt.endMs))
			for i := range got {
				if sub, ok := tt.checkMsgs[got[i].Test]; ok {
					if !strings.Contains(got[i].Message, sub) {
						t.Errorf("%s message %q lacks %q", got[i].Test, got[i].Message, sub)
					}
					got[i].Message = ""
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tests:\n got %+v\nwant %+v", got, tt.want)
			}
			if exit != tt.wantExit {
				t.Errorf("exit = %+v, want %+v", exit, tt.wantExit)
			}
		})
	}
}

func TestClassErrorsKept(t *testing.T) {
	a := newAssembler([]string{"p.A#a"})
	ce := &agent.ClassError{Class: "p.A", FailureType: "java.lang.IllegalStateException", Message: "teardown"}
	a.handle(ce, t0)
	if !reflect.DeepEqual(a.classErrors, []agent.ClassError{*ce}) {
		t.Errorf("class errors = %+v", a.classErrors)
	}
}

func TestParseOutcome(t *testing.T) {
	for wire, want := range map[string]Outcome{
		"pass": Pass, "fail": Fail, "error": Error, "skipped": Skipped, "assumption": Skipped,
	} {
		if got := ParseOutcome(wire); got != want {
			t.Errorf("ParseOutcome(%q) = %q, want %q", wire, got, want)
		}
	}
	for o, want := range map[Outcome]bool{Pass: false, Fail: true, Error: true, Skipped: false, Timeout: true, Crash: true, NotRun: false} {
		if o.Failed() != want {
			t.Errorf("%s.Failed() = %v", o, !want)
		}
	}
}

func TestClassScopesCounted(t *testing.T) {
	a := newAssembler([]string{"p.A#a", "p.B#b", "p.A#c", "p.A#c"})
	for _, m := range []agent.Message{
		&agent.RunStart{Count: 4},
		&agent.ClassStart{Class: "p.A"}, &agent.ClassEnd{Class: "p.A"},
		&agent.ClassStart{Class: "p.B"}, &agent.ClassEnd{Class: "p.B"},
		&agent.ClassStart{Class: "p.A"}, &agent.ClassEnd{Class: "p.A"},
		&agent.RunEnd{Count: 0},
	} {
		a.handle(m, t0)
	}
	if want := map[string]int{"p.A": 2, "p.B": 1}; !reflect.DeepEqual(a.classScopes, want) {
		t.Errorf("class scopes = %v, want %v", a.classScopes, want)
	}
}

func TestDeadline(t *testing.T) {
	tests := []struct {
		name    string
		events  []timed
		timeout time.Duration
		want    time.Time
	}{
		{name: "off", events: []timed{{0, &agent.RunStart{}}}, timeout: 0},
		{name: "before run-start", timeout: time.Second},
		{name: "after run-start", events: []timed{{5, &agent.RunStart{}}}, timeout: time.Second, want: at(1005)},
		{name: "test start resets", events: []timed{{0, &agent.RunStart{}}, start(50, "p.A#a", 0)}, timeout: time.Second, want: at(1050)},
		{name: "class start resets", events: []timed{{0, &agent.RunStart{}}, {70, &agent.ClassStart{Class: "p.A"}}}, timeout: time.Second, want: at(1070)},
		{name: "log does not reset", events: []timed{{0, &agent.RunStart{}}, {70, &agent.Log{Message: "x"}}}, timeout: time.Second, want: at(1000)},
		{name: "run-end disarms", events: []timed{{0, &agent.RunStart{}}, {9, &agent.RunEnd{}}}, timeout: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAssembler(nil)
			for _, ev := range tt.events {
				a.handle(ev.msg, at(ev.ms))
			}
			if got := a.deadline(tt.timeout); !got.Equal(tt.want) {
				t.Errorf("deadline = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTailLines(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"\n\n", 3, ""},
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb", 5, "a\nb"},
	}
	for _, tt := range tests {
		if got := tailLines(tt.in, tt.n); got != tt.want {
			t.Errorf("tailLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// A failure's message is never empty: without one, its type and first frame.
func TestMessageOf(t *testing.T) {
	for _, c := range []struct {
		t    TestResult
		want string
	}{
		{TestResult{Outcome: Fail, Message: "boom"}, "boom"},
		{TestResult{Outcome: Error, FailureType: "java.lang.NullPointerException", Stack: "java.lang.NullPointerException\n\tat p.A.run(A.java:3)\n\tat p.ATest.t(ATest.java:9)\n"},
			"java.lang.NullPointerException (no message) (at p.A.run(A.java:3))"},
		{TestResult{Outcome: Fail}, "fail (no message)"},
		{TestResult{Outcome: Pass}, ""},
		{TestResult{Outcome: Skipped}, ""},
	} {
		if got := messageOf(c.t); got != c.want {
			t.Errorf("messageOf(%+v) = %q, want %q", c.t, got, c.want)
		}
	}
}

func TestAssemblerTimeout(t *testing.T) {
	a := newAssembler([]string{"p.A#fast", "p.A#slow", "p.P#t"})
	per := map[string]time.Duration{"p.A#fast": 3 * time.Second, "p.A#slow": 5 * time.Minute, "p.P#t": 4 * time.Second}
	for _, c := range []struct {
		current *running
		dflt    time.Duration
		want    time.Duration
	}{
		{nil, 2 * time.Minute, 2 * time.Minute}, // class fixtures, between tests
		{&running{test: "p.A#fast", index: 0}, 2 * time.Minute, 3 * time.Second},
		{&running{test: "p.A#slow", index: 1}, 2 * time.Minute, 2 * time.Minute}, // never longer than the default
		{&running{test: "p.A#slow", index: 1}, 0, 5 * time.Minute},
		{&running{test: "p.P#t[2]", index: 2}, 2 * time.Minute, 4 * time.Second}, // an invocation: its entry's
		{&running{test: "p.X#y", index: 7}, time.Minute, time.Minute},
	} {
		a.current = c.current
		if got := a.timeout(c.dflt, per); got != c.want {
			t.Errorf("timeout(%s) with %+v = %s, want %s", c.dflt, c.current, got, c.want)
		}
	}
}

func TestOnTestEndReportsEachResultWithItsSites(t *testing.T) {
	a := newAssembler([]string{"p.A#a", "p.A#b", "p.B#c"})
	type call struct {
		test  string
		sites []string
	}
	var got []call
	a.onTestEnd = func(r TestResult, sites []agent.Perturbation) {
		c := call{test: r.Test + " " + string(r.Outcome)}
		for _, p := range sites {
			c.sites = append(c.sites, p.Test+" "+p.API)
		}
		got = append(got, c)
	}
	for _, e := range []timed{
		{0, &agent.RunStart{Count: 3}},
		{0, &agent.ClassStart{Class: "p.A"}},
		{0, &agent.Perturbation{Test: "p.A", API: "fixture"}},
		start(1, "p.A#a", 0),
		{1, &agent.Perturbation{Test: "p.A#a", API: "random"}},
		end(2, "p.A#a", 0, "fail"),
		start(2, "p.A#b", 1), end(3, "p.A#b", 1, "pass"),
		{4, &agent.ClassEnd{Class: "p.A"}},
		{4, &agent.ClassStart{Class: "p.B"}},
		start(4, "p.B#c", 2),
		{5, &agent.Perturbation{Test: "p.B#c", API: "clock"}},
	} {
		a.handle(e.msg, t0.Add(time.Duration(e.ms)*time.Millisecond))
	}
	want := []call{
		{test: "p.A#a fail", sites: []string{"p.A fixture", "p.A#a random"}},
		{test: "p.A#b pass", sites: []string{"p.A fixture"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %v, want %v (p.B#c has not ended)", got, want)
	}
}
