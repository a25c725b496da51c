package chaos

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Settings say which classes the agent instruments and how its strategies
// are tuned; they turn into the chaos part of the agent options.
type Settings struct {
	// Roots are class directories: exactly the classes under them are
	// instrumented (chaos.roots). Relative paths resolve against the test
	// JVM's working directory.
	Roots []string
	// Include and Exclude are class-name patterns (fixture.chaos.*,
	// com.acme.**) used instead of, or to narrow, Roots.
	Include []string
	Exclude []string
	// Params are strategy parameters as key=value, the key with or without
	// its "chaos." prefix, e.g. time.increment=3000 or chaos.seed=7.
	Params []string
}

// reservedKeys are agent options Settings build themselves.
var reservedKeys = map[string]bool{"chaos": true, "chaos.roots": true, "chaos.include": true, "chaos.exclude": true}

// AgentOptions returns the agent options that enable strategies with these
// settings; no strategies means no options (no instrumentation).
func (s Settings) AgentOptions(strategies []Strategy) (agent.Options, error) {
	if len(strategies) == 0 {
		return agent.Options{}, nil
	}
	params, err := normalizeParams(s.Params)
	if err != nil {
		return agent.Options{}, err
	}
	opts := agent.Options{Chaos: agent.ChaosOptions{Strategies: IDs(strategies), Roots: s.Roots, Include: s.Include, Exclude: s.Exclude, Params: params}}
	if _, err := opts.Encode(); err != nil {
		return agent.Options{}, err
	}
	return opts, nil
}

// normalizeParams checks parameters and gives their keys the chaos. prefix;
// a later value of a key replaces an earlier one.
func normalizeParams(params []string) ([]agent.Param, error) {
	out := make([]agent.Param, 0, len(params))
	for _, p := range params {
		p = canonicalParam(p)
		k, v, ok := strings.Cut(p, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !strings.HasPrefix(k, "chaos.") {
			k = "chaos." + k
		}
		switch {
		case !ok || k == "chaos." || v == "":
			return nil, fmt.Errorf("strategy parameter %q: want key=value, e.g. time.increment=3000", p)
		case reservedKeys[k]:
			return nil, fmt.Errorf("strategy parameter %q: %s is set by flaky itself", p, k)
		case strings.Contains(p, ","):
			return nil, fmt.Errorf("strategy parameter %q: commas cannot be passed to the agent", p)
		}
		out = slices.DeleteFunc(out, func(q agent.Param) bool { return q.Key == k })
		out = append(out, agent.Param{Key: k, Value: v})
	}
	return out, nil
}

// paramKey returns the key of a chaos parameter "k=v" (spaces around it
// and the "chaos." prefix dropped, as the agent reads it) and its value as
// written after the "=".
func paramKey(kv string) (key, value string) {
	k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
	return strings.TrimPrefix(strings.TrimSpace(k), "chaos."), v
}

// canonicalParam rewrites the parameter of an old strategy name as its
// strategy's: time.fast=F (TIME_FAST's factor) is time.increment=(F-1)*1000,
// the same rate; a value that is no factor of at least 1 is left for the
// agent to reject.
func canonicalParam(kv string) string {
	k, v, _ := strings.Cut(kv, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if strings.TrimPrefix(k, "chaos.") != "time.fast" {
		return kv
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 1) || math.IsInf(f, 0) {
		return kv
	}
	return strings.TrimSuffix(k, "fast") + "increment=" + strconv.FormatInt(int64(math.Round((f-1)*1000)), 10)
}

// RootsFor returns class directories for Settings.Roots, relative to the
// test JVM's working directory dir when they lie inside it (shorter, and
// free of whatever characters the path above the module holds).
func RootsFor(dir string, classDirs ...string) []string {
	roots := make([]string, 0, len(classDirs))
	for _, d := range classDirs {
		if d == "" {
			continue
		}
		if rel, err := filepath.Rel(dir, d); err == nil && dir != "" && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			d = filepath.ToSlash(rel)
		}
		roots = append(roots, d)
	}
	return roots
}
