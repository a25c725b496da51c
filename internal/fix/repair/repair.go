// Package repair turns the findings of target/flaky/report.json into minimal
// validated source patches: iFixFlakies' inlined cleaners and
// state-setters, ODRepair-style resets of a known polluted state, standard
// fixes of API findings, and FlakyDoctor's LLM loop for the rest. Candidates
// are edited with the Java source editor, compiled with javac and run in a
// sandbox copy of the module; only validated patches are reported.
package repair

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flakyhq/flaky/internal/base/logs"
	"github.com/flakyhq/flaky/internal/base/progress"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// State is one polluted state of an order-dependent finding, as the
// root-cause analysis records it in the finding's pollutedState.
type State = report.StateItem

// Config says what to repair and how.
type Config struct {
	Module  Module
	Report  *report.Report
	States  map[string][]State // test -> its polluted state; nil: each finding's pollutedState
	OutDir  string             // where diffs and LLM logs go (target/flaky/repair)
	WorkDir string             // where sandboxes go
	Test    string             // only this finding's test, when set
	LLM     *LLMConfig         // nil: no LLM loop
	// AllowReflection lets a generated reset restore a static field through
	// java.lang.reflect when no reset-method does (--allow-reflection).
	AllowReflection bool
	// NoLLMWhy says why the LLM loop is off, for the findings it would have taken.
	NoLLMWhy string
	Workers  int
	// TestTimeout bounds one test of the sandbox's runs (a patch that makes
	// a test hang costs that long, not forever); 0 means none.
	TestTimeout time.Duration
	// Log receives progress notes, one per finding repaired or not; the
	// zero Logger drops them.
	Log logs.Logger
	// Progress hears which finding is being repaired and how many are
	// repaired (the sandbox's launcher reports its runs); nil shows nothing.
	Progress *progress.Tracker
}

// Result is what a repair run produced.
type Result struct {
	// Repairs holds a repair for every finding looked at, by its
	// report.Finding.Key (a test can be a victim and NIO).
	Repairs map[string]*report.Repair
	// Files are the validated patches' combined contents (module-relative
	// path -> new content) and Originals the module's contents of them.
	Files     map[string][]byte
	Originals map[string][]byte
	// Unchanged are the findings (by key) whose test already passes its
	// failing order with the module's sources as they are: a patch for them
	// was applied before, so nothing is changed.
	Unchanged map[string]bool
}

// Run repairs the findings of cfg.Report.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.States == nil {
		cfg.States = statesOf(cfg.Report)
	}
	jars, err := agent.Extract()
	if err != nil {
		return nil, err
	}
	src, err := indexSources(cfg.Module.Dir)
	if err != nil {
		return nil, err
	}
	ed, err := editor.StartEditor(ctx, cfg.Module.Java)
	if err != nil {
		return nil, err
	}
	defer ed.Close()
	opts := launcher.Options{Workers: cfg.Workers, TestTimeout: cfg.TestTimeout}
	if cfg.Progress != nil {
		opts.Ran = func(*launcher.Result) { cfg.Progress.Ran() }
	}
	var confine bool
	var sandboxLine string
	cfg, confine, sandboxLine = llmSandbox(cfg, launcher.ConfinementAvailable)
	sb, err := NewSandbox(cfg.Module, cfg.WorkDir, jars, opts, confine)
	if err != nil {
		return nil, err
	}
	defer sb.Close()
	sb.ed = ed
	r := &run{cfg: cfg, src: src, ed: ed, sb: sb, known: map[string]bool{}, llmSandbox: sandboxLine,
		res: &Result{Repairs: map[string]*report.Repair{}, Files: map[string][]byte{}, Originals: map[string][]byte{}, Unchanged: map[string]bool{}}}
	for _, f := range r.cfg.Report.Findings {
		switch f.Kind {
		case report.NOD:
			r.nod = append(r.nod, f.Test)
		case report.ODVictim, report.ODBrittle:
			r.known[f.Test] = true
		}
	}
	if err := r.baseline(ctx); err != nil {
		return nil, err
	}
	todo := slices.DeleteFunc(orderFindings(cfg.Report.Findings), func(f report.Finding) bool { return cfg.Test != "" && f.Test != cfg.Test })
	repaired := 0
	for i, f := range todo {
		cfg.Progress.Phase(fmt.Sprintf("repairing %d of %d (%s)", i+1, len(todo), f.Test), 0, time.Time{})
		start := time.Now()
		rep, err := r.repair(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("repair %s: %w", f.Test, err)
		}
		rep.DurationMs = time.Since(start).Milliseconds()
		r.res.Repairs[f.Key()] = rep
		switch {
		case r.res.Unchanged[f.Key()]:
			cfg.Log.Logf("%s: unchanged: already passes its failing order with the module's sources as they are", f.Test)
		case rep.Validated:
			repaired++
			cfg.Progress.Found(repaired)
			cfg.Log.Logf("%s: repaired (%s): %s", f.Test, rep.Kind, rep.Patch)
		default:
			cfg.Log.Logf("%s: not repaired: %s", f.Test, rep.Reason)
		}
	}
	return r.res, nil
}

