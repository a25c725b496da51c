package repair

import (
	"archive/zip"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/analysis/state"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// ODRepair's generated cleaners, the search half: the
// editor's bytecode finder lists the methods that reset a polluted static
// field (or call one that does) and mines literals; this file turns them
// into short call sequences ranked cheapest first, checks them all in one
// JVM against the captured passing state (the agent's state.probe), and
// hands the ones that reach it to the reset plan's full validation.

// Search bounds.
const (
	maxArgChoices = 8   // argument values tried per parameter
	maxSingles    = 60  // single calls kept (cheapest first)
	maxSequences  = 400 // call sequences probed per static field
	maxProbed     = 3   // probed sequences handed to the full validation
)

// resetMethod is a method the bytecode finder reports, as the editor
// answers it.
type resetMethod struct {
	Owner       string   `json:"owner"`
	Name        string   `json:"name"`
	Desc        string   `json:"desc"`
	Static      bool     `json:"static"`
	Access      string   `json:"access"` // public, protected, package or private
	OwnerPublic bool     `json:"ownerPublic"`
	Params      []string `json:"params"`
	How         string   `json:"how"`
	Depth       int      `json:"depth"`
	// invariant says the dynamic-invariant analysis named the
	// method as a cleaner method or return-value modifier.
	invariant bool
}

// receiverWay is how to obtain an instance of a class: "new" (no-argument
// constructor), "static-method" or "static-field" of the class.
type receiverWay struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Access string `json:"access"`
}

// literal is a constant mined from a class's bytecode.
type literal struct {
	Type  string `json:"type"` // string, int or long
	Value string `json:"value"`
	From  string `json:"from"`
}

// scanResult is the editor's scan-resets answer.
type scanResult struct {
	Methods   []resetMethod            `json:"methods"`
	Receivers map[string][]receiverWay `json:"receivers"`
	Literals  []literal                `json:"literals"`
}

// probeArg is an argument as the agent's probe builds it.
type probeArg struct {
	Kind  string `json:"kind"` // null, string, int, long, boolean, double, char, new
	Value string `json:"value,omitempty"`
}

// probeCall is one call of a sequence.
type probeCall struct {
	Owner    string       `json:"owner"`
	Name     string       `json:"name"`
	Desc     string       `json:"desc"`
	Static   bool         `json:"static"`
	Receiver *receiverWay `json:"receiver,omitempty"`
	Args     []probeArg   `json:"args"`
	cost     int
}

// sequence is a candidate reset: 1 to 3 calls.
type sequence struct {
	ID    string      `json:"id"`
	Calls []probeCall `json:"calls"`
	cost  int
	picks []int // the calls' indexes among the single calls
}

// scanResets asks the bytecode finder for a static field's reset-methods,
// the methods the invariant analysis named, and the literals of the
// polluters, the victim and the field's class.
func (r *run) scanResets(f report.Finding, class, field string) (*scanResult, error) {
	lits := []string{}
	for _, g := range f.Polluters {
		for _, t := range g {
			c := testid.ClassOf(t)
			lits = append(lits, c)
		}
	}
	victim := testid.ClassOf(f.Test)
	lits = append(lits, victim)
	if class != "" {
		lits = append(lits, class)
	}
	extra := []string{}
	for _, m := range append(slices.Clone(f.CleanerMethods), f.ReturnValueModifiers...) {
		if m.Restores {
			extra = append(extra, m.Method)
		}
	}
	dirs := []string{r.sb.mapPath(r.cfg.Module.ClassesDir), r.sb.mapPath(r.cfg.Module.TestClassesDir)}
	if e := classpathEntry(r.sb.env.Classpath, class); e != "" && !slices.Contains(dirs, e) {
		// The field's class is in another module or a dependency: its
		// classes (directory or jar) are searched too.
		dirs = append(dirs, e)
	}
	req := map[string]any{"op": "scan-resets", "dirs": dirs,
		"class": class, "field": field, "literalClasses": uniq(lits), "extra": extra, "depth": 2}
	var out scanResult
	if err := r.ed.Call(req, &out); err != nil {
		return nil, fmt.Errorf("scan the classes for reset-methods of %s.%s: %w", class, field, err)
	}
	for i, m := range out.Methods {
		out.Methods[i].invariant = strings.HasPrefix(m.How, "named by")
	}
	return &out, nil
}

