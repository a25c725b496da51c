package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

func TestFrameworkLimit(t *testing.T) {
	tests := []struct {
		failureType, message string
		want                 time.Duration
		ok                   bool
	}{
		{"org.junit.runners.model.TestTimedOutException", "test timed out after 2000 milliseconds", 2 * time.Second, true},
		{"org.junit.runners.model.TestTimedOutException", "test timed out after 2000 mıllıseconds", 2 * time.Second, true},
		{"java.util.concurrent.TimeoutException", "finishes() timed out after 2 seconds", 2 * time.Second, true},
		{"java.util.concurrent.TimeoutException", "m() timed out after 3 minutes", 3 * time.Minute, true},
		{"java.lang.AssertionError", "test timed out after 2000 milliseconds", 0, false},
		{"java.util.concurrent.TimeoutException", "no result in time", 0, false},
		// JUnit 4.11's own timeout.
		{"java.lang.Exception", "test timed out after 2000 milliseconds", 2 * time.Second, true},
		{"java.lang.Exception", "the job timed out after 2000 milliseconds", 0, false},
		// ExpectedException wraps the timeout in its own assertion.
		{"java.lang.AssertionError", "\nExpected: an instance of org.awaitility.core.ConditionTimeoutException\n     but: <org.junit.runners.model.TestTimedOutException: test timed out after 2000 milliseconds> is a org.junit.runners.model.TestTimedOutException", 2 * time.Second, true},
	}
	for _, tt := range tests {
		got, ok := frameworkLimit(launcher.TestResult{Outcome: launcher.Fail, FailureType: tt.failureType, Message: tt.message})
		if got != tt.want || ok != tt.ok {
			t.Errorf("frameworkLimit(%s: %s) = %s, %v; want %s, %v", tt.failureType, tt.message, got, ok, tt.want, tt.ok)
		}
	}
	// A timeout that is a cause of the failure, in its stack.
	wrapped := launcher.TestResult{Outcome: launcher.Error, FailureType: "java.lang.RuntimeException", Message: "poll failed",
		Stack: "java.lang.RuntimeException: poll failed\n\tat p.Poller.await(Poller.java:9)\nCaused by: org.junit.runners.model.TestTimedOutException: test timed out after 500 milliseconds\n\tat java.lang.Thread.sleep(Native Method)"}
	if got, ok := frameworkLimit(wrapped); !ok || got != 500*time.Millisecond {
		t.Errorf("frameworkLimit(a timeout as cause) = %s, %v; want 500ms, true", got, ok)
	}
}

// recordingRunner records the jobs it is given; every test in them times out.
type recordingRunner struct{ jobs []launcher.Job }

func (l *recordingRunner) RunJobs(_ context.Context, jobs []launcher.Job) ([]*launcher.Result, error) {
	l.jobs = append(l.jobs, jobs...)
	out := make([]*launcher.Result, len(jobs))
	for i, j := range jobs {
		out[i] = &launcher.Result{Order: j.Order, Tests: []launcher.TestResult{{Test: j.Order[0], Outcome: launcher.Timeout}}}
	}
	return out, nil
}

func TestDismiss(t *testing.T) {
	timedOut := launcher.TestResult{Test: "p.T#slow", Outcome: launcher.Error, FailureType: "java.util.concurrent.TimeoutException", Message: "slow() timed out after 2 seconds"}
	tests := []struct {
		name       string
		strategies string
		result     launcher.TestResult
		tookMs     int64
		dismissed  bool
		reruns     int
	}{
		{"a framework timeout far from the limit under SLEEP_INCREASE", "SLEEP_INCREASE", timedOut, 300, true, 0},
		{"a framework timeout near the limit under TIME_SLOW is kept", "TIME_SLOW", timedOut, 1500, false, 0},
		{"a framework timeout under LOCALE is only formatting", "LOCALE", timedOut, 1900, true, 0},
		{"a framework timeout under NETWORK_DELAY is kept", "NETWORK_DELAY", timedOut, 300, false, 0},
		{"an assertion under SLEEP_INCREASE is kept", "SLEEP_INCREASE", launcher.TestResult{Test: "p.T#slow", Outcome: launcher.Fail, Message: "expected done"}, 300, false, 0},
		{"a RANDOM hang is kept without a rerun (the run already limits extremes)", "RANDOM_MAX", launcher.TestResult{Test: "p.T#slow", Outcome: launcher.Timeout}, 10, false, 0},
		{"a hang under TIME is kept", "TIME_INCREMENT", launcher.TestResult{Test: "p.T#slow", Outcome: launcher.Timeout}, 10, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Parse(tt.strategies)
			if err != nil {
				t.Fatal(err)
			}
			runner := &recordingRunner{}
			a := &analysis{cfg: Config{Workers: 1, Log: logs.Printf(t.Logf)}, runner: runner, res: &Result{}, deadline: time.Now().Add(time.Minute),
				baseline: []*launcher.Result{{Tests: []launcher.TestResult{{Test: "p.T#slow", Outcome: launcher.Pass, TimeMs: tt.tookMs}}}}}
			r := &launcher.Result{Tests: []launcher.TestResult{tt.result}}
			a.dismiss(set, r)
			if got := r.Tests[0].Outcome == launcher.Pass; got != tt.dismissed || len(a.res.Dismissed) != map[bool]int{true: 1}[tt.dismissed] {
				t.Errorf("dismissed = %v (%+v), want %v", got, a.res.Dismissed, tt.dismissed)
			}
			if len(runner.jobs) != tt.reruns {
				t.Errorf("%d reruns, want %d", len(runner.jobs), tt.reruns)
			}
		})
	}
}
