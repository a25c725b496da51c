package state

import (
	"sort"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Pollution is the shared state one test's run changed.
type Pollution struct {
	Test  string
	Index int
	Roots []RootChange
}

// RootChange is one root a test changed, with the paths inside it.
type RootChange struct {
	Key
	Changes []Change // A: before the test, B: after it
	More    bool     // more paths changed than Changes holds
	Cut     string   // the walk of the root reached a bound
}

// Polluters replays a run captured before and after every test (agent
// option state=all) and returns the tests whose run changed shared state,
// in order. A root of a class first initialised during the test is compared
// with its value right after the class's static initialiser, so merely
// loading a class is no pollution.
func Polluters(events []agent.State) []Pollution {
	cur := Snapshot{}
	var out []Pollution
	var p *Pollution
	for _, e := range events {
		if e.Point == "after" && p == nil {
			p = &Pollution{Test: e.Test, Index: e.Index}
		}
		for _, r := range e.Roots {
			next := fromAgent(r)
			if e.Point == "after" {
				if prev, ok := cur.value(next.Key); ok {
					now := next
					if now.Initial {
						now = Root{Key: next.Key, Initial: true}
					}
					if !same(prev, now) {
						changes, more := Diff(prev, now, maxChanges)
						p.Roots = append(p.Roots, RootChange{Key: next.Key, Changes: changes, More: more, Cut: next.Cut})
					}
				}
			}
			apply(cur, next)
		}
		if e.Point == "after" && e.Last {
			if len(p.Roots) > 0 {
				sort.Slice(p.Roots, func(i, j int) bool {
					a, b := p.Roots[i].Key, p.Roots[j].Key
					if a.Kind != b.Kind {
						return kindRank(a.Kind) < kindRank(b.Kind)
					}
					return a.Root < b.Root
				})
				out = append(out, *p)
			}
			p = nil
		}
	}
	return out
}
