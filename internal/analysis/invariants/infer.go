// Package invariants infers Daikon's core likely invariants from the
// invariant tracer's samples (agent option invariants) and compares an OD
// test's passing and failing runs into Takuan's problem invariants.
package invariants

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Confidence is Daikon's default confidence limit: an invariant is
// justified when the chance that it held by coincidence is below it.
const Confidence = 0.01

// MaxOneOf is the most values a one-of invariant lists (Daikon's default).
const MaxOneOf = 3

// Invariant is one likely invariant at a program point: the variable it
// is about (the left-hand one for an equality) and its Daikon-style text.
type Invariant struct {
	Variable string
	Text     string
}

// value is one sampled value: a number, a boolean, a string (kind
// string, or the joined elements of a string[]), or null.
type value struct {
	null bool
	num  float64
	str  string // kind string, boolean ("true"/"false"), string[] ("[a, b]"); a number's text otherwise
}

// column is a variable's values over the samples where it is not
// nonsensical, and how many samples it is missing from.
type column struct {
	v       agent.TraceVar
	values  []value
	missing int
}

// Infer returns the justified invariants of one program point's sample, in
// the order of the point's variables.
func Infer(p agent.TracePoint) []Invariant {
	cols := columns(p)
	var out []Invariant
	constant := map[string]string{}
	for _, c := range cols {
		invs, k := unary(c)
		if k != "" {
			constant[c.v.Name] = k
		}
		for _, t := range invs {
			out = append(out, Invariant{Variable: c.v.Name, Text: t})
		}
	}
	out = append(out, equalities(p, cols, constant)...)
	return out
}

func columns(p agent.TracePoint) []column {
	cols := make([]column, 0, len(p.Vars))
	for _, v := range p.Vars {
		c := column{v: v}
		for _, s := range p.Samples {
			raw, ok := s[v.Name]
			if !ok {
				c.missing++
				continue
			}
			val, ok := decode(v.Kind, raw)
			if !ok {
				c.missing++
				continue
			}
			c.values = append(c.values, val)
		}
		cols = append(cols, c)
	}
	return cols
}

func decode(kind string, raw json.RawMessage) (value, bool) {
	if string(raw) == "null" {
		return value{null: true}, true
	}
	switch kind {
	case "int", "double", "hashcode":
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return value{}, false
		}
		return value{num: f, str: strconv.FormatFloat(f, 'g', -1, 64)}, true
	case "boolean":
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return value{}, false
		}
		return value{str: strconv.FormatBool(b)}, true
	case "string":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return value{}, false
		}
		return value{str: strconv.Quote(s)}, true
	case "string[]":
		var items []string
		if err := json.Unmarshal(raw, &items); err != nil {
			return value{}, false
		}
		return value{str: "[" + strings.Join(items, ", ") + "]"}, true
	}
	return value{}, false
}

// unary returns the invariants about one variable and, when it is
// constant, its constant's text (for suppressing implied equalities).
func unary(c column) ([]string, string) {
	n := len(c.values)
	if n == 0 {
		return nil, ""
	}
	name := c.v.Name
	nulls := 0
	for _, v := range c.values {
		if v.null {
			nulls++
		}
	}
	if c.v.Kind == "hashcode" {
		// A reference's hash says nothing but whether it is null.
		switch nulls {
		case n:
			return []string{name + " == null"}, "null"
		case 0:
			return []string{name + " != null"}, ""
		}
		return nil, ""
	}
	if nulls == n {
		return []string{name + " == null"}, "null"
	}
	var out []string
	if nulls == 0 && c.v.Kind == "string" {
		out = append(out, name+" != null")
	}
	distinct := distinctValues(c.values)
	switch {
	case len(distinct) == 1:
		// Daikon's OneOf: justified by any number of samples, since it
		// states exactly what was seen.
		return []string{name + " == " + distinct[0]}, distinct[0]
	case len(distinct) <= MaxOneOf:
		return append(out, name+" one of { "+strings.Join(distinct, ", ")+" }"), ""
	}
	if c.v.Kind == "int" || c.v.Kind == "double" {
		out = append(out, bounds(name, c.values)...)
	}
	return out, ""
}

// distinctValues returns the values' texts, sorted (numbers by value).
func distinctValues(values []value) []string {
	seen := map[string]value{}
	for _, v := range values {
		if v.null {
			seen["null"] = v
			continue
		}
		seen[v.str] = v
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := seen[keys[i]], seen[keys[j]]
		if a.str != "" && b.str != "" && !a.null && !b.null && a.num != b.num {
			return a.num < b.num
		}
		return keys[i] < keys[j]
	})
	return keys
}

// bounds returns x >= min and x <= max when justified the way Daikon's
// LowerBound and UpperBound are: the chance that samples spread uniformly
// over the observed range hit the bound as often as they did by accident,
// (1 - 1/range)^hits, is below Confidence.
func bounds(name string, values []value) []string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if v.null {
			continue
		}
		lo, hi = min(lo, v.num), max(hi, v.num)
	}
	span := hi - lo + 1
	var out []string
	for _, b := range []struct {
		at float64
		op string
	}{{lo, ">="}, {hi, "<="}} {
		hits := 0
		for _, v := range values {
			if !v.null && v.num == b.at {
				hits++
			}
		}
		if math.Pow(1-1/span, float64(hits)) < Confidence {
			out = append(out, fmt.Sprintf("%s %s %s", name, b.op, strconv.FormatFloat(b.at, 'g', -1, 64)))
		}
	}
	return out
}

// equalities returns x == y for variables of one kind that are equal in
// every sample where both make sense, neither constant (a constant's
// equality follows from the constants), over enough samples that chance
// equality of two varying values is unlikely (Daikon needs more than one).
func equalities(p agent.TracePoint, cols []column, constant map[string]string) []Invariant {
	const minSamples = 3
	var out []Invariant
	for i, a := range cols {
		if a.v.Kind == "hashcode" || a.v.Kind == "string[]" || constant[a.v.Name] != "" {
			continue
		}
		for _, b := range cols[i+1:] {
			if b.v.Kind != a.v.Kind || constant[b.v.Name] != "" {
				continue
			}
			both, equal := 0, true
			for _, s := range p.Samples {
				ra, okA := s[a.v.Name]
				rb, okB := s[b.v.Name]
				if !okA || !okB {
					continue
				}
				both++
				if !slices.Equal(ra, rb) {
					equal = false
					break
				}
			}
			if equal && both >= minSamples {
				out = append(out, Invariant{Variable: a.v.Name, Text: a.v.Name + " == " + b.v.Name})
			}
		}
	}
	return out
}
