package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/flakyhq/flaky/internal/base/saferead"
)

// Title is a kind's name for people: "order-dependent victim".
func (k Kind) Title() string {
	switch k {
	case ODVictim:
		return "order-dependent victim"
	case ODBrittle:
		return "order-dependent brittle test"
	case NIO:
		return "non-idempotent outcome"
	case NOD:
		return "non-order-dependent flaky test"
	case API:
		return "fails under a perturbed JDK API"
	}
	return string(k)
}

// WhyKey is the same for findings that read the same: the same kind and
// the same Describe line (the victims of one polluter with the same
// cleaners, say), so that reports can name their tests once, together.
func WhyKey(f Finding) string { return string(f.Kind) + "\x00" + Describe(f) }

// Describe says in one line why a finding's test is flaky, naming the tests
// and perturbations involved: "fails after ...; passes again when ... runs
// in between".
func Describe(f Finding) string {
	var parts []string
	switch f.Kind {
	case ODVictim:
		if len(f.Polluters) > 0 {
			parts = append(parts, "fails after "+groups(f.Polluters))
		} else {
			parts = append(parts, "passes alone and fails in some orders")
		}
		if len(f.Cleaners) > 0 {
			parts = append(parts, "passes again when "+groups(f.Cleaners)+" runs in between")
		}
	case ODBrittle:
		if len(f.Setters) > 0 {
			parts = append(parts, "fails alone and passes only after "+groups(f.Setters))
		} else {
			parts = append(parts, "fails alone and passes in some orders")
		}
	case NIO:
		parts = append(parts, "passes once and fails when run again in the same JVM")
	case NOD:
		parts = append(parts, "passes and fails in the same order")
	case API:
		s := "fails under " + f.Strategy
		if f.Group != "" && f.Group != f.Strategy {
			s += " (" + f.Group + ")"
		}
		if n := len(f.CallSites); n > 0 {
			c := f.CallSites[0]
			s += fmt.Sprintf(" at %s:%d (%s)", c.File, c.Line, c.API)
			if n > 1 {
				s += fmt.Sprintf(" and %d more call site(s)", n-1)
			}
		}
		parts = append(parts, s)
	default:
		parts = append(parts, f.Kind.Title())
	}
	var confirmed []string
	for _, it := range f.PollutedState {
		if it.Confirmed {
			confirmed = append(confirmed, it.Root+it.Path)
		}
	}
	if len(confirmed) > 0 {
		parts = append(parts, "polluted state: "+strings.Join(confirmed, ", "))
	}
	return strings.Join(parts, "; ")
}

// groups renders alternative groups of tests: "A or B + C".
func groups(gs [][]string) string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = strings.Join(g, " + ")
	}
	return strings.Join(out, " or ")
}

// maxPatchBytes bounds a patch file read for display.
const maxPatchBytes = 256 << 10

// ReadPatch returns a repair patch file (path relative to the module
// directory dir, or absolute) for display, or "" when it cannot be read.
func ReadPatch(dir, path string) string {
	if dir == "" && !filepath.IsAbs(path) {
		return ""
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	f, _, err := saferead.Open(path, math.MaxInt64, "a patch")
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPatchBytes))
	if err != nil {
		return ""
	}
	return strings.ToValidUTF8(string(data), "\uFFFD")
}
