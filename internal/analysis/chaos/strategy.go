package chaos

import (
	"fmt"
	"slices"
	"strings"
)

// Strategy is one way the agent perturbs an API group.
type Strategy struct {
	ID    string // as in agent options, events and reports, e.g. RANDOM_MAX
	Group string // e.g. RANDOM
	// OutsideSpec says the strategy does what the API's specification does
	// not allow, so a failure it causes may not be a real problem.
	OutsideSpec bool
}

// Strategies are all strategies the agent knows, in canonical order: by
// group, the group's default (the one combined mode uses) first.
var Strategies = []Strategy{
	{ID: "RANDOM_MAX", Group: "RANDOM"},
	{ID: "TIME_INCREMENT", Group: "TIME"},
	{ID: "TIME_ROUNDING", Group: "TIME"},
	{ID: "TIME_SLOW", Group: "TIME"},
	{ID: "DATE_FIXED", Group: "DATE"},
	{ID: "DATE_YEAR_END", Group: "DATE"},
	{ID: "DATE_DST", Group: "DATE"},
	{ID: "LOCALE", Group: "LOCALE"},
	{ID: "TIMEZONE", Group: "LOCALE"},
	{ID: "SLEEP_INCREASE", Group: "SLEEP"},
	{ID: "SLEEP_DECREASE", Group: "SLEEP", OutsideSpec: true},
	{ID: "CONCURRENCY_SHRINK", Group: "CONCURRENCY"},
	{ID: "NETWORK_DELAY", Group: "NETWORK"},
	{ID: "ASYNC_DELAY", Group: "ASYNC"},
	{ID: "ITERATION_ORDER", Group: "ITERATION_ORDER"},
}

// DefaultCombined are the strategies combined mode uses by default: one per
// group, ChaosAPI's defaults, and ITERATION_ORDER, which runs in a pass of
// its own beside the combined run of the others (see ownPass); ASYNC_DELAY
// only when asked for (it adds a second to every piece of work handed to
// another thread, which would slow every combined run).
var DefaultCombined = mustLookup("RANDOM_MAX", "TIME_INCREMENT", "DATE_FIXED", "LOCALE", "SLEEP_INCREASE", "CONCURRENCY_SHRINK", "NETWORK_DELAY", "ITERATION_ORDER")

// aliases are names a strategy was once called: TIME_FAST, once a clock
// running faster by a factor, is TIME_INCREMENT (time.fast=F is
// time.increment=(F-1)*1000, the pause before a reading of the clock).
var aliases = map[string]string{"TIME_FAST": "TIME_INCREMENT"}

// Groups are the API groups, in canonical order.
func Groups() []string {
	var groups []string
	for _, s := range Strategies {
		if !slices.Contains(groups, s.Group) {
			groups = append(groups, s.Group)
		}
	}
	return groups
}

// Parse resolves strategy names: strategy ids (or their old names, see
// aliases), '+'-separated lists of them, or group names, which stand for
// every strategy of the group (a name that is both, such as LOCALE, is the
// strategy). Names are case-insensitive. The result is deduplicated and in canonical order.
func Parse(names ...string) ([]Strategy, error) {
	want := map[string]bool{}
	for _, arg := range names {
		for _, name := range strings.Split(arg, "+") {
			name = strings.ToUpper(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			if id, ok := aliases[name]; ok {
				name = id
			}
			// A strategy id wins over the group of the same name (LOCALE,
			// ITERATION_ORDER).
			found := slices.ContainsFunc(Strategies, func(s Strategy) bool { return s.ID == name })
			if found {
				want[name] = true
			}
			for _, s := range Strategies {
				if !found && s.Group == name {
					want[s.ID] = true
				}
			}
			found = found || slices.ContainsFunc(Strategies, func(s Strategy) bool { return s.Group == name })
			if !found {
				return nil, fmt.Errorf("unknown strategy %q (strategies: %s; or a group: %s)", name, strings.Join(IDs(Strategies), ", "), strings.Join(Groups(), ", "))
			}
		}
	}
	var out []Strategy
	for _, s := range Strategies {
		if want[s.ID] {
			out = append(out, s)
		}
	}
	return out, nil
}

// IDs returns the strategies' ids.
func IDs(strategies []Strategy) []string {
	ids := make([]string, len(strategies))
	for i, s := range strategies {
		ids[i] = s.ID
	}
	return ids
}

// Join names strategies as the agent's chaos option does: ids joined by '+'.
func Join(strategies []Strategy) string { return strings.Join(IDs(strategies), "+") }

// checkCombinable reports strategies of the same group, which one run
// cannot combine (they perturb the same APIs).
func checkCombinable(strategies []Strategy) error {
	seen := map[string]string{}
	for _, s := range strategies {
		if other, ok := seen[s.Group]; ok {
			return fmt.Errorf("strategies %s and %s perturb the same APIs (group %s): combined mode takes one strategy per group", other, s.ID, s.Group)
		}
		seen[s.Group] = s.ID
	}
	return nil
}

func mustLookup(ids ...string) []Strategy {
	out, err := Parse(ids...)
	if err != nil || len(out) != len(ids) {
		panic(fmt.Sprintf("chaos: bad strategy list %q: %v", ids, err))
	}
	return out
}
