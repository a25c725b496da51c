// Package htmlreport renders flaky's reports as one self-contained HTML page
// (inline CSS and script, no network access needed to open it): a summary,
// then one section per finding with its evidence chain — each run's order
// as a timeline with the test, polluters, cleaners and state-setters marked,
// the perturbed call sites, and the reproduce commands with a copy button.
// Everything that came from tests is escaped by html/template.
package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Parse(pageHTML))

// maxMessageBytes bounds a message shown on the page.
const maxMessageBytes = 16 << 10

// maxSteps is the longest order shown step by step; longer ones show the
// marked steps only.
const maxSteps = 40

// Module is one module's report and how to find its sources.
type Module struct {
	Name   string
	Report *report.Report
	// FlakyDir is the module's build directory's flaky directory
	// (target/flaky), against which order files resolve.
	FlakyDir string
	// Dir is the module's directory, against which repair patches resolve.
	Dir string
	// Locate returns the source file of a class relative to Page.Root
	// and the line of the method's declaration when known; "" when there
	// is none.
	Locate func(class, method, file string) (path string, line int)
}

// Page is what one HTML file shows.
type Page struct {
	Title     string
	Version   string    // flaky's version
	Generated time.Time // when the page was made
	Root      string    // the project root, which Locate's paths are relative to
	OutDir    string    // the directory the page is written to, for links
	Modules   []Module
}

// Render writes the page.
func Render(w io.Writer, p Page) error {
	if err := page.Execute(w, view(p)); err != nil {
		return fmt.Errorf("rendering HTML report: %w", err)
	}
	return nil
}

type pageView struct {
	Title, Version, Generated string
	Tests, Orders, New        int
	// OrdersBy splits Orders by what ran them ("148 order-dependence"),
	// when more than one thing did, so that the card adds up with the
	// coverage table's orders.
	OrdersBy              []string
	Duration              string
	GateStatus, GateClass string
	ByKind                []kindCount
	Cuts                  []string
	Coverage              []coverageView
	Baseline              []string
	Modules               []string
	// Groups are the findings of a module that read the same (see
	// report.WhyKey), two or more: their why is shown once, there.
	Groups   []groupView
	Findings []findingView
	// Unconfirmed are the tests whose outcome changed in a run but that no
	// rerun confirmed ("test (module)" with several modules).
	Unconfirmed []string
}

type groupView struct {
	ID, Title, Why, Module string
	ShowModule             bool
	Tests                  []string
}

type kindCount struct {
	Kind  report.Kind
	Title string
	Count int
}

type coverageView struct {
	Module                                             string
	Orders, Rounds, RoundsPlanned, PairsCovered, Pairs int
	TestsAlone                                         int
	Budget                                             string
	Seed                                               int64
}

type findingView struct {
	Test, Module, Title, Why, Message, Note string
	// Group is the id of the group of findings that read the same this one
	// belongs to, where its why is; "" when it reads like no other.
	Group                    string
	Kind                     report.Kind
	New, ShowModule          bool
	Source                   string
	SourceHref               string
	Evidence                 []evidenceView
	CallSites                []callSiteView
	Reproduce                []string
	RepairKind, RepairReason string
	Patch                    []diffLine
	State                    []stateView
	StateConfirmed           bool
	Invariants               []report.ProblemInvariant
	Resets                   []string
}

type stateView struct {
	Kind, Root, Passing, Failing string
	Confirmed                    bool
}

type diffLine struct {
	Class, Text string
}

type evidenceView struct {
	Run, Outcome, OutcomeClass, OrderFile, Message string
	Steps                                          []stepView
	More                                           int
}

type stepView struct {
	Test, Short, Role string
}

type callSiteView struct {
	Where, Href, API string
}

