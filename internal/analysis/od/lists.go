package od

import (
	"slices"
	"strings"
)

// dedupe drops repeated ids, keeping the first occurrence.
func dedupe(ids []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// concat joins lists into a new one.
func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// without returns items minus the ones in drop, order kept.
func without(items []string, drop map[string]bool) []string {
	out := make([]string, 0, len(items))
	for _, x := range items {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

func toSet(items []string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, x := range items {
		m[x] = true
	}
	return m
}

func reversed(items []string) []string {
	out := slices.Clone(items)
	slices.Reverse(out)
	return out
}

// isSubsequence reports whether sub's items appear in list in the same order.
func isSubsequence(sub, list []string) bool {
	i := 0
	for _, x := range list {
		if i < len(sub) && sub[i] == x {
			i++
		}
	}
	return i == len(sub)
}

// overlaps reports whether any item of g is in set.
func overlaps(g []string, set map[string]bool) bool {
	return slices.ContainsFunc(g, func(x string) bool { return set[x] })
}

// explained reports whether prefix holds every member of one of the groups.
func explained(prefix []string, groups [][]string) bool {
	have := toSet(prefix)
	for _, g := range groups {
		if !slices.ContainsFunc(g, func(x string) bool { return !have[x] }) {
			return true
		}
	}
	return false
}

// lastIndexOfGroup returns the position in order of g's last member to run,
// or -1 when some member is missing.
func lastIndexOfGroup(order, g []string) int {
	last := -1
	for _, x := range g {
		i := slices.Index(order, x)
		if i < 0 {
			return -1
		}
		last = max(last, i)
	}
	return last
}

// appendNew appends the groups that groups does not hold yet.
func appendNew(groups [][]string, add ...[]string) [][]string {
	for _, g := range add {
		if !slices.ContainsFunc(groups, func(h []string) bool { return slices.Equal(g, h) }) {
			groups = append(groups, g)
		}
	}
	return groups
}

// shortest returns the first of the smallest groups.
func shortest(groups [][]string) []string {
	var best []string
	for _, g := range groups {
		if best == nil || len(g) < len(best) {
			best = g
		}
	}
	return best
}

// sortedGroups returns the groups with their members sorted, sorted, so
// reports do not depend on the orders that found them.
func sortedGroups(groups [][]string) [][]string {
	if groups == nil {
		return nil
	}
	out := make([][]string, len(groups))
	for i, g := range groups {
		out[i] = slices.Sorted(slices.Values(g))
	}
	slices.SortFunc(out, func(x, y []string) int {
		return strings.Compare(strings.Join(x, "\x00"), strings.Join(y, "\x00"))
	})
	return out
}
