package chaos

import (
	"context"
	"fmt"
	"slices"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
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
	// unhit says it hit no call site of the set's groups (its suspects are
	// then all of the set): likely flaky without perturbation, so it is
	// attributed only after it passed the control runs.
	unhit      bool
	evidence   []Evidence // single-strategy runs that got to the test
	reproduced []Strategy // strategies that failed it alone, in the order tried
	sites      map[string]*launcher.Result
	unknown    bool // a strategy it needed was not run: the budget ended
	// checked are the attribution runs already read for it.
	checked map[*launcher.Result]bool
}

// singleRun is an attribution run of one strategy: the whole suite's order
// up to some entry, or only the classes of some candidates.
type singleRun struct {
	result *launcher.Result
	order  []string
}

// scope is where an attribution run of a strategy runs a candidate's test.
type scope int

const (
	// scopeTests runs the failing tests alone, in the suite's order (their
	// classes' fixtures run once around them, as with -Dtest=C#a+b).
	scopeTests scope = iota
	// scopeClasses runs the failing tests' classes, each as the suite runs
	// it, up to the last failing test.
	scopeClasses
	// scopeSuite runs the suite's order up to the last failing test.
	scopeSuite
)

// attributionRound is what one round of attribution tries: a candidate's
// suspects or the rest of the set, in one scope.
type attributionRound struct {
	others bool // the rest of the set, not the suspects
	scope  scope
}

// attributionRounds are tried in this order until a strategy reproduces a
// candidate's failure: its suspects on the failing tests alone first (a
// fraction of the suite, so attribution takes a fraction of the combined
// run's time), then on their classes (for a failure that needs its class's
// earlier tests), then on the whole order before it (for one that needs
// another class's tests before it), then the same for the rest of the set.
var attributionRounds = []attributionRound{
	{scope: scopeTests}, {scope: scopeClasses}, {scope: scopeSuite},
	{others: true, scope: scopeTests}, {others: true, scope: scopeClasses}, {others: true, scope: scopeSuite},
}

// String names the round for the log.
func (r attributionRound) String() string {
	what := "suspected strategies"
	if r.others {
		what = "the other strategies"
	}
	where := map[scope]string{
		scopeTests:   "on the failing tests alone",
		scopeClasses: "on the failing tests' classes",
		scopeSuite:   "on the suite's order up to the failure",
	}[r.scope]
	return what + " " + where
}

