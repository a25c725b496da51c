package od

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

// result builds the findings: NOD wherever a test's outcome differed
// between runs of the same order (replacing any other finding for it),
// then the confirmed ones, and the coverage.
func (a *analysis) result() *Result {
	for _, t := range a.s.tests {
		if a.cfg.Skip[t] {
			continue
		}
		var flip *obs
		var pass, fail int
		for _, o := range a.st.all(t) {
			pass += o.pass
			fail += o.fail
			if o.mixed() && (flip == nil || len(o.order) < len(flip.order)) {
				flip = &o
			}
		}
		if flip == nil {
			continue
		}
		a.findings[t] = map[report.Kind]*Finding{report.NOD: {
			Test: t, Kind: report.NOD, FailingOrder: flip.order, PassingOrder: flip.order,
			Message: strings.TrimSpace(fmt.Sprintf("%s (passed %d and failed %d times in the same order)", report.FirstLine(flip.message), flip.pass, flip.fail)),
			Runs:    pass + fail,
			Fails:   fail,
		}}
	}
	res := &Result{Coverage: a.cov, Runs: a.runs}
	for _, t := range a.s.tests {
		for _, kind := range []report.Kind{report.NOD, report.ODVictim, report.ODBrittle, report.NIO} {
			if f := a.findings[t][kind]; f != nil {
				f.Evidence = a.evidence(f)
				f.DetectedAfter, f.DetectedIn = a.flipped[t].orders, a.flipped[t].elapsed
				f.Polluters, f.Setters, f.Cleaners = sortedGroups(f.Polluters), sortedGroups(f.Setters), sortedGroups(f.Cleaners)
				res.Findings = append(res.Findings, *f)
			}
		}
	}
	for _, t := range a.targets {
		if a.findings[t] != nil {
			continue
		}
		var pass, fail bool
		for _, o := range a.st.all(t) {
			pass, fail = pass || o.pass > 0, fail || o.fail > 0
		}
		if pass && fail {
			res.Coverage.Unconfirmed = append(res.Coverage.Unconfirmed, t)
		}
	}
	for _, t := range a.s.tests {
		if a.st.get([]string{t}).runs() > 0 {
			res.Coverage.TestsAlone++
		}
	}
	res.Coverage.PairsCovered = len(a.pairs)
	res.Coverage.Duration = time.Since(a.start)
	res.Coverage.Workers = a.cfg.Workers
	if res.Coverage.Duration > 0 {
		res.Coverage.Efficiency = float64(res.Coverage.JVMTime) / float64(time.Duration(a.cfg.Workers)*res.Coverage.Duration)
	}
	return res
}

// evidence lists, for a finding, the runs of its failing and passing orders
// and the generated order that first showed the flip.
func (a *analysis) evidence(f *Finding) []Observation {
	var out []Observation
	add := func(label string, o obs) {
		if o.runs() == 0 || slices.ContainsFunc(out, func(x Observation) bool { return slices.Equal(x.Order, o.order) }) {
			return
		}
		if o.label != genConfirm && o.label != genMinimise {
			label += ", first run by " + o.label
		}
		out = append(out, Observation{Label: label, Order: o.order, Pass: o.pass, Fail: o.fail, Failure: o.failure, Message: o.message})
	}
	if f.Kind == report.NOD {
		add("same order", a.st.get(f.FailingOrder))
		return out
	}
	add("failing order", a.st.get(f.FailingOrder))
	add("passing order", a.st.get(f.PassingOrder))
	for _, o := range a.st.observed(f.Test, false) {
		if o.label == genConfirm || o.label == genMinimise || len(o.order) < 2 {
			continue
		}
		if (f.Kind == report.ODVictim && o.fail > 0) || (f.Kind == report.ODBrittle && o.pass > 0) {
			add("found", o)
			break
		}
	}
	return out
}