// classpathEntry is the classpath entry (a class directory or a jar) that
// holds class, "" when none does.
func classpathEntry(classpath []string, class string) string {
	if class == "" {
		return ""
	}
	rel := strings.ReplaceAll(class, ".", "/") + ".class"
	for _, e := range classpath {
		fi, err := os.Stat(e)
		switch {
		case err != nil:
		case fi.IsDir():
			if _, err := os.Stat(filepath.Join(e, filepath.FromSlash(rel))); err == nil {
				return e
			}
		default:
			z, err := zip.OpenReader(e)
			if err != nil {
				continue
			}
			_, err = fs.Stat(z, rel)
			z.Close()
			if err == nil {
				return e
			}
		}
	}
	return ""
}

// callable tells whether code in class into can call a member with the
// given access declared in owner (whose class is public or not).
func callable(access string, ownerPublic bool, owner, into string) bool {
	same := pkgOf(owner) == pkgOf(into)
	if !ownerPublic && !same || strings.Contains(owner, "$") && !same {
		return false
	}
	switch access {
	case "public":
		return true
	case "package", "protected":
		return same
	}
	return false
}

// rankMethods keeps the reset-methods code in class into can call (with a
// receiver it can obtain, for instance methods) and orders them cheapest
// first: the invariant analysis's methods, then by depth (methods that
// reset the field themselves before their callers), direct writes before
// mutator calls, fewer parameters first.
func rankMethods(ms []resetMethod, receivers map[string][]receiverWay, into string) []resetMethod {
	var out []resetMethod
	for _, m := range ms {
		if !callable(m.Access, m.OwnerPublic, m.Owner, into) {
			continue
		}
		if !m.Static && receiverFor(m.Owner, receivers, into) == nil {
			continue
		}
		out = append(out, m)
	}
	score := func(m resetMethod) int {
		s := 100*m.Depth + 10*len(m.Params)
		if m.invariant {
			s -= 1000
		}
		if m.How != "putstatic" {
			s += 5
		}
		if !m.Static {
			s += 2
		}
		return s
	}
	slices.SortStableFunc(out, func(a, b resetMethod) int { return cmp.Compare(score(a), score(b)) })
	return out
}

// receiverFor is the cheapest way code in into can obtain an instance of
// owner: a static accessor, a static field, then a new instance.
func receiverFor(owner string, receivers map[string][]receiverWay, into string) *receiverWay {
	rank := map[string]int{"static-method": 0, "static-field": 1, "new": 2}
	var best *receiverWay
	for _, w := range receivers[owner] {
		if !callable(w.Access, true, owner, into) {
			continue
		}
		if best == nil || rank[w.Kind] < rank[best.Kind] {
			best = &w
		}
	}
	return best
}

// argChoices are the values tried for a parameter of a type, best first:
// the passing value's leaves and the literals that fit it (the polluter's
// first, as the finder lists them), then the type's default, null for
// references and a constructed object for project types.
func argChoices(typ string, passing []string, lits []literal, receivers map[string][]receiverWay) []probeArg {
	var out []probeArg
	add := func(a probeArg) {
		if !slices.Contains(out, a) && len(out) < maxArgChoices {
			out = append(out, a)
		}
	}
	number := func(kind string) {
		for _, p := range passing {
			if _, err := strconv.ParseInt(p, 10, 64); err == nil {
				add(probeArg{kind, p})
			}
		}
		for _, l := range lits {
			if l.Type == "int" || l.Type == "long" {
				add(probeArg{kind, l.Value})
			}
		}
		add(probeArg{kind, "0"})
	}
	switch typ {
	case "boolean", "java.lang.Boolean":
		first := "false"
		if slices.Contains(passing, "true") {
			first = "true"
		}
		add(probeArg{"boolean", first})
		add(probeArg{"boolean", strconv.FormatBool(first != "true")})
	case "int", "short", "byte", "java.lang.Integer", "java.lang.Short", "java.lang.Byte":
		number("int")
	case "long", "java.lang.Long":
		number("long")
	case "double", "float", "java.lang.Double", "java.lang.Float":
		add(probeArg{"double", "0"})
	case "char", "java.lang.Character":
		add(probeArg{"char", " "})
	case "java.lang.String", "java.lang.CharSequence", "java.lang.Object":
		for _, p := range passing {
			add(probeArg{"string", p})
		}
		for _, l := range lits {
			if l.Type == "string" {
				add(probeArg{"string", l.Value})
			}
		}
		add(probeArg{Kind: "null"})
		add(probeArg{"string", ""})
	default:
		if w := receivers[typ]; slices.ContainsFunc(w, func(w receiverWay) bool { return w.Kind == "new" && w.Access == "public" }) {
			add(probeArg{"new", typ})
		}
		add(probeArg{Kind: "null"})
	}
	return out
}

