// Package repair turns the findings of target/flaky/report.json into minimal
// validated source patches: iFixFlakies' inlined cleaners and
// state-setters, ODRepair-style resets of a known polluted state, standard
// fixes of API findings, and FlakyDoctor's LLM loop for the rest. Candidates
// are edited with the Java source editor, compiled with javac and run in a
// sandbox copy of the module; only validated patches are reported.
package repair

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/editor"

	"github.com/google/renameio/v2"

	"github.com/flakyhq/flaky/agent"
	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/progress"
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
	Logf     func(format string, args ...any)
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
}

// Run repairs the findings of cfg.Report.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
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
	opts := launcher.Options{Workers: cfg.Workers}
	if cfg.Progress != nil {
		opts.Ran = func(*launcher.Result) { cfg.Progress.Ran() }
	}
	sb, err := NewSandbox(cfg.Module, cfg.WorkDir, jars, opts)
	if err != nil {
		return nil, err
	}
	defer sb.Close()
	sb.ed = ed
	r := &run{cfg: cfg, src: src, ed: ed, sb: sb, res: &Result{Repairs: map[string]*report.Repair{}, Files: map[string][]byte{}, Originals: map[string][]byte{}}}
	for _, f := range r.cfg.Report.Findings {
		if f.Kind == report.NOD {
			r.nod = append(r.nod, f.Test)
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
		if rep.Validated {
			repaired++
			cfg.Progress.Found(repaired)
			cfg.Logf("%s: repaired (%s): %s", f.Test, rep.Kind, rep.Patch)
		} else {
			cfg.Logf("%s: not repaired: %s", f.Test, rep.Reason)
		}
	}
	return r.res, nil
}

// run is one repair run's state.
type run struct {
	cfg  Config
	src  *sources
	ed   *editor.Editor
	sb   *Sandbox
	res  *Result
	nod  []string
	base *launcher.Result // the module's default order with the accepted patches
	// validBase is the default-order run of the candidate validated last,
	// which becomes base when it is accepted.
	validBase *launcher.Result
	// accepted are the validated patches so far, which later findings try first.
	accepted []accepted
	cpIndex  map[string][]string // classpath classes by simple name, for stitching
}

// accepted is a validated patch and the polluters and setters it was made for.
type accepted struct {
	test    string
	rep     *report.Repair
	partner []string
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
	// The patches accepted for other findings may already fix this one.
	if len(r.accepted) > 0 {
		ev, fb, err := r.validate(ctx, f, nil)
		if err != nil {
			return nil, err
		}
		if fb == "" {
			a := r.fixedBy(f)
			return &report.Repair{Kind: a.rep.Kind, Patch: a.rep.Patch, Files: a.rep.Files, Validated: true,
				Evidence: append([]string{"fixed by the patch for " + a.test}, ev...)}, nil
		}
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
		return &report.Repair{Reason: reason}, nil
	}
	c, ev, why, err := r.llm(ctx, f)
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.notes = append([]string{reason}, c.notes...)
		return r.accept(f, c, ev, partners(f))
	}
	return &report.Repair{Reason: reason + "; LLM: " + why}, nil
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

// accept records a validated candidate: its diff against the patches
// accepted before it goes to OutDir/<test>.diff.
func (r *run) accept(f report.Finding, c *candidate, evidence, partner []string) (*report.Repair, error) {
	before := map[string][]byte{}
	for rel := range c.files {
		if cur, ok := r.res.Files[rel]; ok {
			before[rel] = cur
		} else {
			orig, err := os.ReadFile(filepath.Join(r.cfg.Module.Dir, rel))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", rel, err)
			}
			before[rel] = orig
			r.res.Originals[rel] = orig
		}
	}
	diff := unifiedDiff(before, c.files)
	if err := os.MkdirAll(r.cfg.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", r.cfg.OutDir, err)
	}
	path := filepath.Join(r.cfg.OutDir, fileName(f.Test)+".diff")
	if slices.ContainsFunc(r.accepted, func(a accepted) bool { return a.rep.Patch == path }) {
		path = filepath.Join(r.cfg.OutDir, fileName(f.Test)+"."+string(f.Kind)+".diff")
	}
	if err := renameio.WriteFile(path, []byte(diff), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	maps.Copy(r.res.Files, c.files)
	maps.Copy(r.src.files, c.files)
	rep := &report.Repair{Kind: c.kind, Patch: path, Files: slices.Sorted(maps.Keys(c.files)), Validated: true, Evidence: append(c.notes, evidence...)}
	r.accepted = append(r.accepted, accepted{test: f.Test, rep: rep, partner: partner})
	if r.validBase != nil {
		r.base, r.validBase = r.validBase, nil
	}
	return rep, nil
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
