package od

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// needs returns an oracle that holds when the candidate contains every test
// of one of the groups (in any order), and counts the candidates it saw.
func needs(runs *int, groups ...[]string) oracle {
	return func(_ context.Context, cands [][]string) ([]bool, error) {
		out := make([]bool, len(cands))
		for i, c := range cands {
			*runs++
			for _, g := range groups {
				if !slices.ContainsFunc(g, func(x string) bool { return !slices.Contains(c, x) }) {
					out[i] = true
				}
			}
		}
		return out, nil
	}
}

func TestDDMin(t *testing.T) {
	items := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	cases := []struct {
		name   string
		groups [][]string
		want   [][]string // acceptable answers
	}{
		{"single", [][]string{{"g"}}, [][]string{{"g"}}},
		{"first", [][]string{{"a"}}, [][]string{{"a"}}},
		{"last", [][]string{{"k"}}, [][]string{{"k"}}},
		{"pair far apart", [][]string{{"b", "j"}}, [][]string{{"b", "j"}}},
		{"pair adjacent", [][]string{{"e", "f"}}, [][]string{{"e", "f"}}},
		{"triple", [][]string{{"a", "f", "k"}}, [][]string{{"a", "f", "k"}}},
		{"two independent groups", [][]string{{"c"}, {"h", "i"}}, [][]string{{"c"}, {"h", "i"}}},
		{"two groups across the halves", [][]string{{"a", "k"}, {"b", "j"}}, [][]string{{"a", "k"}, {"b", "j"}}},
		{"everything", [][]string{items}, [][]string{items}},
	}
	for _, c := range cases {
		for _, w := range []int{1, 2, 100} {
			t.Run(fmt.Sprintf("%s/wave %d", c.name, w), func(t *testing.T) {
				runs := 0
				got, err := ddmin(context.Background(), items, needs(&runs, c.groups...), func() int { return w })
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(c.want, func(w []string) bool { return slices.Equal(w, got) }) {
					t.Errorf("got %v, want one of %v", got, c.want)
				}
				if !isSubsequence(got, items) {
					t.Errorf("%v does not keep the order of %v", got, items)
				}
				if runs > 2*len(items)*len(items) {
					t.Errorf("%d oracle calls for %d items", runs, len(items))
				}
				t.Logf("%d oracle calls", runs)
			})
		}
	}
}

func TestDDMinSingleItem(t *testing.T) {
	runs := 0
	got, err := ddmin(context.Background(), []string{"x"}, needs(&runs, []string{"x"}), nil)
	if err != nil || !slices.Equal(got, []string{"x"}) || runs != 0 {
		t.Errorf("got %v, %v after %d runs; want [x] without running", got, err, runs)
	}
}

func TestDDMinStopsOnOracleError(t *testing.T) {
	_, err := ddmin(context.Background(), []string{"a", "b"}, func(context.Context, [][]string) ([]bool, error) {
		return nil, context.Canceled
	}, func() int { return 2 })
	if err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestSplit(t *testing.T) {
	items := []string{"a", "b", "c", "d", "e"}
	for n := 1; n <= 5; n++ {
		parts := split(items, n)
		if len(parts) != n || !slices.Equal(concat(parts...), items) {
			t.Errorf("split into %d: %v", n, parts)
		}
		for _, p := range parts {
			if len(p) == 0 {
				t.Errorf("split into %d has an empty part: %v", n, parts)
			}
		}
	}
}
