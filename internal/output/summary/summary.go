// Package summary renders flaky's reports as Markdown sized for a
// pull-request comment or a CI job summary: new flaky tests first, each with
// its reproduce commands in a collapsible section.
package summary

import (
	"bytes"
	"fmt"
	"html"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/base/console"
	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// MaxBytes bounds a summary: GitHub refuses comments over 65,536 characters.
// Sections that do not fit are left out with a note.
const MaxBytes = 60000

// maxPatchLines bounds a proposed patch shown in a summary.
const maxPatchLines = 60

// maxGroupNames bounds the tests named in one row of findings that read
// the same.
const maxGroupNames = 30

// maxMessageLines and maxMessageBytes bound one finding's message.
const (
	maxMessageLines = 15
	maxMessageBytes = 2000
)

// Module is one module's report.
type Module struct {
	Name   string
	Report *report.Report
	Dir    string // the module's directory, where repair patches are; "" shows none
}

// Markdown renders the modules' reports as one summary.
func Markdown(modules []Module) string {
	d := gather(modules)
	never, unverified := neverRan(modules), unverifiedMerges(modules)
	var b strings.Builder
	d.heading(&b, never, unverified)
	for _, c := range d.changes {
		b.WriteString(c + "\n\n")
	}
	for _, c := range d.cuts {
		fmt.Fprintf(&b, "> **Partial results:** %s\n\n", text(c))
	}
	for _, u := range unverified {
		fmt.Fprintf(&b, "> **Unverified:** %s\n\n", u)
	}
	multi := len(modules) > 1
	omitted := d.newFindings(&b, multi)
	d.lists(&b, never)
	if omitted > 0 {
		fmt.Fprintf(&b, "_%d more finding%s left out to keep this summary short: see `target/flaky/report.json` or `index.html`._\n\n", omitted, plural(omitted))
	}
	fmt.Fprintf(&b, "<sub>%d test%s, %d order%s run, %s", d.tests, plural(d.tests), d.orders, plural(d.orders), d.dur.Round(time.Second))
	if multi {
		fmt.Fprintf(&b, ", %d modules", len(modules))
	}
	b.WriteString(" · flaky</sub>\n")
	return b.String()
}

// digest is what Markdown gathers from the modules' reports.
type digest struct {
	newOnes, known                              []entry
	tests, orders                               int
	dur                                         time.Duration
	cuts, fixed, unjudged, unconfirmed, changes []string
	gateFailed, gated, suspected                bool
}

// gather reads the modules' reports into a digest.
func gather(modules []Module) *digest {
	d := &digest{}
	for _, m := range modules {
		r := m.Report
		d.tests += r.Stats.Tests
		d.orders += r.Stats.Orders
		d.dur += time.Duration(r.Stats.DurationMs) * time.Millisecond
		d.cuts = append(d.cuts, budgetCuts(m)...)
		if ch := r.Stats.Change; ch != nil {
			d.addChange(modules, m, ch)
		}
		if c := r.Stats.Coverage; c != nil {
			for _, t := range c.Unconfirmed {
				d.unconfirmed = append(d.unconfirmed, code(t)+moduleNote(modules, m))
			}
		}
		if g := r.Gate; g != nil {
			d.addGate(modules, m, g)
		}
		root := ""
		if m.Dir != "" {
			root = r.ProjectRoot(m.Dir)
		}
		for _, f := range r.Findings {
			e := entry{module: m.Name, dir: m.Dir, root: root, f: f}
			if r.IsNew(f) {
				d.newOnes = append(d.newOnes, e)
			} else {
				d.known = append(d.known, e)
			}
		}
	}
	return d
}

// addChange adds what the analysis of a change said of module m.
func (d *digest) addChange(modules []Module, m Module, ch *report.ChangeStats) {
	d.changes = append(d.changes, fmt.Sprintf("Analysed the change since %s%s: %s", code(ch.Ref), moduleNote(modules, m), text(ch.Summary)))
	if covered := "A pair counts as covered when its first test ran before its second with no test between them writing the state they share"; ch.Pairs > 0 && !slices.Contains(d.changes, covered) {
		d.changes = append(d.changes, covered)
	}
	for _, t := range ch.Known {
		d.changes = append(d.changes, fmt.Sprintf("%s%s was flaky before the change and still is", code(t), moduleNote(modules, m)))
	}
	if n := len(ch.Settled); n > 0 {
		d.changes = append(d.changes, fmt.Sprintf("%d known victim%s%s kept %s verdict: neither %s nor %s known polluters changed, and no new polluter was found", n, plural(n), moduleNote(modules, m), pick(n, "its", "their"), pick(n, "it", "they"), pick(n, "its", "their")))
	}
	d.addFixed(modules, m, ch.PossiblyFixed)
	d.suspected = true
}

// addGate adds what the gate said of module m.
func (d *digest) addGate(modules []Module, m Module, g *report.Gate) {
	d.gated = d.gated || g.Enabled
	d.gateFailed = d.gateFailed || (g.Enabled && !g.Pass)
	d.addFixed(modules, m, g.PossiblyFixed)
	for _, u := range g.Unjudged {
		d.unjudged = append(d.unjudged, fmt.Sprintf("%s (%s): %s", code(u.Test), u.Kind, text(u.Reason)))
	}
}

// addFixed adds the possibly fixed tests of module m, each once.
func (d *digest) addFixed(modules []Module, m Module, tests []string) {
	for _, t := range tests {
		if e := code(t) + moduleNote(modules, m); !slices.Contains(d.fixed, e) {
			d.fixed = append(d.fixed, e)
		}
	}
}

// heading writes the summary's heading.
func (d *digest) heading(b *strings.Builder, never []string, unverified []string) {
	switch n := len(d.newOnes); {
	case n == 0 && len(never) > 0:
		fmt.Fprintf(b, "## flaky: no new flaky tests, but %d test%s did not run\n\n", len(never), plural(len(never)))
	case n == 0 && len(unverified) > 0:
		b.WriteString("## flaky: no new flaky tests (unverified)\n\n")
	case n == 0:
		b.WriteString("## flaky: no new flaky tests\n\n")
	case d.gateFailed:
		fmt.Fprintf(b, "## flaky: %d new flaky test%s (gate failed)\n\n", n, plural(n))
	default:
		fmt.Fprintf(b, "## flaky: %d new flaky test%s\n\n", n, plural(n))
	}
}

// newFindings writes the table and the details of the new findings, as
// many details as fit in MaxBytes; it returns how many did not.
func (d *digest) newFindings(b *strings.Builder, multi bool) (omitted int) {
	if len(d.newOnes) > 0 {
		table(b, d.newOnes, multi)
		b.WriteString("\n")
	}
	for _, e := range d.newOnes {
		if b.Len() > MaxBytes-2000 {
			omitted++
			continue
		}
		section := details(e, multi)
		if b.Len()+len(section) > MaxBytes-2000 {
			omitted++
			continue
		}
		b.WriteString(section)
	}
	return omitted
}

// lists writes the known, unconfirmed or suspected, not run, possibly
// fixed and unjudged tests.
func (d *digest) lists(b *strings.Builder, never []string) {
	if len(d.known) > 0 {
		where := "the baseline"
		if d.gated {
			where = "`.flaky/baseline.json`"
		}
		fmt.Fprintf(b, "**Known flaky tests** (accepted in %s): ", where)
		known := make([]string, len(d.known))
		for i, e := range d.known {
			known[i] = fmt.Sprintf("%s (%s)", code(e.f.Test), e.f.Kind)
		}
		b.WriteString(strings.Join(known, ", ") + "\n\n")
	}
	switch {
	case len(d.unconfirmed) > 0 && d.suspected:
		b.WriteString("**Suspected** (their outcome changed, but no rerun confirmed it; not reported as flaky, the verdict stands): " + strings.Join(d.unconfirmed, ", ") + "\n\n")
	case len(d.unconfirmed) > 0:
		b.WriteString("**Unconfirmed** (their outcome changed, but no rerun confirmed it; not reported as flaky): " + strings.Join(d.unconfirmed, ", ") + "\n\n")
	}
	if len(never) > 0 {
		b.WriteString("**Did not run** (crashed, timed out or got no result in every run; nothing was judged of them): " + names(never) + "\n\n")
	}
	if len(d.fixed) > 0 {
		b.WriteString("**Possibly fixed** (accepted, not flaky in this run): " + strings.Join(d.fixed, ", ") + "\n\n")
	}
	if len(d.unjudged) > 0 {
		b.WriteString("**Not judged:** " + strings.Join(d.unjudged, "; ") + "\n\n")
	}
}

type entry struct {
	module, dir string
	root        string // the project's root; "" when not known
	f           report.Finding
}

// table writes one row per finding, test, kind and why, or one row for the
// findings of a module that read the same (report.WhyKey): the victims of
// one polluter with the same cleaners are named together, the why once.
func table(b *strings.Builder, entries []entry, multi bool) {
	if multi {
		b.WriteString("| module | test | kind | why |\n|---|---|---|---|\n")
	} else {
		b.WriteString("| test | kind | why |\n|---|---|---|\n")
	}
	groups := alike(entries)
	shown := 0
	for _, g := range groups {
		if b.Len() > MaxBytes/2 {
			left := len(entries) - shown
			fmt.Fprintf(b, "\n_%d more new flaky test%s: see `target/flaky/report.json`._\n", left, plural(left))
			return
		}
		shown += len(g)
		e := g[0]
		var tests []string
		for i, e := range g {
			if i == maxGroupNames && len(g) > maxGroupNames+1 {
				tests = append(tests, fmt.Sprintf("and %d more", len(g)-i))
				break
			}
			tests = append(tests, code(e.f.Test))
		}
		kind := e.f.Kind.Title()
		if len(g) > 1 {
			kind = fmt.Sprintf("%d × %s", len(g), kind)
		}
		row := []string{strings.Join(tests, "<br>"), kind, text(report.Describe(e.f))}
		if multi {
			row = append([]string{code(e.module)}, row...)
		}
		for i := range row {
			row[i] = strings.ReplaceAll(row[i], "|", `\|`)
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
}

// alike groups the entries of one module that read the same (see
// report.WhyKey), in the order of their first entry.
func alike(entries []entry) [][]entry {
	var groups [][]entry
	at := map[string]int{}
	for _, e := range entries {
		key := e.module + "\x00" + report.WhyKey(e.f)
		if i, ok := at[key]; ok {
			groups[i] = append(groups[i], e)
			continue
		}
		at[key] = len(groups)
		groups = append(groups, []entry{e})
	}
	return groups
}

// details is a finding's collapsible section: message and reproduce commands.
func details(e entry, multi bool) string {
	var b strings.Builder
	title := "<code>" + html.EscapeString(e.f.Test) + "</code>"
	if multi {
		title += " in " + html.EscapeString(e.module)
	}
	fmt.Fprintf(&b, "<details><summary>%s: %s</summary>\n\n", title, html.EscapeString(e.f.Kind.Title()))
	if e.f.Message != "" {
		b.WriteString(fence("text", clip(e.f.Message)))
	}
	if e.f.Note != "" {
		b.WriteString("_flaky: " + text(e.f.Note) + "_\n\n")
	}
	b.WriteString(e.reproduce())
	if r := e.f.Repair; r != nil && r.Validated && r.Patch != "" {
		fmt.Fprintf(&b, "Proposed fix (%s, validated; `flaky repair --apply` writes it):\n\n", text(r.Kind))
		if diff := report.ReadPatch(e.dir, r.Patch); diff != "" {
			b.WriteString(fence("diff", clipLines(diff, maxPatchLines)))
		} else {
			b.WriteString(code(r.Patch) + "\n\n")
		}
	}
	b.WriteString("</details>\n\n")
	return b.String()
}

// maxInlineOrder bounds the tests of an order a summary writes out for its
// reproduce commands, and maxOrderBytes the order file it reads for them.
const (
	maxInlineOrder = 50
	maxOrderBytes  = 64 << 10
)

// reproduce is a finding's reproduce commands as a reviewer runs them from
// the root of a checkout (see report.Portable), after the command that
// writes their order file where they read it when the order is short;
// otherwise the file is in the build's target/flaky/orders.
func (e entry) reproduce() string {
	if e.f.Reproduce == "" && e.f.ReproduceRunOrder == "" {
		return ""
	}
	var b strings.Builder
	from := ""
	if e.root != "" {
		from = " (from the project's root)"
		if write := e.writeOrder(); write != "" {
			b.WriteString("Write the order they run:\n\n" + fence("sh", write))
		}
	}
	if e.f.Reproduce != "" {
		b.WriteString("Reproduce with Maven" + from + ":\n\n" + fence("sh", report.Portable(e.f.Reproduce, e.root, e.dir)))
	}
	if e.f.ReproduceRunOrder != "" {
		b.WriteString("or with flaky:\n\n" + fence("sh", report.Portable(e.f.ReproduceRunOrder, e.root, e.dir)))
	}
	return b.String()
}

// writeOrder is a shell command that writes the finding's order file, of at
// most maxInlineOrder tests, at its path relative to the project's root;
// "" when there is none, it is not under the root or cannot be read.
func (e entry) writeOrder() string {
	file := report.OrderFile(e.f.Reproduce)
	if file == "" {
		file = report.OrderFile(e.f.ReproduceRunOrder)
	}
	if !filepath.IsAbs(file) {
		return ""
	}
	rel, err := filepath.Rel(e.root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	data, err := saferead.ReadFile(file, maxOrderBytes, "an order file")
	if err != nil {
		return ""
	}
	order, err := surefire.ReadOrder(bytes.NewReader(data), file)
	if err != nil || len(order) > maxInlineOrder {
		return ""
	}
	rel = filepath.ToSlash(rel)
	mkdir := ""
	if dir := path.Dir(rel); dir != "." {
		mkdir = shellquote.Join("mkdir", "-p", dir) + " && "
	}
	return mkdir + shellquote.Join(append([]string{"printf", `%s\n`}, order...)...) + " > " + shellquote.Join(rel)
}

// budgetCuts lists the analyses of a module that a budget cut short, and
// what the pages leave out of its report (Report.Cut).
func budgetCuts(m Module) []string {
	var out []string
	in := ""
	if m.Name != "" {
		in = " in " + m.Name
	}
	if c := m.Report.Stats.Coverage; c != nil && c.BudgetExhausted {
		out = append(out, fmt.Sprintf("the order-dependence analysis%s was cut by its budget of %s (%d unconfirmed)", in, time.Duration(c.BudgetMs)*time.Millisecond, len(c.Unconfirmed)))
	}
	if c := m.Report.Stats.Chaos; c != nil && c.BudgetExhausted {
		out = append(out, fmt.Sprintf("API perturbation%s was cut by its budget of %s (%d unconfirmed)", in, time.Duration(c.BudgetMs)*time.Millisecond, len(c.Unconfirmed)))
	}
	for _, c := range m.Report.Cut {
		if m.Name != "" {
			c = m.Name + ": " + c
		}
		out = append(out, c)
	}
	return out
}

// neverRan lists the tests of the modules' order-dependence analyses
// that did not run (report.Coverage.NeverRan), as code, with their module
// when there are several.
func neverRan(modules []Module) []string {
	var out []string
	for _, m := range modules {
		if c := m.Report.Stats.Coverage; c != nil {
			for _, t := range c.NeverRan {
				out = append(out, code(t)+moduleNote(modules, m))
			}
		}
	}
	return out
}

// unverifiedMerges says, for each module whose report a merge made from
// parts it did not verify and the user did not vouch for, how much of
// the verdict is the shards' word.
func unverifiedMerges(modules []Module) []string {
	var out []string
	for _, m := range modules {
		if ms := m.Report.Stats.Merge; ms.Unverified() {
			n, runs := ms.Unchecked()
			out = append(out, fmt.Sprintf("%d of the %d runs the shards recorded%s are their word, no run of the merge checked them (`flaky merge --verify all` reruns them; `--trust-parts` vouches for parts from jobs as trusted as the merge)", n, runs, moduleNote(modules, m)))
		}
	}
	return out
}

// names joins the first maxGroupNames of names, and says how many more
// there are.
func names(names []string) string {
	if len(names) <= maxGroupNames+1 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxGroupNames], ", "), len(names)-maxGroupNames)
}

func moduleNote(modules []Module, m Module) string {
	if len(modules) > 1 {
		return " in " + text(m.Name)
	}
	return ""
}

// clip bounds a message to maxMessageLines lines and maxMessageBytes bytes.
func clip(s string) string {
	cut := false
	if len(s) > maxMessageBytes {
		s, cut = s[:maxMessageBytes], true
	}
	s = strings.ToValidUTF8(strings.TrimRight(s, "\n"), "")
	lines := strings.Split(s, "\n")
	if len(lines) > maxMessageLines {
		lines, cut = lines[:maxMessageLines], true
	}
	s = strings.Join(lines, "\n")
	if cut {
		s += "\n..."
	}
	return s
}

// clipLines keeps the first n lines of s.
func clipLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... %d more lines", len(lines)-n)
}

// fence puts s in a fenced code block whose fence is longer than any run of
// backticks in s, so nothing in s can end it.
func fence(lang, s string) string {
	f := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return f + lang + "\n" + safe(s) + "\n" + f + "\n\n"
}

// code is s as inline code that no backtick in s can end.
func code(s string) string {
	s = strings.ReplaceAll(safe(s), "\n", " ")
	f := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return f + " " + s + " " + f
	}
	return f + s + f
}

// text is s as Markdown text: markup and HTML characters escaped, one line.
func text(s string) string {
	s = strings.ReplaceAll(safe(s), "\n", " ")
	return markdownChars.Replace(html.EscapeString(s))
}

var markdownChars = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`)

// safe is s with CRLF line ends made LF and terminal control characters
// escaped.
func safe(s string) string {
	return console.Escape(strings.ReplaceAll(s, "\r\n", "\n"))
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// pick returns one for n == 1, else many.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
