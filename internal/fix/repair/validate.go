package repair

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
	"github.com/kballard/go-shellquote"
)

// apply makes the sandbox hold the accepted patches plus files; a patch that
// does not compile gives the compiler's feedback.
func (r *run) apply(ctx context.Context, files map[string][]byte) (feedback string, err error) {
	all := maps.Clone(r.res.Files)
	maps.Copy(all, files)
	err = r.sb.Apply(ctx, all)
	var ce *CompileError
	if errors.As(err, &ce) {
		return ce.Error(), nil
	}
	return "", err
}

// fixes is the cheap check of a candidate: with it, the finding's test
// passes in its failing order (ddmin's oracle).
func (r *run) fixes(ctx context.Context, f report.Finding, files map[string][]byte) (bool, error) {
	fb, err := r.apply(ctx, files)
	if err != nil || fb != "" {
		return false, err
	}
	res, err := r.sb.Run(ctx, failingOrder(f), r.agentOptions(f))
	if err != nil {
		return false, err
	}
	return passedAll(res, f.Test), nil
}

// validate checks a candidate (nil: the accepted patches alone) the same
// way for every kind and every plan: first that it keeps the test's meaning
// (see weakening: no test, assertion, expected exception or timeout lost,
// nothing disabled, assumed or swallowed), before any of it runs; then in
// the sandbox the test passes in its failing order,
// alone, and for NIO twice in one JVM; every polluter and setter still
// passes (a skipped test, @Ignore or a failed assumption, counts as neither
// pass nor fail); the module's default order keeps the outcome of every
// other test, except that known victims may go from failing to passing (as
// of the patches accepted so far: accepting a candidate makes its
// default-order run the new reference); an api finding's test passes under
// its strategy and its reproduce command's parameters. It returns the evidence, and feedback (empty when valid)
// saying concisely what failed.
func (r *run) validate(ctx context.Context, f report.Finding, c *candidate) (evidence []string, feedback string, err error) {
	var files map[string][]byte
	patched := c != nil
	if patched {
		files = c.files
		reasons, kept, err := r.weakening(files)
		if err != nil || len(reasons) > 0 {
			return nil, weakeningText(reasons), err
		}
		evidence = append(evidence, kept)
	}
	if fb, err := r.apply(ctx, files); err != nil || fb != "" {
		return nil, fb, err
	}
	type check struct {
		label   string
		order   []string
		options agent.Options
	}
	checks := []check{{"failing order", failingOrder(f), agent.Options{}}}
	if !slices.Equal(failingOrder(f), []string{f.Test}) {
		checks = append(checks, check{"alone", []string{f.Test}, agent.Options{}})
	}
	if f.Kind == report.NIO && !slices.Equal(failingOrder(f), []string{f.Test, f.Test}) {
		checks = append(checks, check{"twice in one JVM", []string{f.Test, f.Test}, agent.Options{}})
	}
	if f.Kind == report.API {
		opts := r.agentOptions(f)
		if !opts.Chaos.Perturbs() {
			return nil, "", fmt.Errorf("strategy %q of an api finding: unknown", f.Strategy)
		}
		checks = append(checks, check{strategyLabel(f), []string{f.Test}, opts})
	}
	checks = append(checks, check{"default order", r.base.Order, agent.Options{}})
	// The failing order first: most candidates that fail, fail there, and
	// the other checks need not run.
	jobs := make([]launcher.Job, len(checks))
	for i, c := range checks {
		jobs[i] = launcher.Job{Order: c.order, RunOptions: launcher.RunOptions{AgentOptions: c.options}}
	}
	first, err := r.sb.l.RunJobs(ctx, jobs[:1])
	if err != nil {
		return nil, "", err
	}
	if bad := orderFailure(first[0], checks[0].order, f.Test); bad != "" {
		return nil, fmt.Sprintf("%s %s: %s", checks[0].label, orderText(checks[0].order), bad), nil
	}
	rest, err := r.sb.l.RunJobs(ctx, jobs[1:])
	if err != nil {
		return nil, "", err
	}
	results := append(first, rest...)
	for i, c := range checks {
		res := results[i]
		if c.label == "default order" {
			worse, better := r.changedOutcomes(res, f.Test)
			if len(worse) > 0 {
				return nil, "the module's default order changed: " + listText(worse), nil
			}
			line := fmt.Sprintf("default order (%d tests): every other test's outcome unchanged", len(res.Order))
			if len(better) > 0 {
				line = fmt.Sprintf("default order (%d tests): no other test's outcome worse; %d known victim(s) now pass: %s", len(res.Order), len(better), listText(better))
			}
			evidence = append(evidence, line)
			if patched {
				r.validBase = res
			}
			continue
		}
		if bad := orderFailure(res, c.order, f.Test); bad != "" {
			return nil, fmt.Sprintf("%s %s: %s", c.label, orderText(c.order), bad), nil
		}
		evidence = append(evidence, fmt.Sprintf("%s %s: pass", c.label, orderText(c.order)))
	}
	return evidence, "", nil
}

