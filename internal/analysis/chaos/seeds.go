package chaos

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// DefaultSeeds is how many seeds ITERATION_ORDER runs under when
// Config.Seeds is 0: NonDex's default of three (its clean run is the
// analysis' unperturbed one).
const DefaultSeeds = 3

// DefaultSeed is the agent's seed without a chaos.seed parameter
// (ChaosConfig's Shuffler.DEFAULT_SEED): the first seed, from which the
// others count up.
const DefaultSeed int64 = 0x5EED

// iterationOrder is the strategy that more seeds run.
const iterationOrder = "ITERATION_ORDER"

// isIterationOrder reports whether s is ITERATION_ORDER.
func isIterationOrder(s Strategy) bool { return s.ID == iterationOrder }

// ownPass returns the strategies a run of mode combines and whether
// ITERATION_ORDER runs in a pass of its own: in combined mode, beside other
// strategies, it is taken out of the combined run and runs alone over the
// suite beside it (see iterationPasses). Its shuffling changes every
// HashMap iteration the project makes, so combined with the others it
// would be a suspect of nearly every failure and change which paths and
// calls the others perturb, and alone it finds its failures with no
// attribution. In single mode, or alone, the set is left as it is.
func ownPass(mode Mode, set []Strategy) ([]Strategy, bool) {
	if mode != Combined || len(set) < 2 || !slices.ContainsFunc(set, isIterationOrder) {
		return set, false
	}
	return slices.DeleteFunc(slices.Clone(set), isIterationOrder), true
}

// seeds returns the chaos.seed values ITERATION_ORDER runs alone under, in
// passes of their own, "" standing for the settings' own: that one first
// when it runs in its own pass (Config.iterationPass), then, unless
// Config.Seeds is 1 or it is not among the strategies, the first seed
// (chaos.seed in Settings.Params, or DefaultSeed) plus 1, 2, ...
func (c Config) seeds() []string {
	n := c.Seeds
	if n == 0 {
		n = DefaultSeeds
	}
	var out []string
	if c.iterationPass {
		out = append(out, "")
	} else if !slices.ContainsFunc(c.Strategies, isIterationOrder) {
		return nil
	}
	first := DefaultSeed
	if v, ok := seedParam(c.Settings.Params); ok {
		first = v
	}
	for k := int64(1); k < int64(n); k++ {
		out = append(out, strconv.FormatInt(first+k, 10))
	}
	return out
}

// seedParam returns the last chaos.seed parameter's value, if one parses.
func seedParam(params []string) (int64, bool) {
	var seed int64
	found := false
	for _, p := range params {
		k, v := paramKey(p)
		if k != "seed" {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			seed, found = n, true
		}
	}
	return seed, found
}

// WithSeed returns settings whose chaos.seed is seed ("" keeps them as they
// are): the settings a finding found under another seed reproduces with.
func WithSeed(settings Settings, seed string) Settings {
	if seed == "" {
		return settings
	}
	params := slices.DeleteFunc(slices.Clone(settings.Params), func(p string) bool {
		k, _ := paramKey(p)
		return k == "seed"
	})
	settings.Params = append(params, "seed="+seed)
	return settings
}

// passName names ITERATION_ORDER's pass under seed for the log.
func passName(seed string) string {
	if seed == "" {
		return iterationOrder + " in its own pass"
	}
	return iterationOrder + " under chaos.seed=" + seed
}

// iterationPasses runs ITERATION_ORDER alone under each of its seeds (see
// Config.seeds): the runs of the suite that did not run while the combined
// run went on (early hands them to free workers), at once, each in one JVM
// on the free workers; then a single-mode analysis of each run, with the
// first analysis' unperturbed runs and its confirmation reruns under the
// run's seed, of the failures of tests that have no verdict yet (an earlier
// pass's findings are not judged again). Its own pass always runs, as the
// combined run does; the further seeds only when some budget is left. Its
// findings of tests not found yet join the result, those of a further seed
// with their seed, which their reproduce commands pass.
func (a *analysis) iterationPasses(ctx context.Context) error {
	seeds := a.cfg.seeds()
	var missing []string
	for _, seed := range seeds {
		if a.passRan[seed] == nil {
			missing = append(missing, seed)
		}
	}
	if len(missing) > 0 && (a.deadline.IsZero() || time.Until(a.deadline) <= 0 || ctx.Err() != nil) {
		own := 0
		if missing[0] == "" {
			own = 1 // its own pass runs, as the combined run does
		}
		a.budgetLeftOut(ctx, missing[own:])
		missing = missing[:own]
	}
	if err := a.runPasses(ctx, missing); err != nil {
		return err
	}
	for _, seed := range seeds {
		r := a.passRan[seed]
		if r == nil {
			continue // interrupted, or left out
		}
		sub := a.cfg
		sub.Mode, sub.Strategies, sub.Seeds, sub.underSeed, sub.iterationPass = Single, mustLookup(iterationOrder), 1, true, false
		sub.Settings = WithSeed(a.cfg.Settings, seed)
		sub.Baseline, sub.Spread = a.baseline, nil
		sub.Budget = a.passBudget(seed)
		sub.ran, sub.ranWall, sub.judged = r, a.wall[r], a.judged()
		a.cfg.Log.Logf("judging the failures of %s", passName(seed))
		res, err := Run(ctx, a.runner, sub)
		if err != nil {
			return err
		}
		a.mergeSeed(res, seed)
	}
	return nil
}

