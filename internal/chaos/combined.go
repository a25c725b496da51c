package chaos

import (
	"context"
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/testid"
)

// candidate is a test that failed in the combined run and passed unperturbed.
type candidate struct {
	test   string
	entry  int // its order entry
	result launcher.TestResult
	// suspects are the set's strategies whose groups' call sites the test
	// (or its class's fixtures) hit, all of the set when it hit none;
	// others are the rest of the set, tried when no suspect reproduces it.
	suspects, others []Strategy
	evidence         []Evidence // single-strategy runs that got to the test
	reproduced       []Strategy // strategies that failed it alone, in the order tried
	sites            map[string]*launcher.Result
	unknown          bool // a strategy it needed was not run: the budget ended
}

// singleRun is a run of the order up to entry upTo with one strategy.
type singleRun struct {
	result *launcher.Result
	upTo   int
}

// combined runs all strategies at once, then, for the tests that failed,
// each strategy alone: first those whose call sites they hit, then, for
// tests none of those reproduced, the rest of the set.
func (a *analysis) combined(ctx context.Context) error {
	set := a.cfg.Strategies
	a.res.Strategies = set
	jobs, err := a.jobs(a.cfg.Tests, [][]Strategy{set})
	if err != nil {
		return err
	}
	a.cfg.Logf("running %d tests with %s, and unperturbed", len(a.cfg.Tests), Join(set))
	results, err := a.run(ctx, jobs, len(jobs))
	if err != nil {
		return err
	}
	perturbed := results[0]
	if perturbed == nil {
		return nil // interrupted
	}
	a.noteEarlyEnd(Join(set), perturbed)
	a.setBaseline(results[1:])
	a.reserveAttribution()
	a.phase = "attribution"
	a.dismiss(set, perturbed)
	cands, err := a.controlled(ctx, a.candidates(perturbed), perturbed)
	if err != nil {
		return err
	}
	cov := coverageOf(string(Combined), set, perturbed)
	if len(set) == 1 {
		for _, c := range cands {
			c.reproduced, c.sites = set, map[string]*launcher.Result{set[0].ID: perturbed}
		}
	}
	ran := map[string]singleRun{}
	if len(set) > 1 {
		pending := cands
		for round := range 2 {
			if err := a.runSingles(ctx, pending, round, ran); err != nil {
				return err
			}
			var next []*candidate
			for _, c := range pending {
				if !c.check(c.round(round), ran) && !c.unknown && round == 0 && len(c.others) > 0 {
					next = append(next, c)
				}
			}
			pending = next
		}
	}
	for _, c := range cands {
		a.res.Findings = append(a.res.Findings, a.attribute(c, perturbed))
	}
	for _, t := range perturbed.Tests {
		cov.count(t)
	}
	a.res.Coverage = append(a.res.Coverage, cov)
	a.singleCoverage(ran)
	return nil
}

// controlled returns the candidates that pass every control run (see
// controls).
func (a *analysis) controlled(ctx context.Context, cands []*candidate, perturbed *launcher.Result) ([]*candidate, error) {
	tests := make([]string, len(cands))
	for i, c := range cands {
		tests[i] = c.test
	}
	keep, err := a.controls(ctx, tests, []*launcher.Result{perturbed})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(cands, func(c *candidate) bool { return !slices.Contains(keep, c.test) }), nil
}

// singleCoverage adds the coverage of the attribution runs, one per
// strategy that ran alone.
func (a *analysis) singleCoverage(ran map[string]singleRun) {
	for _, s := range a.cfg.Strategies {
		r, ok := ran[s.ID]
		if !ok {
			continue
		}
		cov := coverageOf(s.ID, []Strategy{s}, r.result)
		for _, t := range r.result.Tests {
			cov.count(t)
		}
		a.res.Coverage = append(a.res.Coverage, cov)
	}
}

// round returns the strategies a candidate tries in attribution round i.
func (c *candidate) round(i int) []Strategy {
	if i == 0 {
		return c.suspects
	}
	return c.others
}

// runSingles runs, within the budget, each strategy that a pending
// candidate tries in this round and that has not run far enough yet, on
// the order up to the last such candidate.
func (a *analysis) runSingles(ctx context.Context, pending []*candidate, round int, ran map[string]singleRun) error {
	need := map[string]int{}
	for _, c := range pending {
		for _, s := range c.round(round) {
			if r, ok := ran[s.ID]; ok && r.upTo >= c.entry {
				continue
			}
			need[s.ID] = max(need[s.ID], c.entry+1)
		}
	}
	var strategies []Strategy
	var jobs []launcher.Job
	for _, s := range a.cfg.Strategies {
		if n, ok := need[s.ID]; ok {
			j, err := a.job(a.cfg.Tests[:n], []Strategy{s})
			if err != nil {
				return err
			}
			strategies, jobs = append(strategies, s), append(jobs, j)
		}
	}
	if len(jobs) == 0 || a.res.Interrupted {
		return nil
	}
	a.cfg.Logf("attributing %d failure(s) with %s alone", len(pending), Join(strategies))
	results, err := a.run(ctx, jobs, 0)
	if err != nil {
		return err
	}
	for i, s := range strategies {
		a.dismiss([]Strategy{s}, results[i])
		if results[i] != nil {
			ran[s.ID] = singleRun{result: results[i], upTo: len(jobs[i].Order) - 1}
		}
	}
	return nil
}

