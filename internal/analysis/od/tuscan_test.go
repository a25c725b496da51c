package od

import (
	"fmt"
	"testing"
)

func TestPairRowsCoverEveryOrderedPair(t *testing.T) {
	for n := 1; n <= 13; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rows := pairRows(n)
			want := n
			if n > 1 && n%2 == 1 {
				want = n + 1
			}
			if len(rows) != want {
				t.Fatalf("%d rows, want %d", len(rows), want)
			}
			adjacent := map[[2]int]int{}
			for _, row := range rows {
				if len(row) != n {
					t.Fatalf("row %v has %d symbols, want %d", row, len(row), n)
				}
				seen := map[int]bool{}
				for i, v := range row {
					if v < 0 || v >= n || seen[v] {
						t.Fatalf("row %v is not a permutation of 0..%d", row, n-1)
					}
					seen[v] = true
					if i > 0 {
						adjacent[[2]int{row[i-1], v}]++
					}
				}
			}
			for a := range n {
				for b := range n {
					if a != b && adjacent[[2]int{a, b}] == 0 {
						t.Errorf("pair (%d,%d) never adjacent", a, b)
					}
				}
			}
			if n%2 == 0 && len(adjacent) != n*(n-1) {
				t.Errorf("even n: %d distinct adjacent pairs, want exactly %d (each once)", len(adjacent), n*(n-1))
			}
		})
	}
}