// orderFailure says which test of an order run did not do as a repaired
// order must, and how: test must pass in every run; every other test must
// pass or be skipped (a skipped test counts as neither pass nor fail).
// It is empty when all did.
func orderFailure(res *launcher.Result, order []string, test string) string {
	for _, t := range uniq(order) {
		ok := passedAll(res, t)
		if t != test {
			ok = notFailed(res, t)
		}
		if !ok {
			return t + " " + failureText(res, t)
		}
	}
	return ""
}

// agentOptions are the options that run an api finding's strategy in the
// sandbox; none for other findings.
func (r *run) agentOptions(f report.Finding) agent.Options {
	if f.Kind != report.API || f.Strategy == "" {
		return agent.Options{}
	}
	strategies, err := chaos.Parse(f.Strategy)
	if err != nil || len(strategies) == 0 {
		return agent.Options{}
	}
	settings := chaos.Settings{Roots: chaos.RootsFor(r.sb.Dir, r.sb.mapPath(r.cfg.Module.ClassesDir), r.sb.mapPath(r.cfg.Module.TestClassesDir)),
		Params: chaosParams(f)}
	opts, err := settings.AgentOptions(strategies)
	if err != nil {
		return agent.Options{}
	}
	return opts
}

// strategyLabel names the check of an api finding's test under its
// strategy, with the parameters it runs under.
func strategyLabel(f report.Finding) string {
	if params := chaosParams(f); len(params) > 0 {
		return "under " + f.Strategy + " (" + strings.Join(params, ", ") + ")"
	}
	return "under " + f.Strategy
}

// chaosParams are the strategy parameters an api finding's reproduce
// command passes (--chaos-param seed=24303: the seed under which an
// iteration order made it fail), so that its test is validated under the
// perturbation that broke it; none when the command cannot be read.
func chaosParams(f report.Finding) []string {
	args, err := shellquote.Split(f.ReproduceRunOrder)
	if err != nil {
		return nil
	}
	var params []string
	for i, a := range args {
		if a == "--chaos-param" && i+1 < len(args) {
			params = append(params, args[i+1])
		} else if v, ok := strings.CutPrefix(a, "--chaos-param="); ok {
			params = append(params, v)
		}
	}
	return params
}

// changedOutcomes lists the tests other than test (and the NOD findings)
// whose outcome in res differs from the reference default order's: worse
// are the changes that reject a patch, better the known victims (the
// report's order-dependent findings) that went from failing to passing.
func (r *run) changedOutcomes(res *launcher.Result, test string) (worse, better []string) {
	before := map[string]launcher.Outcome{}
	for _, t := range r.base.Tests {
		before[t.Test] = t.Outcome
	}
	for _, t := range res.Tests {
		if t.Test == test || slices.Contains(r.nod, t.Test) {
			continue
		}
		b, ok := before[t.Test]
		switch {
		case !ok || b == t.Outcome:
		case b.Failed() && t.Outcome == launcher.Pass && r.known[t.Test]:
			better = append(better, t.Test)
		default:
			worse = append(worse, fmt.Sprintf("%s was %s, now %s", t.Test, b, t.Outcome))
		}
	}
	return worse, better
}

// notFailed reports whether test ran in res and every run of it passed or
// was skipped.
func notFailed(res *launcher.Result, test string) bool {
	ran := false
	for _, t := range res.Tests {
		if t.Test != test {
			continue
		}
		ran = true
		if t.Outcome != launcher.Pass && t.Outcome != launcher.Skipped {
			return false
		}
	}
	return ran
}

// passedAll reports whether every run of test in res passed (and it ran).
func passedAll(res *launcher.Result, test string) bool {
	ran := false
	for _, t := range res.Tests {
		if t.Test != test {
			continue
		}
		ran = true
		if t.Outcome != launcher.Pass {
			return false
		}
	}
	return ran
}

// failureText says how test failed in res: the outcome and first message
// line of its first run that failed, else that it was skipped or did not run.
func failureText(res *launcher.Result, test string) string {
	skipped := false
	for _, t := range res.Tests {
		if t.Test != test || t.Outcome == launcher.Pass {
			continue
		}
		if t.Outcome == launcher.Skipped {
			skipped = true
			continue
		}
		msg := t.Message
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = t.FailureType
		}
		return fmt.Sprintf("%s: %s", t.Outcome, msg)
	}
	if skipped {
		return "skipped"
	}
	return "did not run"
}

// maxOrderText is the longest order orderText writes out in full.
const maxOrderText = 4

// orderText renders an order for a reason or evidence line: in full when
// short, else its length and ends (the finding's failingOrder and the
// details file hold it whole).
func orderText(order []string) string {
	if len(order) <= maxOrderText {
		return "[" + strings.Join(order, ", ") + "]"
	}
	return fmt.Sprintf("[%s, ... (%d tests), %s]", order[0], len(order), order[len(order)-1])
}

// maxListText is how many items listText names.
const maxListText = 3

// listText joins the first items of a list and says how many more there are.
func listText(items []string) string {
	if len(items) <= maxListText {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:maxListText], "; "), len(items)-maxListText)
}

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