func view(p Page) pageView {
	v := pageView{Title: p.Title, Version: p.Version, Generated: p.Generated.UTC().Format("2006-01-02 15:04:05 UTC")}
	t := &pageTotals{counts: map[report.Kind]int{}}
	multi := len(p.Modules) > 1
	for _, m := range p.Modules {
		v.Modules = append(v.Modules, m.Name)
		v.addStats(m, multi, t)
		if g := m.Report.Gate; g != nil {
			v.addGate(m, g, t)
		}
		v.addFindings(p, m, multi, t)
	}
	v.OrdersBy = ordersBy(v.Orders, t.odOrders, t.chaosRuns)
	slices.SortStableFunc(v.Findings, func(a, b findingView) int {
		switch {
		case a.New && !b.New:
			return -1
		case b.New && !a.New:
			return 1
		}
		return 0
	})
	v.ByKind = byKind(t.counts)
	v.Duration = t.dur.Round(time.Second).String()
	switch {
	case !t.gated:
		v.GateStatus, v.GateClass = "off", ""
	case t.failed:
		v.GateStatus, v.GateClass = "failed", "status-fail"
	default:
		v.GateStatus, v.GateClass = "passed", "status-pass"
	}
	return v
}

// pageTotals is what view adds up over the modules besides the pageView.
type pageTotals struct {
	dur                 time.Duration
	odOrders, chaosRuns int
	counts              map[report.Kind]int // the findings of each kind
	gated, failed       bool
}

// addStats adds module m's tests, orders, coverage, cuts and unconfirmed
// tests to v, and its durations and runs to t.
func (v *pageView) addStats(m Module, multi bool, t *pageTotals) {
	r := m.Report
	of := ""
	if multi {
		of = " of " + m.Name
	}
	v.Tests += r.Stats.Tests
	v.Orders += r.Stats.Orders
	t.dur += time.Duration(r.Stats.DurationMs) * time.Millisecond
	if c := r.Stats.Coverage; c != nil {
		t.odOrders += c.Orders
		v.Coverage = append(v.Coverage, coverageView{Module: m.Name, Orders: c.Orders, Rounds: c.Rounds, RoundsPlanned: c.RoundsPlanned,
			PairsCovered: c.PairsCovered, Pairs: c.Pairs, TestsAlone: c.TestsAlone, Budget: budget(c.BudgetMs, c.BudgetWhy), Seed: c.Seed})
		if c.BudgetExhausted {
			v.Cuts = append(v.Cuts, fmt.Sprintf("the order-dependence analysis%s was cut by its budget of %s; %d test(s) flipped but were not confirmed",
				of, time.Duration(c.BudgetMs)*time.Millisecond, len(c.Unconfirmed)))
		}
		for _, u := range c.Unconfirmed {
			if multi {
				u += " (" + m.Name + ")"
			}
			v.Unconfirmed = append(v.Unconfirmed, u)
		}
	}
	if c := r.Stats.Chaos; c != nil {
		t.chaosRuns += c.Runs
		if c.BudgetExhausted {
			v.Cuts = append(v.Cuts, fmt.Sprintf("API perturbation%s was cut by its budget of %s; %d test(s) failed perturbed but were not confirmed",
				of, time.Duration(c.BudgetMs)*time.Millisecond, len(c.Unconfirmed)))
		}
	}
	for _, c := range r.Cut {
		if of != "" {
			c = m.Name + ": " + c
		}
		v.Cuts = append(v.Cuts, c)
	}
}

// addGate adds what the gate g said of module m to v, and whether it was
// on and failed to t.
func (v *pageView) addGate(m Module, g *report.Gate, t *pageTotals) {
	t.gated = t.gated || g.Enabled
	t.failed = t.failed || (g.Enabled && !g.Pass)
	for _, test := range g.PossiblyFixed {
		v.Baseline = append(v.Baseline, fmt.Sprintf("possibly fixed: %s (%s; accepted, not flaky in this run)", test, m.Name))
	}
	for _, u := range g.Unjudged {
		v.Baseline = append(v.Baseline, fmt.Sprintf("not judged: %s (%s, accepted as %s): %s", u.Test, m.Name, u.Kind, u.Reason))
	}
}

