package chaos

import (
	"cmp"
	"slices"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// site is a perturbed call site a run reported.
type site struct {
	strategy, group string
	report.CallSite
}

// sitesHit returns the perturbed call sites accepted by keep that test hit
// in r: the ones hit during the test, or, when there are none, the ones hit
// in its class's fixtures and static initialisers.
func sitesHit(r *launcher.Result, test string, keep func(strategy, group string) bool) []site {
	class := testid.ClassOf(test)
	var own, fixtures []site
	for _, p := range r.Perturbations {
		if !keep(p.Strategy, p.Group) {
			continue
		}
		s := site{strategy: p.Strategy, group: p.Group, CallSite: report.CallSite{Class: p.Class, Method: p.Method, File: p.File, Line: p.Line, API: p.API}}
		switch p.Test {
		case test:
			own = append(own, s)
		case class:
			fixtures = append(fixtures, s)
		}
	}
	if len(own) > 0 {
		return own
	}
	return fixtures
}

// callSites returns the call sites of sitesHit, deduplicated and sorted by
// class, line and API; nil when there are none.
func callSites(r *launcher.Result, test string, keep func(strategy, group string) bool) []report.CallSite {
	var out []report.CallSite
	for _, s := range sitesHit(r, test, keep) {
		if !slices.Contains(out, s.CallSite) {
			out = append(out, s.CallSite)
		}
	}
	slices.SortFunc(out, func(a, b report.CallSite) int {
		return cmp.Or(cmp.Compare(a.Class, b.Class), cmp.Compare(a.Line, b.Line), cmp.Compare(a.API, b.API), cmp.Compare(a.Method, b.Method), cmp.Compare(a.File, b.File))
	})
	return out
}
