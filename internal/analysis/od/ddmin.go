package od

import "context"

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
// group of two or more): each half is minimised with the other kept whole,
// then the first half's result kept (divide and conquer, as in QuickXplain).
func ddmin(ctx context.Context, items []string, test oracle, wave func() int) ([]string, error) {
	n := 2
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
		if n == 2 {
			front, back := subsets[0], subsets[1]
			front, err := ddmin(ctx, front, around(test, nil, back), wave)
			if err != nil {
				return nil, err
			}
			back, err = ddmin(ctx, back, around(test, front, nil), wave)
			if err != nil {
				return nil, err
			}
			if len(front)+len(back) < len(items) {
				items = concat(front, back)
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

// around returns the oracle test with before and after kept around each candidate.
func around(test oracle, before, after []string) oracle {
	return func(ctx context.Context, cands [][]string) ([]bool, error) {
		full := make([][]string, len(cands))
		for i, c := range cands {
			full[i] = concat(before, c, after)
		}
		return test(ctx, full)
	}
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