// addFindings adds module m's findings, and their groups of alike ones,
// to v, and counts them by kind in t.
func (v *pageView) addFindings(p Page, m Module, multi bool, t *pageTotals) {
	r := m.Report
	groups := alike(r.Findings)
	for i, f := range r.Findings {
		t.counts[f.Kind]++
		fv := finding(p, m, f, multi)
		if fv.New {
			v.New++
		}
		if g := groups[i]; len(g) > 1 {
			fv.Group = fmt.Sprintf("group-%d-%d", len(v.Modules), g[0])
			if g[0] == i {
				gv := groupView{ID: fv.Group, Title: fmt.Sprintf("%d × %s", len(g), f.Kind.Title()), Why: fv.Why, Module: m.Name, ShowModule: multi}
				for _, j := range g {
					gv.Tests = append(gv.Tests, r.Findings[j].Test)
				}
				v.Groups = append(v.Groups, gv)
			}
		}
		v.Findings = append(v.Findings, fv)
	}
}

// byKind counts the findings of each kind, the known kinds first in their
// order; it empties counts.
func byKind(counts map[report.Kind]int) []kindCount {
	var out []kindCount
	for _, k := range []report.Kind{report.ODVictim, report.ODBrittle, report.NIO, report.NOD, report.API} {
		if counts[k] > 0 {
			out = append(out, kindCount{Kind: k, Title: k.Title(), Count: counts[k]})
		}
		delete(counts, k)
	}
	for k, n := range counts { // kinds added later
		out = append(out, kindCount{Kind: k, Title: k.Title(), Count: n})
	}
	return out
}

// alike returns, for each finding, the indexes of the findings that read
// the same (report.WhyKey), in order.
func alike(findings []report.Finding) [][]int {
	byKey := map[string][]int{}
	for i, f := range findings {
		k := report.WhyKey(f)
		byKey[k] = append(byKey[k], i)
	}
	out := make([][]int, len(findings))
	for i, f := range findings {
		out[i] = byKey[report.WhyKey(f)]
	}
	return out
}

func budget(ms int64, why string) string {
	s := (time.Duration(ms) * time.Millisecond).String()
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}

