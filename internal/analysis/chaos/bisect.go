package chaos

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// sitesDetail starts the Evidence.Detail of a bisection run: ITERATION_ORDER
// at only some of the finding's call sites.
const sitesDetail = "only at: "

// bisection is the search, for one ITERATION_ORDER finding, of the call
// sites whose shuffling alone makes its test fail, as NonDex's debug mode
// does: the candidates start as every site the test hit; each round runs
// the test with only the first half of them shuffled (the others iterate
// in real order) and keeps that half when the test fails, else tries the
// second half; when neither half fails on its own, the candidates are the
// answer together.
type bisection struct {
	candidates []report.CallSite
	// second says this round tries the candidates' second half.
	second bool
	done   bool
}

// half is the part of the candidates this round shuffles.
func (b *bisection) half() []report.CallSite {
	mid := len(b.candidates) / 2
	if b.second {
		return b.candidates[mid:]
	}
	return b.candidates[:mid]
}

// next moves the search on from a run of half() in which the test failed
// or not.
func (b *bisection) next(failed bool) {
	switch {
	case failed:
		b.candidates, b.second = b.half(), false
	case !b.second:
		b.second = true
		return
	default:
		b.done = true
		return
	}
	b.done = len(b.candidates) < 2
}

// siteKey names a call site as the agent's chaos.iteration.sites option
// does: class#method:line (every API called on that line).
func siteKey(c report.CallSite) string { return fmt.Sprintf("%s#%s:%d", c.Class, c.Method, c.Line) }

// onlySites returns settings that shuffle iteration at sites only.
func onlySites(settings Settings, sites []report.CallSite) (Settings, string) {
	keys := make([]string, len(sites))
	for i, c := range sites {
		keys[i] = siteKey(c)
	}
	value := strings.Join(keys, "+")
	settings.Params = append(append([]string(nil), settings.Params...), "iteration.sites="+value)
	return settings, sitesDetail + value
}

// bisectable reports whether the sites of f can be bisected: an attributed
// ITERATION_ORDER finding with two or more call sites at project call
// sites (iteration.scope=all attributes the JDK's iteration to sites only
// after the fact, which cannot be shuffled alone).
func (a *analysis) bisectable(f *Finding) bool {
	if !attributed(f) || f.Strategies[0].ID != "ITERATION_ORDER" || len(f.CallSites) < 2 {
		return false
	}
	for _, p := range a.cfg.Settings.Params {
		if k, v := paramKey(p); k == "iteration.scope" && strings.EqualFold(strings.TrimSpace(v), "all") {
			return false
		}
	}
	return true
}

// bisectSites ranks the call sites of each ITERATION_ORDER finding by
// evidence: within the budget it bisects them (see bisection) and, when the
// search ends, keeps only the sites whose shuffling alone made the test
// fail, marked Flips; the others (order-independent loops such as a
// harness closing each connection) did not matter. A finding whose search
// the budget cut keeps all its sites, unmarked.
func (a *analysis) bisectSites(ctx context.Context) error {
	searches := map[*Finding]*bisection{}
	for i := range a.res.Findings {
		if f := &a.res.Findings[i]; a.bisectable(f) {
			searches[f] = &bisection{candidates: f.CallSites}
		}
	}
	for len(searches) > 0 && !a.res.Interrupted && !a.pastDeadline() {
		heard := map[*Finding]bool{}
		err := a.confirmRound(ctx, "with iteration shuffled at some call sites only", func(f *Finding) ([]string, Settings, string, bool) {
			b, ok := searches[f]
			if !ok {
				return nil, Settings{}, "", false
			}
			settings, detail := onlySites(a.cfg.Settings, b.half())
			return f.Order, settings, detail, true
		}, func(f *Finding, failed bool, _ []string) {
			heard[f] = true
			searches[f].next(failed)
		})
		if err != nil {
			return fmt.Errorf("bisecting call sites: %w", err)
		}
		for f, b := range searches {
			if !heard[f] {
				delete(searches, f) // its run did not get to the test: no evidence
			} else if b.done {
				f.CallSites = flipping(b.candidates)
				delete(searches, f)
			}
		}
	}
	return nil
}

// flipping returns sites marked as the ones whose shuffling alone made the
// test fail.
func flipping(sites []report.CallSite) []report.CallSite {
	out := make([]report.CallSite, len(sites))
	for i, c := range sites {
		c.Flips = true
		out[i] = c
	}
	return out
}

// pastDeadline reports whether the budget has ended.
func (a *analysis) pastDeadline() bool {
	limit := a.limit()
	return !limit.IsZero() && !limit.After(time.Now())
}
