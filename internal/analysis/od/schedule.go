package od

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// startCost is what a JVM costs beyond its tests when the original runs
// do not tell.
const startCost = 500 * time.Millisecond

// schedule returns the detection orders in the order to run them: the
// cheapest informative runs first. The isolation and twice-in-a-row runs,
// cheapest first (a short test alone before a long one, the whole suite
// twice last), take turns with the exploration orders, which keep their
// order, by estimated cost rather than by count: while an exploration order
// of the whole suite runs, several short tests run alone. Each order keeps
// its place in the plan (plannedOrder.plan), which shards go by.
func (og *ordering) schedule(orders []plannedOrder) []plannedOrder {
	overhead, testTime := og.costs()
	cost := func(o plannedOrder) time.Duration {
		c := overhead
		for _, t := range o.tests {
			c += testTime(t)
		}
		return c
	}
	var explore, cheap []plannedOrder
	for _, o := range orders {
		if o.gen == GenIsolation || o.gen == GenTwice {
			cheap = append(cheap, o)
		} else {
			explore = append(explore, o)
		}
	}
	slices.SortStableFunc(cheap, func(x, y plannedOrder) int { return cmp.Compare(cost(x), cost(y)) })
	out := make([]plannedOrder, 0, len(orders))
	var spentExplore, spentCheap time.Duration
	for len(explore) > 0 || len(cheap) > 0 {
		if len(explore) == 0 || (len(cheap) > 0 && spentCheap <= spentExplore) {
			spentCheap += cost(cheap[0])
			out, cheap = append(out, cheap[0]), cheap[1:]
		} else {
			spentExplore += cost(explore[0])
			out, explore = append(out, explore[0]), explore[1:]
		}
	}
	return out
}

// costs estimates from the original runs what a JVM costs beyond its tests
// and what each test takes (the mean test time for tests without one).
func (rec *recorder) costs() (time.Duration, func(string) time.Duration) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	times := map[string]time.Duration{}
	overhead := startCost
	var total time.Duration
	for _, r := range rec.originals {
		var tests time.Duration
		for _, t := range r.Tests {
			d := time.Duration(t.TimeMs) * time.Millisecond
			times[t.Test] = max(times[t.Test], d)
			tests += d
		}
		if r.Duration > tests {
			overhead = r.Duration - tests
		}
	}
	for _, d := range times {
		total += d
	}
	mean := time.Duration(0)
	if len(times) > 0 {
		mean = total / time.Duration(len(times))
	}
	return overhead, func(t string) time.Duration {
		if d, ok := times[t]; ok {
			return d
		}
		return mean
	}
}

// maxWorkersPerCore bounds the workers sizeWorkers chooses per core, for
// suites whose JVMs mostly wait.
const maxWorkersPerCore = 2

// sizeWorkers sets the number of JVMs to run at once from what the
// original runs demanded of the cores: the cores over a JVM's CPU time plus
// the time its threads waited for a core, over its wall time (JIT and GC
// threads included), at most the available memory over a JVM's peak
// resident memory. Other processes' load does not change that demand, so
// a busy machine gets the workers a quiet one does. More workers than
// cores only when the JVMs provably waited, which needs the run-queue wait
// (Linux): elsewhere at most one per core.
func (rec *recorder) sizeWorkers() {
	rec.mu.Lock()
	var wall, demand time.Duration
	var rss int64
	known := true
	for _, r := range rec.originals {
		wall += r.Duration
		demand += r.CPU + r.RunDelay
		known = known && r.DelayKnown
		rss = max(rss, r.MaxRSS)
	}
	rec.mu.Unlock()
	if wall <= 0 || demand <= 0 {
		return
	}
	cores := runtime.NumCPU()
	perJVM := max(float64(demand)/float64(wall), 0.1)
	most := maxWorkersPerCore * cores
	if !known {
		most = cores
	}
	n := min(max(1, int(float64(cores)/perJVM+0.5)), most)
	why := fmt.Sprintf("a JVM of the suite demanded %.1f cores; %d cores", perJVM, cores)
	if avail := launcher.AvailableMemory(); avail > 0 && rss > 0 {
		byMemory := max(1, int(avail*8/10/rss))
		why += fmt.Sprintf(", %d MiB per JVM, %d MiB available", rss>>20, avail>>20)
		n = min(n, byMemory)
	}
	rec.cfg.Workers = n
	rec.slots = semaphore.NewWeighted(int64(n))
	rec.mu.Lock()
	rec.cov.WorkersWhy = why
	rec.mu.Unlock()
	rec.logf("%d workers (%s)", n, why)
}
