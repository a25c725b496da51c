package chaos

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
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

// seeds returns the seeds beyond the first that ITERATION_ORDER runs under:
// none when it is not among the strategies or Config.Seeds is 1; else the
// first seed (chaos.seed in Settings.Params, or DefaultSeed) plus 1, 2, ...
func (c Config) seeds() []int64 {
	n := c.Seeds
	if n == 0 {
		n = DefaultSeeds
	}
	if n <= 1 || !slices.ContainsFunc(c.Strategies, func(s Strategy) bool { return s.ID == iterationOrder }) {
		return nil
	}
	first := DefaultSeed
	if v, ok := seedParam(c.Settings.Params); ok {
		first = v
	}
	out := make([]int64, 0, n-1)
	for k := int64(1); k < int64(n); k++ {
		out = append(out, first+k)
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

// otherSeeds runs ITERATION_ORDER alone, in single mode, under each further
// seed (see Config.seeds) while the budget lasts: a whole analysis per seed
// with the first one's unperturbed runs, whose confirmation reruns keep its
// seed. Its findings of tests not found yet join the result with their
// seed, which their reproduce commands pass.
func (a *analysis) otherSeeds(ctx context.Context) error {
	for _, seed := range a.cfg.seeds() {
		left := time.Until(a.deadline)
		if a.deadline.IsZero() || left <= 0 || ctx.Err() != nil {
			a.res.BudgetExhausted = a.res.BudgetExhausted || ctx.Err() == nil
			a.cfg.Log.Logf("%s under chaos.seed=%d not run: %s", iterationOrder, seed, a.cutBy())
			continue
		}
		s := strconv.FormatInt(seed, 10)
		sub := a.cfg
		sub.Mode, sub.Strategies, sub.Seeds, sub.underSeed = Single, mustLookup(iterationOrder), 1, true
		sub.Settings = WithSeed(a.cfg.Settings, s)
		sub.Baseline, sub.Budget, sub.Spread = a.baseline, left, nil
		a.cfg.Log.Logf("running %s under chaos.seed=%s", iterationOrder, s)
		res, err := Run(ctx, a.runner, sub)
		if err != nil {
			return err
		}
		a.mergeSeed(res, s)
	}
	return nil
}

// mergeSeed adds the result of a run under another seed: its findings and
// suspects of tests the result does not hold yet, marked with the seed,
// and what it ran.
func (a *analysis) mergeSeed(res *Result, seed string) {
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
		c.Run += " seed=" + seed
		a.res.Coverage = append(a.res.Coverage, c)
	}
	a.res.Runs += res.Runs
	a.res.Dismissed = append(a.res.Dismissed, res.Dismissed...)
	a.res.Machinery = append(a.res.Machinery, res.Machinery...)
	a.res.BudgetExhausted = a.res.BudgetExhausted || res.BudgetExhausted
	if res.Interrupted && !a.res.Interrupted {
		a.res.Interrupted, a.res.Cut = true, res.Cut+" under chaos.seed="+seed
	}
}

// underSeed returns f found under seed: its perturbed evidence says so, and
// so does its message.
func (f Finding) underSeed(seed string) Finding {
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
