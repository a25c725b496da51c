package chaos

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

// TestControlsLikeTheFailingRun gives a finding control runs like its
// reproduce order: a test exposed whenever it runs first in a JVM passes
// the first control runs, second after another failing test of its class,
// fails alone with its strategy, and fails alone unperturbed too: flaky
// without perturbation, with its rates, not a finding (#54 point 3).
func TestControlsLikeTheFailingRun(t *testing.T) {
	const combined = "chaos=RANDOM_MAX+LOCALE"
	r := &fakeRunner{suite: map[string]behaviour{
		"p.C#w": {sites: map[string][]siteAt{"LOCALE": {localeSite}}, fails: anyOf("LOCALE")},
		"p.C#x": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf(combined, "first:p.C#x")},
	}}
	res, err := Run(context.Background(), r, Config{Tests: []string{"p.C#w", "p.C#x"}, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summarize(res.Findings), []summary{{"p.C#w", "LOCALE", true, []report.CallSite{cs(localeSite)}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	// The suite's run and five control runs after p.C#w passed; the five alone failed.
	if want := []NOD{{Test: "p.C#x", Runs: 11, Failures: 5, PerturbedRuns: 1, PerturbedFailures: 1}}; !reflect.DeepEqual(rates(res.NOD), want) {
		t.Fatalf("nod = %+v, want %+v", rates(res.NOD), want)
	}
	if !slices.Equal(res.NOD[0].Order, []string{"p.C#x"}) {
		t.Errorf("nod order %q, want the test alone", res.NOD[0].Order)
	}
	// p.C#w's reproduce order is the test alone, as in the first control runs: it needs no more.
	var alone []string
	for _, j := range r.jobs {
		if len(encoded(j.AgentOptions)) == 0 && len(j.Order) == 1 {
			alone = append(alone, j.Order[0])
		}
	}
	if want := []string{"p.C#x", "p.C#x", "p.C#x", "p.C#x", "p.C#x"}; !slices.Equal(alone, want) {
		t.Errorf("unperturbed runs of one test: %q, want %q", alone, want)
	}
}

// TestDismissedGetControls gives the tests whose perturbed failures are
// dismissed as a framework's timeout the control runs a failure gets: one
// that fails one of them is flaky without perturbation, no longer
// dismissed; one that passes them stays dismissed.
func TestDismissedGetControls(t *testing.T) {
	timeout := func(failOn ...int) behaviour {
		runs := 0
		return behaviour{ftype: "org.junit.runners.model.TestTimedOutException", message: "test timed out after 2000 milliseconds",
			fails: func(map[string]bool) bool { runs++; return slices.Contains(failOn, runs) }}
	}
	r := &fakeRunner{suite: map[string]behaviour{
		// Times out in the combined run (its first) and in the second control run (its fourth).
		"p.T#flaky": timeout(1, 4),
		// Times out in the combined run only.
		"p.T#patient": timeout(1),
	}}
	res, err := Run(context.Background(), r, Config{Tests: []string{"p.T#flaky", "p.T#patient"}, Mode: Combined, Strategies: mustLookup("SLEEP_INCREASE", "LOCALE"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []NOD{{Test: "p.T#flaky", Runs: 6, Failures: 1, PerturbedRuns: 1}}; !reflect.DeepEqual(rates(res.NOD), want) {
		t.Errorf("nod = %+v, want %+v", rates(res.NOD), want)
	}
	if len(res.Dismissed) != 1 || res.Dismissed[0].Test != "p.T#patient" {
		t.Errorf("dismissed = %+v, want p.T#patient only", res.Dismissed)
	}
	if len(res.Findings) > 0 {
		t.Errorf("findings %+v, want none", summarize(res.Findings))
	}
}

// TestInterruptDuringLikeForLike keeps what the control runs like the
// reproduce orders judged before an interruption: the exposed test failed
// the one that ran, and is flaky without perturbation, not a finding.
func TestInterruptDuringLikeForLike(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &fakeRunner{cancel: cancel, suite: map[string]behaviour{
		"p.C#w": {sites: map[string][]siteAt{"LOCALE": {localeSite}}, fails: anyOf("LOCALE")},
		"p.C#x": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("chaos=RANDOM_MAX+LOCALE", "first:p.C#x")},
	}}
	// Each call runs one job: the combined and unperturbed runs, five control runs, attribution's first round and
	// the again runs beside it, then the first control run of p.C#x alone; the second is cancelled.
	r.cancelAt = 2 + 5 + 4 + 2
	res, err := Run(ctx, r, Config{Tests: []string{"p.C#w", "p.C#x"}, Mode: Combined, Strategies: mustLookup("RANDOM_MAX", "LOCALE"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Cut != "the control runs" {
		t.Errorf("interrupted %v during %q, want during the control runs", res.Interrupted, res.Cut)
	}
	if want := []NOD{{Test: "p.C#x", Runs: 7, Failures: 1, PerturbedRuns: 1, PerturbedFailures: 1}}; !reflect.DeepEqual(rates(res.NOD), want) {
		t.Errorf("nod = %+v, want %+v", rates(res.NOD), want)
	}
	if slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Test == "p.C#x" }) {
		t.Errorf("p.C#x is a finding: %+v", summarize(res.Findings))
	}
}
