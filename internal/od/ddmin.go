package od

import (
	"context"
	"slices"
)

// oracle tells for each candidate (a subsequence of the tests being
// minimised) whether it still shows the effect; it may run the candidates
// in parallel.
type oracle func(ctx context.Context, candidates [][]string) ([]bool, error)

// ddmin is Zeller's delta debugging minimisation: given items that show
// the effect, it returns a subsequence (order kept) that shows it and from
// which no single element can be removed without losing it (1-minimal),
// finding groups of tests that only act together. Each granularity's
// subsets are tested, then its complements, wave() at a time, until one
// shows the effect.
//
// When neither half shows the effect, the effect needs tests from both (a
// group of two or more), and a short list is first cut down to the tests
// whose removal alone loses the effect, all such removals tested at once.
func ddmin(ctx context.Context, items []string, test oracle, wave func() int) ([]string, error) {
	n := 2
	cut := false
	for len(items) >= 2 {
		subsets := split(items, n)
		found, err := first(ctx, test, subsets, wave)
		if err != nil {
			return nil, err
		}
		if found >= 0 {
			items, n = subsets[found], 2
			continue
		}
		if n == 2 && !cut && len(items) <= maxCut {
			cut = true
			needed, err := necessary(ctx, items, test)
			if err != nil {
				return nil, err
			}
			if needed != nil {
				items = needed
				continue
			}
		}
		if n > 2 {
			complements := make([][]string, len(subsets))
			for i := range subsets {
				complements[i] = complement(subsets, i)
			}
			found, err := first(ctx, test, complements, wave)
			if err != nil {
				return nil, err
			}
			if found >= 0 {
				items, n = complements[found], max(n-1, 2)
				continue
			}
		}
		if n >= len(items) {
			break
		}
		n = min(2*n, len(items))
	}
	return items, nil
}

// maxCut is the longest list ddmin cuts down by single removals.
const maxCut = 12

// necessary returns the items whose removal alone loses the effect, when
// they still show it together; nil otherwise.
func necessary(ctx context.Context, items []string, test oracle) ([]string, error) {
	without := make([][]string, len(items))
	for i := range items {
		without[i] = append(slices.Clone(items[:i]), items[i+1:]...)
	}
	res, err := test(ctx, without)
	if err != nil {
		return nil, err
	}
	var needed []string
	for i, ok := range res {
		if !ok {
			needed = append(needed, items[i])
		}
	}
	if len(needed) == 0 || len(needed) == len(items) {
		return nil, nil
	}
	res, err = test(ctx, [][]string{needed})
	if err != nil || !res[0] {
		return nil, err
	}
	return needed, nil
}

// first returns the index of the first candidate showing the effect, or
// -1, testing wave() candidates at a time (at least one) and stopping at
// the first wave with a hit.
func first(ctx context.Context, test oracle, candidates [][]string, wave func() int) (int, error) {
	for i := 0; i < len(candidates); {
		n := min(len(candidates)-i, max(1, wave()))
		res, err := test(ctx, candidates[i:i+n])
		if err != nil {
			return -1, err
		}
		for j, ok := range res {
			if ok {
				return i + j, nil
			}
		}
		i += n
	}
	return -1, nil
}

// split cuts items into n contiguous parts of nearly equal size.
func split(items []string, n int) [][]string {
	out := make([][]string, 0, n)
	start := 0
	for i := range n {
		end := start + (len(items)-start)/(n-i)
		out = append(out, items[start:end:end])
		start = end
	}
	return out
}

// complement concatenates every part but the i-th.
func complement(parts [][]string, i int) []string {
	var out []string
	for j, p := range parts {
		if j != i {
			out = append(out, p...)
		}
	}
	return out
}