// run is one repair run's state.
type run struct {
	cfg Config
	src *sources
	ed  *editor.Editor
	sb  *Sandbox
	res *Result
	nod []string
	// known are the tests of the order-dependent findings, which a patch
	// may make pass in the default order.
	known map[string]bool
	base  *launcher.Result // the module's default order with the accepted patches
	// validBase is the default-order run of the candidate validated last,
	// which becomes base when it is accepted.
	validBase *launcher.Result
	// accepted are the validated patches so far, which later findings try first.
	accepted []accepted
	// patches are the diffs written so far: accepted patches that change a
	// common file share one.
	patches []*patch
	cpIndex map[string][]string // classpath classes by simple name, for stitching
	// llmSandbox says how model-written code ran, for an LLM patch's evidence.
	llmSandbox string
	// meaning holds the test-meaning facts of the module's files the
	// candidates changed, as they are on disk (see weakening).
	meaning map[string][]editor.Fact
}

// accepted is a validated patch and the polluters and setters it was made for.
type accepted struct {
	test    string
	rep     *report.Repair
	partner []string
	patch   *patch
}

// patch is one diff under OutDir: the changes of one or more accepted
// patches to a set of files against the module's clean sources, so that it
// applies on its own; reps are the repairs that point at it.
type patch struct {
	path  string
	files []string // module-relative, sorted
	reps  []*report.Repair
}

// orderFindings puts findings with cleaners or setters first, so that a
// polluter's tear-down made for one victim is tried on its other victims,
// then the other order-dependent ones, whose patches may fix a test's NIO
// finding too.
func orderFindings(fs []report.Finding) []report.Finding {
	out := slices.Clone(fs)
	rank := func(f report.Finding) int {
		switch {
		case len(f.Cleaners) > 0 || len(f.Setters) > 0:
			return 0
		case f.Kind == report.ODVictim || f.Kind == report.ODBrittle:
			return 1
		case f.Kind == report.API:
			return 2
		}
		return 3
	}
	slices.SortStableFunc(out, func(a, b report.Finding) int { return rank(a) - rank(b) })
	return out
}

// baseline runs the module's default order in the unpatched sandbox.
func (r *run) baseline(ctx context.Context) error {
	infos, err := r.sb.List(ctx)
	if err != nil {
		return fmt.Errorf("list tests: %w", err)
	}
	if order := r.sb.mod.Order; order != nil {
		if infos, err = order(infos); err != nil {
			return err
		}
	}
	order := launcher.IDs(infos)
	if r.base, err = r.sb.Run(ctx, order, agent.Options{}); err != nil {
		return fmt.Errorf("run the default order: %w", err)
	}
	return nil
}

// candidate is a patch to validate: new contents of module-relative files,
// on top of the patches accepted so far.
type candidate struct {
	kind  string
	files map[string][]byte
	notes []string // what it added, for the evidence
}

// repair finds a validated patch for one finding.
func (r *run) repair(ctx context.Context, f report.Finding) (*report.Repair, error) {
	if f.Kind == report.NOD {
		return &report.Repair{Reason: "a NOD finding fails without a known order or perturbation, so no run can show a patch fixes it: not repaired"}, nil
	}
	// The module's sources as they are, or with the patches accepted for
	// other findings, may already fix this one.
	ev, fb, err := r.validate(ctx, f, nil)
	if err != nil {
		return nil, err
	}
	if fb == "" {
		if len(r.accepted) == 0 {
			return r.unchanged(f, ev), nil
		}
		a := r.fixedBy(f)
		rep := &report.Repair{Kind: a.rep.Kind, Patch: a.patch.path, Files: slices.Clone(a.patch.files), Validated: true,
			Evidence: append([]string{"fixed by the patch for " + a.test}, ev...)}
		a.patch.reps = append(a.patch.reps, rep)
		return rep, nil
	}
	var reasons []string
	for _, plan := range []func(context.Context, report.Finding) (*candidate, []string, string, error){r.inlined, r.reset, r.template} {
		c, ev, why, err := plan(ctx, f)
		if err != nil {
			return nil, err
		}
		if c != nil {
			return r.accept(f, c, ev, partners(f))
		}
		if why != "" {
			reasons = append(reasons, why)
		}
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "no symbolic repair for "+string(f.Kind)+" findings")
	}
	reason := "not repaired symbolically: " + strings.Join(reasons, "; ")
	if r.cfg.LLM == nil {
		if r.cfg.NoLLMWhy != "" {
			reason += "; " + r.cfg.NoLLMWhy
		}
		return r.unrepaired(f, reason)
	}
	c, ev, why, err := r.llm(ctx, f)
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.notes = append([]string{shorten(reason, maxReason)}, c.notes...)
		return r.accept(f, c, ev, partners(f))
	}
	return r.unrepaired(f, reason+"; LLM: "+why)
}

