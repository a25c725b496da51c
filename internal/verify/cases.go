package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// findingCases makes every finding (of any analysis: OD, NIO, NOD, API) a
// flaky test in the Surefire-format cases: a test with a case that failed in
// every run of the recorded order becomes flaky with those runs; a test
// without a case gets one, with a <flakyFailure> or <flakyError> per failing
// evidence run.
func findingCases(cases []surefire.FlakyCase, findings []report.Finding) []surefire.FlakyCase {
	for _, f := range findings {
		class, method := testid.Split(f.Test)
		if i := slices.IndexFunc(cases, func(c surefire.FlakyCase) bool { return c.Class == class && c.Name == method }); i >= 0 {
			if c := &cases[i]; c.Failed {
				c.Flaky = append([]surefire.Problem{c.Failure}, c.Reruns...)
				c.Failed, c.Failure, c.Reruns = false, surefire.Problem{}, nil
			}
			continue
		}
		c := surefire.FlakyCase{Class: class, Name: method}
		for _, e := range f.Evidence {
			if failure, ok := failureOf(e.Outcome); ok {
				c.Flaky = append(c.Flaky, problemOf(f, failure, e.Run, e.Message))
			}
		}
		if len(c.Flaky) == 0 {
			c.Flaky = append(c.Flaky, problemOf(f, launcher.Fail, string(f.Kind), f.Message))
		}
		cases = append(cases, c)
	}
	return cases
}

// failureOf returns the failing outcome an evidence outcome names: "error",
// or the failure in a tally such as "pass 2, error 1".
func failureOf(outcome string) (launcher.Outcome, bool) {
	for _, part := range strings.Split(outcome, ",") {
		word, _, _ := strings.Cut(strings.TrimSpace(part), " ")
		if o := launcher.Outcome(word); o.Failed() {
			return o, true
		}
	}
	return "", false
}

// problemOf is one failing run of a finding's test for a Surefire report: its
// message, and in the run's output what flaky found and how to reproduce it.
func problemOf(f report.Finding, failure launcher.Outcome, run, message string) surefire.Problem {
	return surefire.Problem{
		Error:     failure != launcher.Fail,
		Message:   report.FirstLine(message),
		Stack:     message,
		SystemOut: fmt.Sprintf("flaky: %s (%s, %s)\nreproduce: %s\n", f.Kind, run, failure, f.Reproduce),
	}
}