// check records what the single runs of strategies showed for the
// candidate and reports whether one of them reproduced its failure.
func (c *candidate) check(strategies []Strategy, ran map[string]singleRun) bool {
	found := false
	for _, s := range strategies {
		r, ok := ran[s.ID]
		if !ok || r.upTo < c.entry {
			c.unknown = true
			continue
		}
		t, _ := resultOf(r.result, c.test)
		msg := t.Message
		if why := machinery(t); why != "" {
			msg += "\n(left out: " + why + ")"
		}
		c.evidence = append(c.evidence, Evidence{Run: s.ID, Strategies: []Strategy{s}, Order: jvmOrder(r.result.Order, r.result, c.entry), Outcome: t.Outcome, Message: msg, Resumed: r.result.Resumed})
		if t.Outcome.Failed() && machinery(t) == "" {
			found = true
			c.reproduced = append(c.reproduced, s)
			if c.sites == nil {
				c.sites = map[string]*launcher.Result{}
			}
			c.sites[s.ID] = r.result
		}
	}
	return found
}

// candidates returns the tests that failed in the combined run r and
// passed unperturbed, recording the others in the result.
func (a *analysis) candidates(r *launcher.Result) []*candidate {
	var out []*candidate
	for _, t := range r.Tests {
		if !t.Outcome.Failed() {
			continue
		}
		entry := entryOf(a.cfg.Tests, t.Test)
		if entry < 0 {
			continue
		}
		if why := machinery(t); why != "" {
			a.res.Machinery = append(a.res.Machinery, fmt.Sprintf("%s under %s: %s", t.Test, Join(a.cfg.Strategies), why))
			continue
		}
		if !a.passesUnperturbed(t.Test, []*launcher.Result{r}) {
			continue
		}
		class := testid.ClassOf(t.Test)
		hit := map[string]bool{}
		for _, p := range r.Perturbations {
			if p.Test == t.Test || p.Test == class {
				hit[p.Group] = true
			}
		}
		c := &candidate{test: t.Test, entry: entry, result: t}
		for _, s := range a.cfg.Strategies {
			if hit[s.Group] {
				c.suspects = append(c.suspects, s)
			} else {
				c.others = append(c.others, s)
			}
		}
		if len(c.suspects) == 0 {
			c.suspects, c.others = a.cfg.Strategies, nil
		}
		out = append(out, c)
	}
	return out
}

// attribute turns a checked candidate into a finding: attributed to the
// first strategy that reproduced it alone, else to its suspects together.
func (a *analysis) attribute(c *candidate, combined *launcher.Result) Finding {
	order := jvmOrder(a.cfg.Tests, combined, c.entry)
	f := Finding{Test: c.test, Order: order, FailsWith: c.reproduced}
	f.Evidence = append(f.Evidence, Evidence{Run: string(Combined), Strategies: a.cfg.Strategies, Order: order, Outcome: c.result.Outcome, Message: c.result.Message, Resumed: combined.Resumed})
	f.Evidence = append(f.Evidence, c.evidence...)
	if len(c.reproduced) > 0 {
		s := c.reproduced[0]
		f.Strategies, f.Attributed = []Strategy{s}, true
		r := c.sites[s.ID]
		t, _ := resultOf(r, c.test)
		f.Message = t.Message
		f.Order = jvmOrder(a.cfg.Tests, r, c.entry)
		f.CallSites = callSites(r, c.test, func(strategy, _ string) bool { return strategy == s.ID })
		if len(f.CallSites) == 0 {
			f.CallSites = callSites(combined, c.test, func(_, g string) bool { return g == s.Group })
		}
		if len(c.reproduced) > 1 {
			f.Message += "\n(" + Join(c.reproduced[1:]) + " alone make it fail too)"
		}
	} else {
		f.Strategies, f.Message = c.suspects, c.result.Message
		groups := map[string]bool{}
		for _, s := range c.suspects {
			groups[s.Group] = true
		}
		f.CallSites = callSites(combined, c.test, func(_, g string) bool { return groups[g] })
		if c.unknown {
			f.Message += "\n(not attributed to a single strategy: " + a.cutBy() + " first)"
			a.suspect(c.test, a.cutBy()+" before each strategy was tried alone")
		} else {
			f.Message += fmt.Sprintf("\n(fails only with strategies combined: none of %s alone made it fail; it hit call sites of %s)",
				Join(a.cfg.Strategies), Join(c.suspects))
		}
	}
	f.Message += outsideSpecNote(f.Strategies)
	f.Evidence = append(f.Evidence, a.baselineEvidence(c.test, a.cfg.Tests[:c.entry+1])...)
	return f
}
