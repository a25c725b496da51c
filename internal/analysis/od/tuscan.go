package od

// williams returns a Williams square of even order n: n rows, each a
// permutation of 0..n-1, in which every ordered pair (a, b) with a != b is
// adjacent (a right before b) in exactly one row. Row i is the base row
// 0, 1, n-1, 2, n-2, ... shifted by i modulo n; the base row's successive
// differences are all distinct modulo n, which makes the square row-complete.
func williams(n int) [][]int {
	base := make([]int, n)
	for j := 1; j < n; j++ {
		if j%2 == 1 {
			base[j] = (j + 1) / 2
		} else {
			base[j] = n - j/2
		}
	}
	rows := make([][]int, n)
	for i := range rows {
		row := make([]int, n)
		for j, b := range base {
			row[j] = (b + i) % n
		}
		rows[i] = row
	}
	return rows
}

// pairRows returns orders of 0..n-1 that together put every ordered pair
// next to each other at least once (a Tuscan square): the n rows of a
// Williams square for even n; for odd n the n+1 rows of the square of order
// n+1 with the extra symbol removed (removing it joins its two neighbours,
// and no pair of real symbols that was adjacent is separated).
func pairRows(n int) [][]int {
	switch {
	case n <= 0:
		return nil
	case n == 1:
		return [][]int{{0}}
	case n%2 == 0:
		return williams(n)
	}
	rows := williams(n + 1)
	for i, row := range rows {
		out := make([]int, 0, n)
		for _, v := range row {
			if v != n {
				out = append(out, v)
			}
		}
		rows[i] = out
	}
	return rows
}
