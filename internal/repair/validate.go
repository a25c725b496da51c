package repair

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/chaos"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
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
// way for every kind: in the sandbox the test passes in its
// failing order, alone, and for NIO twice in one JVM; every polluter and
// setter still passes; the module's default order keeps the outcome of every
// other test (as of the patches accepted so far: accepting a candidate makes
// its default-order run the new reference); an api finding's test passes
// under its strategy. It returns
// the evidence, and feedback (empty when valid) saying concisely what failed.
func (r *run) validate(ctx context.Context, f report.Finding, c *candidate) (evidence []string, feedback string, err error) {
	var files map[string][]byte
	patched := c != nil
	if patched {
		files = c.files
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
	if f.Kind == report.NIO {
		checks = append(checks, check{"twice in one JVM", []string{f.Test, f.Test}, agent.Options{}})
	}
	if f.Kind == report.API {
		opts := r.agentOptions(f)
		if len(opts.Chaos.Strategies) == 0 {
			return nil, "", fmt.Errorf("strategy %q of an api finding: unknown", f.Strategy)
		}
		checks = append(checks, check{"under " + f.Strategy, []string{f.Test}, opts})
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
	for _, t := range uniq(checks[0].order) {
		if !passedAll(first[0], t) {
			return nil, fmt.Sprintf("%s %s: %s %s", checks[0].label, orderText(checks[0].order), t, failureText(first[0], t)), nil
		}
	}
	rest, err := r.sb.l.RunJobs(ctx, jobs[1:])
	if err != nil {
		return nil, "", err
	}
	results := append(first, rest...)
	for i, c := range checks {
		res := results[i]
		if c.label == "default order" {
			if changed := r.changedOutcomes(res, f.Test); len(changed) > 0 {
				return nil, "the module's default order changed: " + strings.Join(changed, "; "), nil
			}
			evidence = append(evidence, fmt.Sprintf("default order (%d tests): every other test's outcome unchanged", len(res.Order)))
			if patched {
				r.validBase = res
			}
			continue
		}
		for _, t := range uniq(c.order) {
			if !passedAll(res, t) {
				return nil, fmt.Sprintf("%s %s: %s %s", c.label, orderText(c.order), t, failureText(res, t)), nil
			}
		}
		evidence = append(evidence, fmt.Sprintf("%s %s: pass", c.label, orderText(c.order)))
	}
	return evidence, "", nil
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
	settings := chaos.Settings{Roots: chaos.RootsFor(r.sb.Dir, r.sb.mapPath(r.cfg.Module.ClassesDir), r.sb.mapPath(r.cfg.Module.TestClassesDir))}
	opts, err := settings.AgentOptions(strategies)
	if err != nil {
		return agent.Options{}
	}
	return opts
}

// changedOutcomes lists the tests other than test (and the NOD findings)
// whose outcome in res differs from the unpatched default order's.
func (r *run) changedOutcomes(res *launcher.Result, test string) []string {
	before := map[string]launcher.Outcome{}
	for _, t := range r.base.Tests {
		before[t.Test] = t.Outcome
	}
	var out []string
	for _, t := range res.Tests {
		if t.Test == test || slices.Contains(r.nod, t.Test) {
			continue
		}
		if b, ok := before[t.Test]; ok && b != t.Outcome {
			out = append(out, fmt.Sprintf("%s was %s, now %s", t.Test, b, t.Outcome))
		}
	}
	return out
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

// failureText says how test failed in res: its outcome and first message line.
func failureText(res *launcher.Result, test string) string {
	for _, t := range res.Tests {
		if t.Test == test && t.Outcome != launcher.Pass {
			msg := t.Message
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			if msg == "" {
				msg = t.FailureType
			}
			return fmt.Sprintf("%s: %s", t.Outcome, msg)
		}
	}
	return "did not run"
}

func orderText(order []string) string { return "[" + strings.Join(order, ", ") + "]" }

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
