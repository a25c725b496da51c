// A merge's replay of its shards' runs (Config.Recorded): the recorded
// outcomes are a candidate's evidence only, as a warm JVM's are; the
// original order and a sample of each shard's detection orders run here
// too, and PartCheck says how much of each part the runs here checked and
// where they differed from it.

package od

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// maxDifferences bounds the differences a PartCheck lists.
const maxDifferences = 5

// PartCheck is what a merge's own runs showed of one shard's part.
type PartCheck struct {
	Shard string
	// Runs are the runs the part recorded; Rerun of them, those whose
	// order also ran here (the original order, the sampled orders, any
	// order confirmation or minimisation ran).
	Runs, Rerun int
	// Differences counts the outcomes here that contradict the part's: a
	// test it recorded passing after a prefix that only failed after it
	// here, or the reverse (a NOD test, or a part that is not what its
	// shard ran); Differ lists the first few.
	Differences int
	Differ      []Difference
}

// Difference is one outcome of a part that the runs here contradict.
type Difference struct {
	Test     string
	Run      string // the label of the part's run
	Recorded launcher.Outcome
	Here     string // "pass" or "fail": what every run here of that prefix gave
}

// merge is a merge's detection stage (Config.Recorded): it takes the
// shards' runs instead of running the detection orders, and hands the
// candidates they and its own runs show to confirmation.
type merge struct {
	*recorder
}

// replay records the shards' runs as candidates' evidence, runs the
// original order here, then Config.Verify of each shard's detection
// orders (within the detection share of the budget), then confirms and
// minimises the candidates with the rest of the budget.
func (mg *merge) replay(ctx context.Context) error {
	parts := map[string]bool{}
	for _, r := range mg.cfg.Recorded {
		mg.record(plannedOrder{gen: r.Gen, label: r.Label, plan: r.Plan, claim: true}, r.result(), true)
		parts[r.Part] = true
	}
	mg.logf("replayed %d runs of %d shards: candidates' evidence only, which runs here confirm", len(mg.cfg.Recorded), len(parts))
	if err := mg.runOriginal(ctx); err != nil {
		return err
	}
	og := &ordering{mg.recorder}
	mg.targets = og.analysable()
	_, rounds := og.detectionOrders()
	og.fixBudget(rounds)
	sample := mg.verifyPlan()
	detectEnd := mg.start.Add(time.Duration(float64(mg.cfg.Budget) * detectShare))
	mg.cfg.Progress.Phase("rerunning the shards' orders", len(sample), detectEnd)
	mg.logf("rerunning %d of the shards' detection orders here", len(sample))
	if err := mg.run(ctx, detectEnd, sample); errors.Is(err, errBudget) {
		mg.logf("the reruns of the shards' orders stopped at their share of the budget")
	} else if err != nil {
		return err
	}
	// The candidates come from the replayed runs and the reruns here.
	return mg.settleCandidates(ctx, &detection{recorder: mg.recorder})
}

// verifyPlan picks Config.Verify of each part's detection orders (all of
// them when negative) at random, each once.
func (mg *merge) verifyPlan() []plannedOrder {
	seed := mg.cfg.VerifySeed
	if seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:]) // never fails (crypto/rand panics instead)
		for _, x := range b {
			seed = seed<<8 | uint64(x)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	byPart := map[string][]RecordedRun{}
	var parts []string
	seen := map[string]bool{}
	for _, r := range mg.cfg.Recorded {
		if key := orderKey(r.Order); r.Plan < 0 || seen[key] {
			continue
		} else {
			seen[key] = true
		}
		if _, ok := byPart[r.Part]; !ok {
			parts = append(parts, r.Part)
		}
		byPart[r.Part] = append(byPart[r.Part], r)
	}
	var out []plannedOrder
	for _, p := range parts {
		runs := byPart[p]
		rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
		if n := mg.cfg.Verify; n >= 0 && n < len(runs) {
			runs = runs[:n]
		}
		for _, r := range runs {
			out = append(out, plannedOrder{gen: genVerify, label: fmt.Sprintf("%s (rerun of shard %s's)", r.Label, p), tests: r.Order, plan: r.Plan})
		}
	}
	return out
}

// partChecks compares each part's recorded runs with the runs here, in
// the order the parts come in Config.Recorded.
func (rp *reporting) partChecks() []PartCheck {
	var out []PartCheck
	at := map[string]int{}
	for _, r := range rp.cfg.Recorded {
		i, ok := at[r.Part]
		if !ok {
			i = len(out)
			at[r.Part] = i
			out = append(out, PartCheck{Shard: r.Part})
		}
		c := &out[i]
		c.Runs++
		if rp.rerun[orderKey(r.Order)] {
			c.Rerun++
		}
		here := rp.st.tallies(r.Order)
		for j, p := range positionOutcomes(r.Order, r.Tests) {
			var d string
			switch h := here[j]; {
			case p.outcome == launcher.Pass && h.fails():
				d = "fail"
			case p.outcome.Failed() && h.passes():
				d = "pass"
			default:
				continue
			}
			if c.Differences++; len(c.Differ) < maxDifferences && !slices.ContainsFunc(c.Differ, func(x Difference) bool { return x.Test == r.Order[j] }) {
				c.Differ = append(c.Differ, Difference{Test: r.Order[j], Run: r.Label, Recorded: p.outcome, Here: d})
			}
		}
	}
	return out
}