// maxReason bounds a reason in the report (about five lines); the details
// file holds it whole.
const maxReason = 400

// unrepaired is the repair of a finding with no validated patch: its reason
// shortened, with the path of a details file that holds the whole reason,
// one attempt a line, and the finding's failing order.
func (r *run) unrepaired(f report.Finding, reason string) (*report.Repair, error) {
	path := filepath.Join(r.cfg.OutDir, fileName(f.Test)+"."+string(f.Kind)+".reasons.txt")
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): no validated patch\n\nreasons:\n", f.Test, f.Kind)
	for _, part := range strings.Split(reason, "; ") {
		fmt.Fprintf(&b, "  %s\n", part)
	}
	order := failingOrder(f)
	fmt.Fprintf(&b, "\nfailing order (%d tests):\n", len(order))
	for _, t := range order {
		fmt.Fprintf(&b, "  %s\n", t)
	}
	if err := os.MkdirAll(r.cfg.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", r.cfg.OutDir, err)
	}
	if err := safewrite.Atomic(path, []byte(b.String()), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &report.Repair{Reason: shorten(reason, maxReason) + " (details: " + path + ")"}, nil
}

// shorten cuts a reason of "; "-separated parts to at most about max bytes
// at a part's end (the first part is cut mid-way when it alone is longer),
// saying how many parts it left out.
func shorten(reason string, max int) string {
	if len(reason) <= max {
		return reason
	}
	parts := strings.Split(reason, "; ")
	out, n := "", 0
	for _, p := range parts {
		if n > 0 && len(out)+2+len(p) > max {
			break
		}
		if n > 0 {
			out += "; "
		}
		out += p
		n++
	}
	if len(out) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "..."
	}
	if left := len(parts) - n; left > 0 {
		out += fmt.Sprintf("; and %d more", left)
	}
	return out
}

// partners are the polluters and setters of a finding.
func partners(f report.Finding) []string {
	var out []string
	for _, g := range append(slices.Clone(f.Polluters), f.Setters...) {
		out = append(out, g...)
	}
	return out
}

// fixedBy names the accepted patch that most likely fixed a finding: the
// last one made for a shared polluter or setter, or for the same test, else
// the last one.
func (r *run) fixedBy(f report.Finding) accepted {
	for i := len(r.accepted) - 1; i >= 0; i-- {
		if a := r.accepted[i]; a.test == f.Test || sharesPartner(f, a.partner) {
			return a
		}
	}
	return r.accepted[len(r.accepted)-1]
}

func sharesPartner(f report.Finding, partner []string) bool {
	for _, p := range partners(f) {
		if slices.Contains(partner, p) {
			return true
		}
	}
	return false
}

// unchanged is the repair of a finding whose test already passes its
// failing order with the module's sources as they are (its patch was
// applied before): the report's validated patch for it, marked as in the
// sources already, else the reason there is nothing to repair. Nothing is
// written.
func (r *run) unchanged(f report.Finding, evidence []string) *report.Repair {
	r.res.Unchanged[f.Key()] = true
	const already = "already in the sources: the test passes in its failing order without a new patch"
	if p := f.Repair; p != nil && p.Validated && p.Patch != "" {
		return &report.Repair{Kind: p.Kind, Patch: p.Patch, Files: p.Files, Validated: true, Evidence: append([]string{already}, evidence...)}
	}
	return &report.Repair{Reason: "nothing to repair: the test passes in its failing order with the module's sources as they are"}
}