// passBudget is the budget of the analysis of ITERATION_ORDER's pass under
// seed: what is left of the analysis' own; at least attribution's share for
// its own pass (as the combined run's attribution gets it), at least a
// nanosecond for a further seed (its control runs run, the confirmation
// runs do not: its failures are then suspected, not findings).
func (a *analysis) passBudget(seed string) time.Duration {
	least := time.Nanosecond
	if seed == "" {
		least = a.res.Budget / attributionShare
	}
	return max(time.Until(a.deadline), least)
}

// budgetLeftOut logs that the passes under seeds do not run: the budget
// ended (or the analysis was interrupted) before.
func (a *analysis) budgetLeftOut(ctx context.Context, seeds []string) {
	for _, seed := range seeds {
		a.res.BudgetExhausted = a.res.BudgetExhausted || ctx.Err() == nil
		a.cfg.Log.Logf("%s not run: %s", passName(seed), a.cutBy())
	}
}

// runPasses runs the suite with ITERATION_ORDER alone under each of seeds
// into passRan, all of them at once on the free workers (none is cut by the
// budget: the caller left out those it has no room for).
func (a *analysis) runPasses(ctx context.Context, seeds []string) error {
	if len(seeds) == 0 {
		return nil
	}
	jobs := make([]launcher.Job, len(seeds))
	names := make([]string, len(seeds))
	for i, seed := range seeds {
		j, err := a.passJob(seed)
		if err != nil {
			return err
		}
		jobs[i], names[i] = j, passName(seed)
	}
	a.cfg.Log.Logf("running %d tests with %s", len(a.cfg.Tests), strings.Join(names, ", "))
	a.cfg.Progress.Phase("perturbing", len(jobs), a.deadline)
	runs, err := a.run(ctx, jobs, len(jobs))
	if err != nil {
		return err
	}
	for i, r := range runs {
		if r != nil {
			a.passRan[seeds[i]] = r
		}
	}
	return nil
}

// passJob is the job running the suite with ITERATION_ORDER alone under
// seed ("": the settings' own).
func (a *analysis) passJob(seed string) (launcher.Job, error) {
	return a.jobWith(WithSeed(a.cfg.Settings, seed), a.cfg.Tests, mustLookup(iterationOrder))
}

// mergeSeed adds the result of a pass of ITERATION_ORDER under seed (""
// for its own pass under the settings' seed): its findings, suspects and
// unperturbed verdicts of tests the result does not hold yet, the findings
// marked with a further seed, and what it ran.
func (a *analysis) mergeSeed(res *Result, seed string) {
	known := a.judged()
	for _, f := range res.Findings {
		if !known[f.Test] {
			a.res.Findings = append(a.res.Findings, f.underSeed(seed))
		}
	}
	for _, s := range res.Suspected {
		if !known[s.Test] {
			s.Finding = s.underSeed(seed)
			a.res.Suspected = append(a.res.Suspected, s)
		}
	}
	for _, c := range res.Coverage {
		if seed != "" {
			c.Run += " seed=" + seed
		}
		a.res.Coverage = append(a.res.Coverage, c)
	}
	for _, s := range res.Strategies {
		if !slices.ContainsFunc(a.res.Strategies, func(t Strategy) bool { return t.ID == s.ID }) {
			a.res.Strategies = append(a.res.Strategies, s) // its own pass
		}
	}
	a.mergeUnperturbed(res, known)
	a.res.Runs += res.Runs
	a.res.Dismissed = append(a.res.Dismissed, res.Dismissed...)
	a.res.Machinery = append(a.res.Machinery, res.Machinery...)
	a.res.BudgetExhausted = a.res.BudgetExhausted || res.BudgetExhausted
	if res.Interrupted && !a.res.Interrupted {
		a.res.Interrupted, a.res.Cut = true, res.Cut+" of "+passName(seed)
	}
}

// mergeUnperturbed adds what a pass's control runs showed of tests the
// result holds no verdict on (known): those flaky without perturbation and
// those failing unperturbed, and the unconfirmed ones.
func (a *analysis) mergeUnperturbed(res *Result, known map[string]bool) {
	for _, n := range res.NOD {
		if !known[n.Test] {
			a.res.NOD = append(a.res.NOD, n)
		}
	}
	for _, f := range res.Failing {
		if !known[f.Test] {
			a.res.Failing = append(a.res.Failing, f)
		}
	}
	for _, t := range res.FailUnperturbed {
		if !known[t] {
			a.res.FailUnperturbed = append(a.res.FailUnperturbed, t)
		}
	}
	for _, t := range res.Unconfirmed {
		if !slices.Contains(a.res.Unconfirmed, t) {
			a.res.Unconfirmed = append(a.res.Unconfirmed, t)
		}
	}
}

// judged returns the tests the result holds a verdict on: its findings,
// suspects and the tests that fail unperturbed.
func (a *analysis) judged() map[string]bool {
	known := map[string]bool{}
	for _, f := range a.res.Findings {
		known[f.Test] = true
	}
	for _, s := range a.res.Suspected {
		known[s.Test] = true
	}
	for _, t := range a.res.FailUnperturbed {
		known[t] = true
	}
	return known
}

// underSeed returns f found under seed: its perturbed evidence says so, and
// so does its message; f itself under the settings' own seed ("").
func (f Finding) underSeed(seed string) Finding {
	if seed == "" {
		return f
	}
	f.Seed = seed
	f.Message += "\n(found under chaos.seed=" + seed + ", not under the first seed)"
	f.Evidence = slices.Clone(f.Evidence)
	for i, e := range f.Evidence {
		if e.Strategies == nil {
			continue
		}
		if e.Detail != "" {
			e.Detail += ", "
		}
		e.Detail += "chaos.seed=" + seed
		f.Evidence[i] = e
	}
	return f
}
