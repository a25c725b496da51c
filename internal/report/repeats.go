package report

import "math"

// maxNODRepeats bounds how often a NOD test is repeated in its reproduce order.
const maxNODRepeats = 50

// NODOrder is the order a NOD finding's reproduce commands run: order (which
// ends with test) with test repeated so that a failure among its runs is
// 99.99% likely when it fails as often as seen, fails out of runs times, at
// most 50 runs in all. The rate is the lower bound of its 95% confidence
// interval, without one failure: the one that got the test rerun. Reruns stop
// once the outcome flips, so that failure is not a sample of the rate, and
// counting it overstates a rare failure's rate (a test failing 30% of the
// time, seen failing 4 times in 5, got 15 runs, and its reproduce command
// passed about once in 200 times).
func NODOrder(order []string, test string, fails, runs int) []string {
	out := append([]string(nil), order...)
	for range nodRuns(fails, runs) - 1 {
		out = append(out, test)
	}
	return out
}

// nodRuns returns how many runs NODOrder gives a test that failed fails
// out of runs times.
func nodRuns(fails, runs int) int {
	if fails > 0 {
		fails, runs = fails-1, runs-1
	}
	p := wilsonLower(fails, runs)
	if p >= 1 {
		return 1
	}
	n := math.Ceil(math.Log(1e-4) / math.Log1p(-p))
	if p <= 0 || n >= maxNODRepeats {
		return maxNODRepeats
	}
	return max(1, int(n))
}

// wilsonLower is the lower bound of the 95% Wilson score interval of a
// failure rate seen as fails out of runs.
func wilsonLower(fails, runs int) float64 {
	if runs == 0 {
		return 0
	}
	const z = 1.96
	n, p := float64(runs), float64(fails)/float64(runs)
	return (p + z*z/(2*n) - z*math.Sqrt(p*(1-p)/n+z*z/(4*n*n))) / (1 + z*z/n)
}
