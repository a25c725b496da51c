package od

import (
	"cmp"
	"slices"
	"sync"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// node is one order prefix in the store: the outcomes seen for its last
// test after the tests before it, in the same JVM. A test's outcome depends
// only on what ran before it, so every run of an order also answers for
// each of its prefixes.
type node struct {
	parent   *node
	test     string
	depth    int
	children map[string]*node
	tally
	skipped int              // skipped, or an assumption failed
	message string           // the first failure message
	failure launcher.Outcome // the first failure's outcome
	label   string           // the run that first covered this prefix
}

// order returns the prefix the node stands for, its test last.
func (n *node) order() []string {
	out := make([]string, n.depth)
	for m := n; m.depth > 0; m = m.parent {
		out[m.depth-1] = m.test
	}
	return out
}

// repeats reports whether the node's test also runs earlier in its prefix.
func (n *node) repeats() bool {
	for m := n.parent; m != nil && m.depth > 0; m = m.parent {
		if m.test == n.test {
			return true
		}
	}
	return false
}

// obs is a copy of what the store knows about one order prefix.
type obs struct {
	order []string // the prefix, its test last
	tally
	skipped int
	message string
	failure launcher.Outcome
	label   string
}

func (n *node) obs() obs {
	return obs{order: n.order(), tally: n.tally, skipped: n.skipped, message: n.message, failure: n.failure, label: n.label}
}

// store caches the outcomes of every run in a trie of order prefixes. It
// is safe for concurrent use.
type store struct {
	mu     sync.Mutex
	root   node
	byTest map[string][]*node // the nodes whose last test is the key
}

func newStore() *store {
	return &store{byTest: map[string][]*node{}}
}

// add records a run of r.Order labelled label and returns the outcome of
// each of its entries.
func (s *store) add(label string, r *launcher.Result) []positionResult {
	outcomes := positionOutcomes(r.Order, r.Tests)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := &s.root
	for i, t := range r.Order {
		n = s.child(n, t)
		if n.label == "" {
			n.label = label
		}
		switch outcomes[i].outcome {
		case launcher.Skipped:
			n.skipped++
		case launcher.Pass:
			n.pass++
		case launcher.Fail, launcher.Error, launcher.Timeout, launcher.Crash:
			n.fail++
			if n.failure == "" {
				n.message, n.failure = outcomes[i].message, outcomes[i].outcome
			}
		}
	}
	return outcomes
}

func (s *store) child(n *node, t string) *node {
	c := n.children[t]
	if c == nil {
		if n.children == nil {
			n.children = map[string]*node{}
		}
		c = &node{parent: n, test: t, depth: n.depth + 1}
		n.children[t] = c
		s.byTest[t] = append(s.byTest[t], c)
	}
	return c
}

// get returns what is known about order (its tally is zero when no run covered it).
func (s *store) get(order []string) obs {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := &s.root
	for _, t := range order {
		if n = n.children[t]; n == nil {
			return obs{order: order}
		}
	}
	return n.obs()
}

// tallies returns the tally of each prefix of order, in order (zero for
// the prefixes no run covered).
func (s *store) tallies(order []string) []tally {
	out := make([]tally, len(order))
	s.mu.Lock()
	defer s.mu.Unlock()
	n := &s.root
	for i, t := range order {
		if n = n.children[t]; n == nil {
			break
		}
		out[i] = n.tally
	}
	return out
}

// observed returns the prefixes t ran after with an outcome, shortest
// first: the ones where t ran before (repeats) or the others.
func (s *store) observed(t string, repeats bool) []obs {
	s.mu.Lock()
	var out []obs
	for _, n := range s.byTest[t] {
		if n.runs() > 0 && n.repeats() == repeats {
			out = append(out, n.obs())
		}
	}
	s.mu.Unlock()
	sortObs(out)
	return out
}

// all returns every prefix t ran after with an outcome, shortest first.
func (s *store) all(t string) []obs {
	return append(s.observed(t, false), s.observed(t, true)...)
}

// sortObs orders observations by length, then by their orders, so choices
// between them do not depend on which run finished first.
func sortObs(out []obs) {
	slices.SortStableFunc(out, func(x, y obs) int {
		if c := cmp.Compare(len(x.order), len(y.order)); c != 0 {
			return c
		}
		return slices.Compare(x.order, y.order)
	})
}

// positionResult is the outcome of one order entry in a run.
type positionResult struct {
	outcome launcher.Outcome // "" when the entry got no result
	message string
}

// severity ranks outcomes when a test template's invocations disagree.
func severity(o launcher.Outcome) int {
	switch o {
	case launcher.Fail, launcher.Error, launcher.Timeout, launcher.Crash:
		return 3
	case launcher.Pass:
		return 2
	case launcher.Skipped:
		return 1
	}
	return 0
}

// positionOutcomes maps a run's test results to the entries of its order: a
// result belongs to the first entry without one that it answers (the same
// id, or an invocation "id[i]" of a test template; a template's further
// invocations stay with its entry). An entry's outcome is the worst of its
// results.
func positionOutcomes(order []string, tests []launcher.TestResult) []positionResult {
	out := make([]positionResult, len(order))
	taken := make([]bool, len(order))
	invocations := map[int]map[string]bool{}
	cur := -1
	for _, tr := range tests {
		if tr.Outcome == launcher.NotRun {
			continue
		}
		p := -1
		if cur >= 0 && tr.Test != order[cur] && answers(order[cur], tr.Test) && !invocations[cur][tr.Test] {
			p = cur
		} else {
			p = firstOpen(order, taken, tr.Test, cur+1)
			if p < 0 {
				p = firstOpen(order, taken, tr.Test, 0)
			}
			if p < 0 {
				continue
			}
			taken[p] = true
		}
		cur = p
		if tr.Test != order[p] {
			if invocations[p] == nil {
				invocations[p] = map[string]bool{}
			}
			invocations[p][tr.Test] = true
		}
		if severity(tr.Outcome) > severity(out[p].outcome) {
			out[p] = positionResult{outcome: tr.Outcome, message: tr.Message}
		}
	}
	return out
}

func firstOpen(order []string, taken []bool, test string, from int) int {
	for i := from; i < len(order); i++ {
		if !taken[i] && answers(order[i], test) {
			return i
		}
	}
	return -1
}

// answers reports whether a result for test answers the order entry.
func answers(entry, test string) bool {
	return testid.IsInvocation(test, entry)
}