// accept records a validated candidate. Its diff goes to
// OutDir/<test>.diff against the module's clean sources; when it changes a
// file an earlier patch changed, the two become one diff (at the earlier
// one's path) that all their findings point at, so that every diff applies
// to the clean sources on its own.
func (r *run) accept(f report.Finding, c *candidate, evidence, partner []string) (*report.Repair, error) {
	for rel := range c.files {
		if _, ok := r.res.Originals[rel]; ok {
			continue
		}
		orig, err := os.ReadFile(filepath.Join(r.cfg.Module.Dir, rel))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		r.res.Originals[rel] = orig
	}
	maps.Copy(r.res.Files, c.files)
	maps.Copy(r.src.files, c.files)
	rep := &report.Repair{Kind: c.kind, Validated: true, Evidence: append(c.notes, evidence...)}
	p, merged, err := r.patchFor(f, slices.Collect(maps.Keys(c.files)))
	if err != nil {
		return nil, err
	}
	for _, m := range merged {
		rep.Evidence = append(rep.Evidence, "one diff with the patch for "+m+", which changes the same file")
	}
	p.reps = append(p.reps, rep)
	if err := r.writePatch(p); err != nil {
		return nil, err
	}
	r.accepted = append(r.accepted, accepted{test: f.Test, rep: rep, partner: partner, patch: p})
	if r.validBase != nil {
		r.base, r.validBase = r.validBase, nil
	}
	return rep, nil
}

// patchFor is the diff a patch of f changing files goes into: a new one,
// or the first earlier one that changes one of the files, with every other
// earlier one that does merged into it (their files removed). merged names
// the tests of the earlier patches it joins.
func (r *run) patchFor(f report.Finding, files []string) (*patch, []string, error) {
	var into *patch
	var merged []string
	kept := r.patches[:0]
	for _, p := range r.patches {
		if !slices.ContainsFunc(files, func(rel string) bool { return slices.Contains(p.files, rel) }) {
			kept = append(kept, p)
			continue
		}
		for _, a := range r.accepted {
			if a.patch == p && !slices.Contains(merged, a.test) {
				merged = append(merged, a.test)
			}
		}
		if into == nil {
			into = p
			kept = append(kept, p)
			continue
		}
		if err := os.Remove(p.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("merge %s into %s: %w", p.path, into.path, err)
		}
		into.files = append(into.files, p.files...)
		into.reps = append(into.reps, p.reps...)
		for i := range r.accepted {
			if r.accepted[i].patch == p {
				r.accepted[i].patch = into
			}
		}
	}
	r.patches = kept
	if into == nil {
		path := filepath.Join(r.cfg.OutDir, fileName(f.Test)+".diff")
		if slices.ContainsFunc(r.patches, func(p *patch) bool { return p.path == path }) {
			path = filepath.Join(r.cfg.OutDir, fileName(f.Test)+"."+string(f.Kind)+".diff")
		}
		into = &patch{path: path}
		r.patches = append(r.patches, into)
	}
	for _, rel := range files {
		if !slices.Contains(into.files, rel) {
			into.files = append(into.files, rel)
		}
	}
	slices.Sort(into.files)
	return into, merged, nil
}

// writePatch writes a patch's diff (its files' clean contents to their
// contents with every accepted patch) and points its repairs at it.
func (r *run) writePatch(p *patch) error {
	before, after := map[string][]byte{}, map[string][]byte{}
	for _, rel := range p.files {
		before[rel], after[rel] = r.res.Originals[rel], r.res.Files[rel]
	}
	if err := os.MkdirAll(r.cfg.OutDir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", r.cfg.OutDir, err)
	}
	if err := safewrite.Atomic(p.path, []byte(unifiedDiff(before, after)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p.path, err)
	}
	for _, rep := range p.reps {
		rep.Patch, rep.Files = p.path, slices.Clone(p.files)
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._#-]+`)

// fileName turns a test id into a file name.
func fileName(test string) string {
	return unsafeName.ReplaceAllString(test, "_")
}

// failingOrder is the order in which a finding's test fails: its recorded
// failing order, else its first polluter group then the test, else the test
// alone (a brittle), twice for NIO.
func failingOrder(f report.Finding) []string {
	switch {
	case len(f.FailingOrder) > 0:
		return f.FailingOrder
	case f.Kind == report.NIO:
		return []string{f.Test, f.Test}
	case len(f.Polluters) > 0:
		return append(slices.Clone(f.Polluters[0]), f.Test)
	}
	return []string{f.Test}
}

// statesOf are the polluted states the report's findings carry, by test.
func statesOf(rep *report.Report) map[string][]State {
	out := map[string][]State{}
	for _, f := range rep.Findings {
		if len(f.PollutedState) > 0 && len(out[f.Test]) == 0 {
			out[f.Test] = f.PollutedState
		}
	}
	return out
}