// ordersBy splits the orders run into the order-dependence analysis's
// (the coverage table's), API perturbation's and the rest (verify's
// Surefire run, its reruns and their confirmations); nil when one of them
// ran them all.
func ordersBy(total, od, chaos int) []string {
	rest := total - od - chaos
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{od, "order-dependence"}, {chaos, "API perturbation"}, {rest, "Surefire's run and reruns"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(parts) < 2 || rest < 0 {
		return nil
	}
	return parts
}

func finding(p Page, m Module, f report.Finding, multi bool) findingView {
	fv := findingView{
		Test: f.Test, Module: m.Name, Kind: f.Kind, Title: f.Kind.Title(), Why: report.Describe(f),
		Message: clip(f.Message), Note: f.Note, New: m.Report.IsNew(f), ShowModule: multi,
	}
	class, method := testid.Split(f.Test)
	fv.Source, fv.SourceHref = source(p, m, class, method, "", 0)
	roles := map[string]string{}
	for _, g := range f.Polluters {
		for _, t := range g {
			roles[t] = "polluter"
		}
	}
	for _, g := range f.Cleaners {
		for _, t := range g {
			roles[t] = "cleaner"
		}
	}
	for _, g := range f.Setters {
		for _, t := range g {
			roles[t] = "setter"
		}
	}
	roles[f.Test] = "test"
	for _, e := range f.Evidence {
		ev := evidenceView{Run: e.Run, Outcome: e.Outcome, OutcomeClass: outcomeClass(e.Outcome), OrderFile: e.OrderFile, Message: clip(e.Message)}
		if ev.Message == fv.Message {
			ev.Message = ""
		}
		order := e.Order
		if order == nil && e.OrderFile != "" {
			path := e.OrderFile
			if !filepath.IsAbs(path) && m.FlakyDir != "" {
				path = filepath.Join(flakydir.Dir(m.FlakyDir).Orders(), filepath.Base(path))
			}
			if o, err := surefire.ReadOrderFile(path); err == nil {
				order = o
			}
		}
		ev.Steps, ev.More = steps(order, roles)
		fv.Evidence = append(fv.Evidence, ev)
	}
	for _, it := range f.PollutedState {
		fv.State = append(fv.State, stateView{Kind: it.Kind, Root: it.Root + it.Path, Passing: clip(it.Passing), Failing: clip(it.Failing), Confirmed: it.Confirmed})
		fv.StateConfirmed = fv.StateConfirmed || it.Confirmed
	}
	fv.Invariants = f.ProblemInvariants
	role := "cleaner method" // a brittle's set the state it needs
	if f.Kind == report.ODBrittle {
		role = "state-setting method"
	}
	for _, m := range f.CleanerMethods {
		fv.Resets = append(fv.Resets, fmt.Sprintf("%s of %s: %s (called by %s)", role, m.Variable, m.Method, m.Test))
	}
	for _, m := range f.ReturnValueModifiers {
		fv.Resets = append(fv.Resets, fmt.Sprintf("return-value modifier of %s: %s (called by %s)", m.Variable, m.Method, m.Test))
	}
	for _, c := range f.CallSites {
		where := fmt.Sprintf("%s.%s (%s:%d)", c.Class, c.Method, c.File, c.Line)
		_, href := source(p, m, c.Class, "", c.File, c.Line)
		fv.CallSites = append(fv.CallSites, callSiteView{Where: where, Href: href, API: c.API})
	}
	if r := f.Repair; r != nil {
		if r.Validated {
			fv.RepairKind = r.Kind
			for _, l := range strings.Split(strings.TrimRight(report.ReadPatch(m.Dir, r.Patch), "\n"), "\n") {
				class := ""
				switch {
				case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				case strings.HasPrefix(l, "+"):
					class = "diff-add"
				case strings.HasPrefix(l, "-"):
					class = "diff-del"
				case strings.HasPrefix(l, "@@"):
					class = "diff-hunk"
				}
				if l != "" || len(fv.Patch) > 0 {
					fv.Patch = append(fv.Patch, diffLine{Class: class, Text: l})
				}
			}
		} else {
			fv.RepairReason = r.Reason
		}
	}
	for _, r := range []string{f.Reproduce, f.ReproduceRunOrder} {
		if r != "" {
			fv.Reproduce = append(fv.Reproduce, r)
		}
	}
	return fv
}

// steps turns an order into timeline steps; a long one keeps only the
// marked steps and says how many it left out.
func steps(order []string, roles map[string]string) ([]stepView, int) {
	var out []stepView
	more := 0
	for _, t := range order {
		role := roles[t]
		if len(order) > maxSteps && role == "" {
			more++
			continue
		}
		out = append(out, stepView{Test: t, Short: short(t), Role: role})
	}
	return out, more
}

// short is a test id without its package: CartTest#total.
func short(id string) string {
	t := testid.Parse(id)
	return testid.Join(t.SimpleClass(), t.Member())
}

func outcomeClass(o string) string {
	word, _, _ := strings.Cut(o, " ")
	return strings.TrimSuffix(word, ",")
}

// source returns a class's source path and a link to it relative to the
// page's directory.
func source(p Page, m Module, class, method, file string, line int) (string, string) {
	if m.Locate == nil {
		return "", ""
	}
	path, l := m.Locate(class, method, file)
	if path == "" {
		return "", ""
	}
	if line == 0 {
		line = l
	}
	href := path
	if p.OutDir != "" && p.Root != "" && !filepath.IsAbs(path) {
		if rel, err := filepath.Rel(p.OutDir, filepath.Join(p.Root, filepath.FromSlash(path))); err == nil {
			href = filepath.ToSlash(rel)
		}
	}
	if line > 0 {
		path = fmt.Sprintf("%s:%d", path, line)
	}
	return path, href
}

// clip bounds a message shown on the page.
func clip(s string) string {
	if len(s) <= maxMessageBytes {
		return s
	}
	return strings.ToValidUTF8(s[:maxMessageBytes], "") + fmt.Sprintf("\n… %d more bytes in report.json", len(s)-maxMessageBytes)
}