// leaves are the scalar values of a recorded passing value: the value
// itself, or the strings and numbers of its JSON tree.
func leaves(passing string) []string {
	p := strings.TrimSpace(passing)
	var v any
	if err := json.Unmarshal([]byte(p), &v); err != nil {
		if absent(p) {
			return nil
		}
		return []string{p}
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if !strings.HasPrefix(v, "@") && !slices.Contains(out, v) {
				out = append(out, v)
			}
		case float64:
			out = append(out, strconv.FormatFloat(v, 'f', -1, 64))
		case bool:
			out = append(out, strconv.FormatBool(v))
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				if !strings.HasPrefix(k, "@") || k == "@value" || k == "@items" || k == "@entries" {
					walk(x)
				}
			}
		}
	}
	walk(v)
	return out
}

// singles are the candidate single calls of the ranked methods, cheapest
// first: a method's rank, then its arguments' ranks.
func singles(ms []resetMethod, receivers map[string][]receiverWay, passing []string, lits []literal, into string) []probeCall {
	var out []probeCall
	for rank, m := range ms {
		c := probeCall{Owner: m.Owner, Name: m.Name, Desc: m.Desc, Static: m.Static, Args: []probeArg{}}
		if !m.Static {
			c.Receiver = receiverFor(m.Owner, receivers, into)
		}
		combos := []probeCall{c}
		for _, p := range m.Params {
			var next []probeCall
			for _, prefix := range combos {
				for i, a := range argChoices(p, passing, lits, receivers) {
					n := prefix
					n.Args = append(slices.Clone(prefix.Args), a)
					n.cost = prefix.cost + i
					next = append(next, n)
				}
			}
			combos = next
		}
		for i := range combos {
			combos[i].cost += 10 * rank
		}
		out = append(out, combos...)
	}
	slices.SortStableFunc(out, func(a, b probeCall) int { return cmp.Compare(a.cost, b.cost) })
	return out[:min(len(out), maxSingles)]
}

// sequences combines single calls into sequences of 1 to 3 distinct calls
// (in rank order), ranked by length, then by the sum of the calls' costs;
// at most limit.
func sequences(calls []probeCall, limit int) []sequence {
	var out []sequence
	n := len(calls)
	for size := 1; size <= 3; size++ {
		var level []sequence
		var pick func(start int, cur []int)
		pick = func(start int, cur []int) {
			if len(cur) == size {
				s := sequence{picks: slices.Clone(cur)}
				for _, i := range cur {
					s.Calls = append(s.Calls, calls[i])
					s.cost += calls[i].cost
				}
				level = append(level, s)
				return
			}
			for i := start; i < n && len(level) < 4*limit; i++ {
				pick(i+1, append(cur, i))
			}
		}
		pick(0, nil)
		slices.SortStableFunc(level, func(a, b sequence) int { return cmp.Compare(a.cost, b.cost) })
		out = append(out, level...)
		if len(out) >= limit {
			break
		}
	}
	out = out[:min(len(out), limit)]
	for i := range out {
		out[i].ID = strconv.Itoa(i)
	}
	return out
}

