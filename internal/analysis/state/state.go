// Package state models the shared state the agent captures at test
// boundaries: canonical trees per root, replayed from a run's state
// events into snapshots, diffed root by root into short path/value changes.
// It finds the tests that pollute shared state (PolDet) and names and
// confirms the polluted state of order-dependent tests (ODRepair's
// debugger).
package state

import (
	"bytes"
	"encoding/json"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Root kinds, as report.json names them.
const (
	StaticField    = "static-field"
	SystemProperty = "system-property"
	JDKDefault     = "jdk-default"
	File           = "file"
)

// Key names one root: its kind and name (pkg.Class.FIELD, a property name,
// a default's name, a file path relative to its directory).
type Key struct {
	Kind string
	Root string
}

// Root is one root's captured value.
type Root struct {
	Key
	FP   string          // fingerprint of Tree
	Tree json.RawMessage // canonical tree; null for a removed property or deleted file
	Cut  string          // first bound the walk reached, if any
	// Initial says a property or file has the value it had when the JVM
	// started (it is then absent from the agent's events).
	Initial bool
}

// Snapshot is the state at one point of a run, by root.
type Snapshot map[Key]Root

// Point names a capture point of a run: before or after the test at Index.
type Point struct {
	Where string // "before" or "after"
	Index int
}

// Before is the point right before the test at index.
func Before(index int) Point { return Point{"before", index} }

// After is the point right after the test at index.
func After(index int) Point { return Point{"after", index} }

// fromAgent converts one root of a state event.
func fromAgent(r agent.StateRoot) Root {
	return Root{Key: Key{r.Kind, r.Root}, FP: r.FP, Tree: r.Tree, Cut: r.Cut, Initial: r.Absent}
}

// At replays a run's state events up to the capture at p and returns the
// state there, plus, for every static root that was not initialised yet,
// the value right after its class's static initialiser ran later in the run
// (what the test saw first). ok is false when the run has no capture at p.
func At(events []agent.State, p Point) (s Snapshot, ok bool) {
	cur := Snapshot{}
	i := 0
	for ; i < len(events); i++ {
		e := events[i]
		for _, r := range e.Roots {
			apply(cur, fromAgent(r))
		}
		if e.Point == p.Where && e.Index == p.Index && e.Last {
			ok = true
			i++
			break
		}
	}
	if !ok {
		return nil, false
	}
	s = clone(cur)
	for ; i < len(events); i++ {
		for _, r := range events[i].Roots {
			k := Key{r.Kind, r.Root}
			if _, seen := s[k]; !seen && r.Kind == StaticField {
				s[k] = fromAgent(r)
			}
		}
	}
	return s, true
}

// apply records r in s; a root back at its start value leaves s.
func apply(s Snapshot, r Root) {
	if r.Initial {
		delete(s, r.Key)
		return
	}
	s[r.Key] = r
}

func clone(s Snapshot) Snapshot {
	out := make(Snapshot, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// value returns a root's value in s: for properties and files a missing
// root has its start value (Initial); for static fields and defaults a
// missing root is unknown (ok false).
func (s Snapshot) value(k Key) (Root, bool) {
	if r, ok := s[k]; ok {
		return r, true
	}
	if k.Kind == SystemProperty || k.Kind == File {
		return Root{Key: k, Initial: true}, true
	}
	return Root{}, false
}

// same reports whether two values of one root are equal.
func same(a, b Root) bool {
	if a.Initial || b.Initial {
		return a.Initial == b.Initial
	}
	if a.FP != "" && b.FP != "" {
		return a.FP == b.FP
	}
	return bytes.Equal(a.Tree, b.Tree)
}
