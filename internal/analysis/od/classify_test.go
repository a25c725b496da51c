package od

import "testing"

func TestClassifyOD(t *testing.T) {
	const k = 3
	p, f := tally{pass: 3}, tally{fail: 3}
	cases := []struct {
		name                    string
		alone, failing, passing tally
		want                    verdict
	}{
		{"victim", p, f, p, victim},
		{"victim, passing order is longer", p, f, tally{pass: 4}, victim},
		{"brittle", f, f, p, brittle},
		{"failing order flips: NOD", p, tally{pass: 1, fail: 2}, p, notOrderDependent},
		{"passing order flips: NOD", f, f, tally{pass: 2, fail: 1}, notOrderDependent},
		{"alone flips: NOD", tally{pass: 2, fail: 1}, f, p, notOrderDependent},
		{"NOD even with too few runs", tally{pass: 1, fail: 1}, tally{fail: 1}, p, notOrderDependent},
		{"too few runs alone", tally{pass: 2}, f, p, undecided},
		{"too few failing runs", p, tally{fail: 2}, p, undecided},
		{"no outcome", tally{}, f, p, undecided},
		{"failing order passes now", p, p, p, stable},
	}
	if got := classifyOD(p, tally{fail: 2}, tally{pass: 2}, k, 2); got != victim {
		t.Errorf("prefixes need 2 runs: got %v, want victim", got)
	}
	for _, c := range cases {
		if got := classifyOD(c.alone, c.failing, c.passing, k, k); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestClassifyNIO(t *testing.T) {
	const k = 3
	cases := []struct {
		name          string
		first, second tally
		want          verdict
	}{
		{"passes then fails", tally{pass: 3}, tally{fail: 3}, nonIdempotent},
		{"fails then passes", tally{fail: 4}, tally{pass: 3}, nonIdempotent},
		{"always passes", tally{pass: 3}, tally{pass: 3}, stable},
		{"always fails", tally{fail: 3}, tally{fail: 3}, stable},
		{"second run flips: NOD", tally{pass: 3}, tally{pass: 1, fail: 2}, notOrderDependent},
		{"first run flips: NOD", tally{pass: 2, fail: 1}, tally{fail: 3}, notOrderDependent},
		{"too few runs", tally{pass: 3}, tally{fail: 1}, undecided},
	}
	for _, c := range cases {
		if got := classifyNIO(c.first, c.second, k); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