// javaCall renders a call as a Java statement, classes fully qualified.
func javaCall(c probeCall, params []string) string {
	owner := classRef(c.Owner)
	target := owner
	if !c.Static && c.Receiver != nil {
		switch c.Receiver.Kind {
		case "static-method":
			target = owner + "." + c.Receiver.Name + "()"
		case "static-field":
			target = owner + "." + c.Receiver.Name
		default:
			target = "new " + owner + "()"
		}
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		switch a.Kind {
		case "null":
			args[i] = "(" + classRef(params[i]) + ") null"
		case "string":
			args[i] = javaString(a.Value)
		case "long":
			args[i] = a.Value + "L"
		case "double":
			args[i] = a.Value + ".0"
		case "char":
			args[i] = "'" + strings.ReplaceAll(strings.ReplaceAll(a.Value, `\`, `\\`), "'", `\'`) + "'"
		case "new":
			args[i] = "new " + classRef(a.Value) + "()"
		default:
			args[i] = a.Value
		}
	}
	return fmt.Sprintf("%s.%s(%s);", target, c.Name, strings.Join(args, ", "))
}

// paramsOf are a call's parameter types, from the scan.
func paramsOf(c probeCall, ms []resetMethod) []string {
	for _, m := range ms {
		if m.Owner == c.Owner && m.Name == c.Name && m.Desc == c.Desc {
			return m.Params
		}
	}
	return nil
}

// searchResets is the bytecode search for one static field: the ranked
// sequences that bring the field from its failing to its passing state in
// the probe JVM, as Java statements for code in class into. probed says
// whether the probe ran (when it did not, the caller may fall back on the
// source heuristic); why says why nothing was found.
func (r *run) searchResets(ctx context.Context, f report.Finding, s State, into string) (alts [][]string, probed bool, why string, err error) {
	class, field, ok := state.SplitStaticField(s.Root)
	if !ok {
		return nil, false, "", nil
	}
	sc, err := r.scanResets(f, class, field)
	if err != nil {
		return nil, false, "", err
	}
	intoClass := testid.ClassOf(into)
	ms := rankMethods(sc.Methods, sc.Receivers, intoClass)
	if len(sc.Methods) == 0 {
		return nil, false, fmt.Sprintf("static field %s: no reset-method in the module's bytecode", s.Root), nil
	}
	if len(ms) == 0 {
		return nil, false, fmt.Sprintf("static field %s: %d reset-method(s) in the module's bytecode, none callable from %s", s.Root, len(sc.Methods), intoClass), nil
	}
	seqs := sequences(singles(ms, sc.Receivers, leaves(s.Passing), sc.Literals, intoClass), maxSequences)
	ok, hits, err := r.probe(ctx, f, s.Root, s.Path, seqs)
	if err != nil || !ok {
		return nil, false, "", err
	}
	hits = minimalHits(seqs, hits)
	for _, i := range hits[:min(len(hits), maxProbed)] {
		var stmts []string
		for _, c := range seqs[i].Calls {
			stmts = append(stmts, javaCall(c, paramsOf(c, ms)))
		}
		alts = append(alts, stmts)
	}
	if len(alts) == 0 {
		why = fmt.Sprintf("static field %s: none of %d call sequence(s) of %d reset-method(s) found in bytecode restores the passing state in the probe", s.Root, len(seqs), len(ms))
	}
	return alts, true, why, nil
}

// minimalHits keeps the hits none of whose shorter sub-sequences was a hit
// or went unprobed: no call can be left out of them and still restore the
// passing state, so they need no further minimisation.
func minimalHits(seqs []sequence, hits []int) []int {
	key := func(picks []int) string { return fmt.Sprint(picks) }
	probed := map[string]bool{}
	for _, s := range seqs {
		probed[key(s.picks)] = false
	}
	for _, i := range hits {
		probed[key(seqs[i].picks)] = true
	}
	var out []int
	for _, i := range hits {
		p := seqs[i].picks
		minimal := true
		for mask := 1; mask < 1<<len(p)-1 && minimal; mask++ {
			var sub []int
			for b := range p {
				if mask&(1<<b) != 0 {
					sub = append(sub, p[b])
				}
			}
			hit, ok := probed[key(sub)]
			minimal = ok && !hit
		}
		if minimal {
			out = append(out, i)
		}
	}
	return out
}

// probe runs the finding's failing order once with the agent's state.probe:
// the root's passing state before the first test, then each sequence tried
// before the victim and put back. It returns the indexes of the sequences
// that reached the passing fingerprint, in rank order, then those that
// reached the passing value at the polluted path; ok is false when the
// probe did not report both states.
func (r *run) probe(ctx context.Context, f report.Finding, root, path string, seqs []sequence) (ok bool, hits []int, err error) {
	order := failingOrder(f)
	at := len(order) - 1 // the victim's run, or an NIO test's second one
	if at <= 0 || order[at] != f.Test {
		return false, nil, nil
	}
	if _, err := r.apply(ctx, nil); err != nil {
		return false, nil, err
	}
	data, err := json.Marshal(map[string]any{"root": root, "passingAt": 0, "index": at, "candidates": seqs})
	if err != nil {
		return false, nil, err
	}
	file, err := os.CreateTemp(r.cfg.WorkDir, "probe-*.json")
	if err != nil {
		return false, nil, fmt.Errorf("write the probe file: %w", err)
	}
	defer os.Remove(file.Name())
	if _, err := file.Write(data); err != nil {
		file.Close()
		return false, nil, fmt.Errorf("write the probe file: %w", err)
	}
	if err := file.Close(); err != nil {
		return false, nil, fmt.Errorf("write the probe file: %w", err)
	}
	res, err := r.sb.Run(ctx, order, agent.Options{State: agent.StateOptions{Probe: file.Name()}})
	if err != nil {
		return false, nil, err
	}
	var passing, failing *agent.StateRoot
	byID := map[string]agent.StateRoot{}
	for _, e := range res.States {
		if len(e.Roots) != 1 {
			continue
		}
		switch e.Point {
		case "probe-passing":
			passing = &e.Roots[0]
		case "probe-failing":
			failing = &e.Roots[0]
		case "probe":
			byID[e.Test] = e.Roots[0]
		}
	}
	if passing == nil || failing == nil {
		r.cfg.Log.Logf("%s: the reset probe of %s reported no state", f.Test, root)
		return false, nil, nil
	}
	if passing.FP == failing.FP {
		r.cfg.Log.Logf("%s: %s has its passing value before the test already", f.Test, root)
	}
	// Sequences that restore the whole root first, then those that restore
	// it at the polluted path.
	var atPath []int
	for i, s := range seqs {
		got, ok := byID[s.ID]
		switch {
		case !ok:
		case got.FP == passing.FP:
			hits = append(hits, i)
		case restoresAt(*passing, got, path):
			atPath = append(atPath, i)
		}
	}
	return true, append(hits, atPath...), nil
}

// restoresAt tells whether a root equals its passing value at the polluted
// path and below, other parts of it aside (a call counter, a cache of
// something else): no difference between them lies on the path or under
// it. The root itself (path "") is not enough.
func restoresAt(passing, got agent.StateRoot, path string) bool {
	if path == "" {
		return false
	}
	changes, more := state.Diff(state.Root{Tree: passing.Tree}, state.Root{Tree: got.Tree}, 1000)
	if more {
		return false
	}
	for _, c := range changes {
		if c.Path == "" || strings.HasPrefix(c.Path, path) || strings.HasPrefix(path, c.Path) {
			return false
		}
	}
	return true
}

// staticResets are the candidate resets of a polluted static field for code
// in the class of test into: the probed sequences of the bytecode search
// (each reached the passing state in the probe JVM, so only the full
// validation remains), else (when the probe could not run) the source
// heuristic's calls of methods of the field's class; why says why there
// are none.
func (r *run) staticResets(ctx context.Context, f report.Finding, s State, into string) (alts [][]string, why string, err error) {
	alts, probed, why, err := r.searchResets(ctx, f, s, into)
	if err != nil || probed || len(alts) > 0 {
		return alts, why, err
	}
	calls, err := r.resetCalls(s)
	if err != nil {
		return nil, "", err
	}
	if len(calls) == 0 {
		if why == "" {
			why = "static field " + s.Root + ": no reset-method found in its class's bytecode or source"
		}
		return nil, why, nil
	}
	return calls, "", nil
}

// maxInvariantCalls bounds the calls of the invariant analysis's methods
// tried for a finding without a polluted static field.
const maxInvariantCalls = 6

// invariantResets tries, for a finding whose polluted state the root-cause
// analysis did not record (state outside the heap: a database table, a file
// read through a method), the methods the invariant analysis
// named as cleaner methods or restoring return-value modifiers: each called
// with arguments from the mined literals, in the polluter's tear-down, else
// the victim's set-up, checked on the failing order, then validated. why is
// empty when there were no such methods.
func (r *run) invariantResets(ctx context.Context, f report.Finding) (*candidate, []string, string, error) {
	if len(f.CleanerMethods)+len(f.ReturnValueModifiers) == 0 {
		return nil, nil, "", nil
	}
	sc, err := r.scanResets(f, "", "")
	if err != nil {
		return nil, nil, "", err
	}
	var places []placement
	for _, g := range f.Polluters {
		last := g[len(g)-1]
		places = append(places, placement{last, "after", "tear-down of polluter " + last})
	}
	places = append(places, placement{f.Test, "before", "set-up of " + f.Test})
	into := testid.ClassOf(places[0].test)
	ms := rankMethods(sc.Methods, sc.Receivers, into)
	calls := singles(ms, sc.Receivers, nil, sc.Literals, into)
	calls = calls[:min(len(calls), maxInvariantCalls)]
	if len(calls) == 0 {
		return nil, nil, fmt.Sprintf("the invariant analysis's %d method(s): none callable from %s", len(sc.Methods), into), nil
	}
	for _, p := range places {
		for _, c := range calls {
			stmt := javaCall(c, paramsOf(c, ms))
			files, err := r.edit(p, editor.Code{Statements: []string{stmt}})
			if err != nil {
				return nil, nil, "", err
			}
			if ok, err := r.fixes(ctx, f, files); err != nil || !ok {
				if err != nil {
					return nil, nil, "", err
				}
				continue
			}
			unit := restore{code: editor.Code{Statements: []string{stmt}}, what: "invariant analysis's reset " + stmt}
			cand, ev, _, err := r.minimalAt(ctx, f, p, []restore{unit}, report.RepairReset, "")
			if err != nil || cand != nil {
				return cand, ev, "", err
			}
		}
	}
	return nil, nil, fmt.Sprintf("none of %d call(s) of the invariant analysis's cleaner methods and return-value modifiers fixes the failing order", len(calls)), nil
}
