package chaos

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// TestFindingsNeedEvidence names a strategy for a failure only when a run
// the test failed with it perturbed a call during the test: the strategy
// that did, among those that failed it, even beyond the specification; a
// test that failed with a strategy that perturbed none of its calls is
// dismissed, saying why, not a finding (#54 point 2).
func TestFindingsNeedEvidence(t *testing.T) {
	r := &fakeRunner{suite: map[string]behaviour{
		"p.A#dice": {sites: map[string][]siteAt{"RANDOM": {diceSite}}, fails: anyOf("RANDOM_MAX")},
		// Fails with RANDOM_MAX, which perturbs no call of it.
		"p.A#silent": {fails: anyOf("RANDOM_MAX")},
		// Fails with LOCALE, which perturbs no call of it, and with SLEEP_DECREASE, which does.
		"p.A#sleepy": {sites: map[string][]siteAt{"SLEEP": {sleepSite}}, fails: anyOf("LOCALE", "SLEEP_DECREASE")},
	}}
	order := []string{"p.A#dice", "p.A#silent", "p.A#sleepy"}
	res, err := Run(context.Background(), r, Config{Tests: order, Mode: Single, Strategies: mustLookup("LOCALE", "SLEEP_DECREASE", "RANDOM_MAX"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{
		{"p.A#dice", "RANDOM_MAX", true, []report.CallSite{cs(diceSite)}},
		{"p.A#sleepy", "SLEEP_DECREASE", true, []report.CallSite{cs(sleepSite)}},
	}
	if got := summarize(res.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
	if len(res.Dismissed) != 1 || res.Dismissed[0].Test != "p.A#silent" || res.Dismissed[0].Strategy != "RANDOM_MAX" ||
		!strings.HasSuffix(res.Dismissed[0].Why, "it failed with RANDOM_MAX perturbed a call during it or its class's fixtures: nothing ties the failure to RANDOM_MAX") {
		t.Errorf("dismissed = %+v, want p.A#silent under RANDOM_MAX, untied", res.Dismissed)
	}
	if len(res.Suspected)+len(res.NOD) > 0 {
		t.Errorf("suspected %+v, nod %+v: want none", res.Suspected, res.NOD)
	}
}

// TestTied checks which failing runs tie a finding to its strategies: its
// own failures in runs that perturbed a call of one of them.
func TestTied(t *testing.T) {
	random, locale := mustLookup("RANDOM_MAX"), mustLookup("LOCALE")
	tests := []struct {
		name       string
		evidence   []Evidence
		want       bool
		wantFailed int
	}{
		{"a failure perturbed by the strategy", []Evidence{{Strategies: random, Outcome: launcher.Fail, own: true, perturbed: []string{"RANDOM_MAX"}}}, true, 0},
		{"a failure perturbed by another strategy", []Evidence{{Strategies: slices.Concat(random, locale), Outcome: launcher.Fail, own: true, perturbed: []string{"LOCALE"}}}, false, 1},
		{"a pass perturbed", []Evidence{{Strategies: random, Outcome: launcher.Pass, perturbed: []string{"RANDOM_MAX"}}, {Strategies: random, Outcome: launcher.Fail, own: true}}, false, 1},
		{"the machinery's failure perturbed", []Evidence{{Strategies: random, Outcome: launcher.Error, perturbed: []string{"RANDOM_MAX"}}}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Finding{Strategies: random, Evidence: tt.evidence}
			if got, failed := f.tied(); got != tt.want || failed != tt.wantFailed {
				t.Errorf("tied() = %v, %d; want %v, %d", got, failed, tt.want, tt.wantFailed)
			}
		})
	}
}