// combined runs all strategies at once, then, for the tests that failed,
// each strategy alone: first those whose call sites they hit, then, for
// tests none of those reproduced, the rest of the set. The control runs and
// attribution's first round of the tests that fail start while the
// combined run goes on, on the workers it leaves free (see early).
func (a *analysis) combined(ctx context.Context) error {
	set := a.cfg.Strategies
	a.res.Strategies = set
	jobs, err := a.jobs(a.cfg.Tests, [][]Strategy{set})
	if err != nil {
		return err
	}
	a.cfg.Log.Logf("running %d tests with %s, and unperturbed", len(a.cfg.Tests), Join(set))
	e := a.newEarly(set, len(jobs))
	jobs[0].OnTestEnd = e.onTestEnd
	jobs[0].Handoff = launcher.NewHandoff() // spread over the workers the unperturbed run leaves free (see runFed)
	results, err := a.runFed(ctx, jobs, len(jobs), e.feed())
	if err != nil {
		return err
	}
	if e.err != nil {
		return e.err
	}
	perturbed := results[0]
	if perturbed == nil {
		return nil // interrupted
	}
	a.noteEarlyEnd(Join(set), perturbed)
	a.perturbedRuns = []*launcher.Result{perturbed}
	a.setBaseline(results[1:len(jobs)])
	a.reserveAttribution()
	a.phase = "attribution"
	a.dismiss(set, perturbed)
	ran := map[string][]singleRun{}
	e.record(results, ran)
	cands := a.candidates(perturbed)
	cov := a.coverageOf(string(Combined), set, perturbed)
	if cands, err = a.controlledAndFirstRound(ctx, cands, ran); err != nil {
		return err
	}
	if len(set) == 1 {
		for _, c := range cands {
			c.reproduced, c.sites = set, map[string]*launcher.Result{set[0].ID: perturbed}
		}
	} else {
		pending := cands
		for _, round := range attributionRounds {
			// The first round ran beside the control runs, but for the
			// candidates that hit no call site: only what is missing runs.
			if err := a.runSingles(ctx, pending, round, ran); err != nil {
				return err
			}
			var next []*candidate
			for _, c := range pending {
				if !a.check(c, round, ran) && !c.unknown {
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

// controlledAndFirstRound returns the candidates that pass every control
// run (see controls), with attribution's first round run at the same time
// into ran, on every candidate that hit call sites of the set (of more than
// one strategy): the round's JVMs need not wait for the control runs (most
// such candidates pass them), and the runs of a candidate that fails one
// are left unread. A candidate that hit none would need a run of every
// strategy and is the likeliest to fail unperturbed: its round waits for the
// controls. The milder and again runs that confirmation would need for the
// round's likely findings run beside them too (see planFirstRound). What ran
// while the combined run went on (early) does not run again.
func (a *analysis) controlledAndFirstRound(ctx context.Context, cands []*candidate, ran map[string][]singleRun) ([]*candidate, error) {
	failing, rerun := a.unperturbedFailures()
	tests := testsOf(cands)
	if len(tests)+len(failing)+len(a.dismissedTests(tests)) == 0 {
		return nil, nil
	}
	controls := a.controlJobs(slices.Concat(tests, rerun, a.dismissedTests(tests)))
	var round firstRound
	if len(cands) > 0 && len(a.cfg.Strategies) > 1 {
		var err error
		if round, err = a.planFirstRound(cands, ran); err != nil {
			return nil, err
		}
	}
	defer func(phase string) { a.phase = phase }(a.phase)
	a.phase = "the control runs"
	results, err := a.run(ctx, slices.Concat(controls, round.first.jobs, round.again.jobs, round.milder.jobs), len(controls))
	if err != nil {
		return nil, err
	}
	a.controlRuns = append(a.controlRuns, results[:len(controls)]...)
	rest := results[len(controls):]
	a.recordSingles(round.first, rest[:len(round.first.jobs)], ran)
	rest = rest[len(round.first.jobs):]
	round.again.record(rest[:len(round.again.jobs)], a.again)
	round.milder.record(rest[len(round.again.jobs):], a.milder)
	return keepTests(cands, a.judgeControls(tests, failing)), nil
}

// firstRound is attribution's first round and the confirmation runs planned
// beside it for its likely findings. The again runs start before the
// milder ones when expected to take as long: a finding needs them, its
// robustness check only informs.
type firstRound struct {
	first  singles // the suspects of the candidates that hit call sites, on the failing tests alone
	again  singles // see planAgain
	milder singles // see planMilder
}

// planFirstRound returns attribution's first round for the candidates that
// hit call sites, but for what ran answers for already, and the milder and
// again runs beside it.
func (a *analysis) planFirstRound(cands []*candidate, ran map[string][]singleRun) (firstRound, error) {
	var r firstRound
	hit := slices.DeleteFunc(slices.Clone(cands), func(c *candidate) bool { return c.unhit })
	var err error
	if r.first, err = a.planSingles(hit, attributionRounds[0], ran); err != nil {
		return firstRound{}, err
	}
	if r.milder, err = a.planMilder(cands, r.first); err != nil {
		return firstRound{}, err
	}
	r.again = a.planAgain(cands, r.first)
	return r, nil
}

// soleSuspect reports whether s is the only suspect of one of cands: the
// strategy its finding will most likely name.
func soleSuspect(cands []*candidate, s Strategy) bool {
	return slices.ContainsFunc(cands, func(c *candidate) bool { return len(c.suspects) == 1 && c.suspects[0].ID == s.ID })
}

// planMilder returns, for each strategy of the first round's runs that
// confirmation reruns with a tenth of its parameter (mildParams) and that is
// the only suspect of a candidate (so most likely its finding's strategy),
// a run of that round's order with the milder parameter. Confirmation reads
// it for a finding whose order is the run's up to its test, instead of
// running it after attribution has ended.
func (a *analysis) planMilder(cands []*candidate, first singles) (singles, error) {
	var p singles
	for i, s := range first.strategies {
		settings, _, ok := milder(s, a.cfg.Settings)
		if !soleSuspect(cands, s) || !ok {
			continue
		}
		j, err := a.jobWith(settings, first.jobs[i].Order, []Strategy{s})
		if err != nil {
			return singles{}, err
		}
		p.strategies, p.jobs = append(p.strategies, s), append(p.jobs, j)
	}
	return p, nil
}

// planAgain returns, for each strategy of the first round's runs that is
// the only suspect of a candidate, a second run of that round's job: the
// rerun that confirmation needs of every finding (the run that names a
// strategy is not enough to show that it makes the test fail clearly more
// often than unperturbed runs), started beside the round instead of after
// attribution has ended. Confirmation reads it (readAgain) for a finding
// of that strategy whose order its run ends with.
func (a *analysis) planAgain(cands []*candidate, first singles) singles {
	var p singles
	for i, s := range first.strategies {
		if soleSuspect(cands, s) {
			p.strategies, p.jobs = append(p.strategies, s), append(p.jobs, first.jobs[i])
		}
	}
	return p
}

// testsOf returns the candidates' tests.
func testsOf(cands []*candidate) []string {
	tests := make([]string, len(cands))
	for i, c := range cands {
		tests[i] = c.test
	}
	return tests
}

// keepTests returns the candidates whose tests are in keep.
func keepTests(cands []*candidate, keep []string) []*candidate {
	return slices.DeleteFunc(cands, func(c *candidate) bool { return !slices.Contains(keep, c.test) })
}

// singleCoverage adds the coverage of the attribution runs, one per
// strategy that ran alone: its widest run's, with the failures of its other
// runs added.
func (a *analysis) singleCoverage(ran map[string][]singleRun) {
	for _, s := range a.cfg.Strategies {
		runs := ran[s.ID]
		if len(runs) == 0 {
			continue
		}
		widest := runs[0]
		for _, r := range runs[1:] {
			if len(r.order) > len(widest.order) {
				widest = r
			}
		}
		cov := a.coverageOf(s.ID, []Strategy{s}, widest.result)
		cov.JVMs, cov.Attribution = 0, true
		for _, r := range runs {
			cov.JVMs += 1 + len(r.result.Resumed)
			for _, t := range r.result.Tests {
				if !slices.Contains(cov.FailedTests, t.Test) {
					cov.count(t)
				}
			}
		}
		a.res.Coverage = append(a.res.Coverage, cov)
	}
}

// strategies returns the strategies a candidate tries in an attribution
// round.
func (c *candidate) strategies(r attributionRound) []Strategy {
	if r.others {
		return c.others
	}
	return c.suspects
}

// covers returns the index in run's order of the entry of c's test when the
// run answers for c in scope sc, else -1: a run with the test answers for
// the tests alone; on its classes, a run in which its class's entries before
// it are the suite's; on the suite's order, a run whose order up to the test
// is the suite's.
func (a *analysis) covers(run singleRun, c *candidate, sc scope) int {
	i := entryOf(run.order, c.test)
	switch {
	case i < 0 || sc == scopeTests:
		return i
	case sc == scopeClasses:
		if !slices.Equal(ownClass(run.order[:i+1], c.test), ownClass(a.cfg.Tests[:c.entry+1], c.test)) {
			return -1
		}
		return i
	}
	if i != c.entry || !slices.Equal(run.order[:i+1], a.cfg.Tests[:c.entry+1]) {
		return -1
	}
	return i
}

// runFor returns the run of strategy s that answers for c in the round's
// scope, preferring one already read for c (it then adds nothing).
func (a *analysis) runFor(ran map[string][]singleRun, s Strategy, c *candidate, sc scope) (singleRun, int, bool) {
	var found singleRun
	at, ok := -1, false
	for _, r := range ran[s.ID] {
		i := a.covers(r, c, sc)
		if i < 0 {
			continue
		}
		if c.checked[r.result] {
			return r, i, true
		}
		if !ok {
			found, at, ok = r, i, true
		}
	}
	return found, at, ok
}

// runSingles runs, within the budget, each strategy that a pending
// candidate tries in this round and that has no run answering for it yet,
// on the round's scope of those candidates (scopeOrder).
func (a *analysis) runSingles(ctx context.Context, pending []*candidate, round attributionRound, ran map[string][]singleRun) error {
	singles, err := a.planSingles(pending, round, ran)
	if err != nil || len(singles.jobs) == 0 {
		return err
	}
	results, err := a.run(ctx, singles.jobs, 0)
	if err != nil {
		return err
	}
	a.recordSingles(singles, results, ran)
	return nil
}

// singles are the attribution runs of one round: a job per strategy.
type singles struct {
	strategies []Strategy
	jobs       []launcher.Job
}

// planSingles returns the jobs of runSingles, none when the analysis was
// interrupted.
func (a *analysis) planSingles(pending []*candidate, round attributionRound, ran map[string][]singleRun) (singles, error) {
	need := map[string][]string{}
	for _, c := range pending {
		for _, s := range c.strategies(round) {
			if _, _, ok := a.runFor(ran, s, c, round.scope); !ok {
				need[s.ID] = append(need[s.ID], c.test)
			}
		}
	}
	var p singles
	for _, s := range a.cfg.Strategies {
		tests, ok := need[s.ID]
		if !ok {
			continue
		}
		order := a.scopeOrder(tests, round.scope)
		j, err := a.job(order, []Strategy{s})
		if err != nil {
			return singles{}, err
		}
		p.strategies, p.jobs = append(p.strategies, s), append(p.jobs, j)
	}
	if len(p.jobs) == 0 || a.res.Interrupted {
		return singles{}, nil
	}
	n := 0
	for _, j := range p.jobs {
		n += len(j.Order)
	}
	a.cfg.Log.Logf("attributing %d failure(s) with %s alone, %s (%d test entries in all)", len(pending), Join(p.strategies), round, n)
	return p, nil
}

// recordSingles adds the runs of p that got results to ran, after
// dismissing their failures that the strategies cannot cause.
func (a *analysis) recordSingles(p singles, results []*launcher.Result, ran map[string][]singleRun) {
	for i, s := range p.strategies {
		a.dismiss([]Strategy{s}, results[i])
	}
	p.record(results, ran)
}

// record adds the runs of p that got results to runs, by strategy id.
func (p singles) record(results []*launcher.Result, runs map[string][]singleRun) {
	for i, s := range p.strategies {
		if results[i] != nil {
			runs[s.ID] = append(runs[s.ID], singleRun{result: results[i], order: p.jobs[i].Order})
		}
	}
}

// check records what the single runs of the round's strategies showed for
// the candidate and reports whether one of them reproduced its failure.
func (a *analysis) check(c *candidate, round attributionRound, ran map[string][]singleRun) bool {
	found := false
	for _, s := range c.strategies(round) {
		r, at, ok := a.runFor(ran, s, c, round.scope)
		if !ok {
			c.unknown = true
			continue
		}
		if c.checked[r.result] {
			continue // read in an earlier round: it did not reproduce the failure
		}
		if c.checked == nil {
			c.checked = map[*launcher.Result]bool{}
		}
		c.checked[r.result] = true
		t, _ := resultOf(r.result, c.test)
		msg := t.Message
		if why := machinery(t); why != "" {
			msg += "\n(left out: " + why + ")"
		}
		c.evidence = append(c.evidence, Evidence{Run: s.ID, Strategies: []Strategy{s}, Order: jvmOrder(r.order, r.result, at), Outcome: t.Outcome, Message: msg, Resumed: r.result.Resumed, own: ownFailure(t), perturbed: perturbedBy(r.result, c.test)})
		if ownFailure(t) {
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

// scopeOrder returns the order of a run of tests in scope sc.
func (a *analysis) scopeOrder(tests []string, sc scope) []string {
	switch sc {
	case scopeTests:
		return a.testsOrder(tests)
	case scopeClasses:
		return a.classOrder(tests)
	}
	last := 0
	for _, t := range tests {
		last = max(last, entryOf(a.cfg.Tests, t))
	}
	return a.cfg.Tests[:last+1]
}

// testsOrder returns the entries of the suite's order that are tests (or
// whose invocations are), each once, as the suite runs them.
func (a *analysis) testsOrder(tests []string) []string {
	var order []string
	for _, e := range a.cfg.Tests {
		if slices.ContainsFunc(tests, func(t string) bool { return testid.IsInvocation(t, e) }) {
			order = append(order, e)
		}
	}
	return order
}

// classOrder returns the entries of the suite's order, up to the last of
// tests, of the tests' top-level classes: each class as the suite runs it,
// with all of its entries before the test, so that its class fixtures run
// as they do in the suite.
func (a *analysis) classOrder(tests []string) []string {
	classes := map[string]bool{}
	last := 0
	for _, t := range tests {
		classes[topClass(t)] = true
		last = max(last, entryOf(a.cfg.Tests, t))
	}
	var order []string
	for _, e := range a.cfg.Tests[:last+1] {
		if classes[topClass(e)] {
			order = append(order, e)
		}
	}
	return order
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
		if why := a.leftOut(t); why != "" {
			a.res.Machinery = append(a.res.Machinery, fmt.Sprintf("%s under %s: %s", t.Test, Join(a.cfg.Strategies), why))
			continue
		}
		if !a.passesUnperturbed(t.Test) {
			continue
		}
		out = append(out, a.newCandidate(t, entry, r.Perturbations))
	}
	return out
}

// newCandidate makes the candidate of t, the test at entry of the suite's
// order, from the perturbations of its run: its suspects are the strategies
// of the groups whose call sites it or its class's fixtures hit.
func (a *analysis) newCandidate(t launcher.TestResult, entry int, perturbations []agent.Perturbation) *candidate {
	class := testid.ClassOf(t.Test)
	hit := map[string]bool{}
	for _, p := range perturbations {
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
		c.suspects, c.others, c.unhit = a.cfg.Strategies, nil, true
	}
	return c
}

// attribute turns a checked candidate into a finding: attributed to the
// first strategy that reproduced it alone, else to its suspects together.
func (a *analysis) attribute(c *candidate, combined *launcher.Result) Finding {
	order := jvmOrder(a.cfg.Tests, combined, c.entry)
	// The combined run found it (foundBy 0). Attribution named the first
	// strategy that reproduced it among those it tried alone; a failure
	// only the strategies together make has no such choice.
	f := Finding{Test: c.test, Order: order, FailsWith: c.reproduced, tried: 1}
	f.Evidence = append(f.Evidence, Evidence{Run: string(Combined), Strategies: a.cfg.Strategies, Order: order, Outcome: c.result.Outcome, Message: c.result.Message, Resumed: combined.Resumed, own: true, perturbed: perturbedBy(combined, c.test)})
	f.Evidence = append(f.Evidence, c.evidence...)
	if len(c.reproduced) > 0 {
		s := c.named()
		f.Strategies, f.Attributed = []Strategy{s}, true
		tried := map[string]bool{}
		for _, e := range c.evidence {
			tried[Join(e.Strategies)] = true
		}
		f.tried = max(1, len(tried))
		r := c.sites[s.ID]
		t, _ := resultOf(r, c.test)
		f.Message = t.Message
		f.Order = ranUpTo(r, c.test)
		f.CallSites = callSites(r, c.test, func(strategy, _ string) bool { return strategy == s.ID })
		if len(f.CallSites) == 0 {
			f.CallSites = callSites(combined, c.test, func(_, g string) bool { return g == s.Group })
		}
		if others := slices.DeleteFunc(slices.Clone(c.reproduced), func(o Strategy) bool { return o.ID == s.ID }); len(others) > 0 {
			f.Message += "\n(" + Join(others) + " alone make it fail too)"
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

// named returns the strategy a reproduced candidate's finding names: the
// first that reproduced it alone and perturbed a call during it there (a
// finding needs that, see requireEvidence), else the first that reproduced
// it.
func (c *candidate) named() Strategy {
	for _, s := range c.reproduced {
		if slices.Contains(perturbedBy(c.sites[s.ID], c.test), s.ID) {
			return s
		}
	}
	return c.reproduced[0]
}
