// The meaning check: a patch, whichever plan or model made it, may make a
// test pass only by fixing what it depends on, never by checking less. The
// Java source editor lists the facts of each changed file before and after
// the patch (op test-meaning, on the parsed sources); a patch that loses a
// fact that must be kept (a test, an assertion, an expected exception, a
// timeout, a rule) or adds one that weakens (a disabling annotation, an
// assumption, a catch that swallows the failure, a return in a test, a
// method that shadows an assertion) is rejected with the reason.

package repair

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/fix/editor"
)

// maxSourceSize bounds a module source file the meaning check reads.
const maxSourceSize = 16 << 20

// meaningRule says what a patch may do with the facts of a kind: keep says
// every one must stay (lost is the reason when one does not), noAdd that
// none may be added (added is the reason). Both take the fact's Where and
// Text.
type meaningRule struct {
	keep, noAdd bool
	lost, added string
}

// meaningRules are the rules by fact kind (see editor.Fact), in the order
// their reasons are given.
var meaningRules = []struct {
	kind string
	meaningRule
}{
	{"disabled", meaningRule{noAdd: true, added: "disables %s with `%s`"}},
	{"assumption", meaningRule{noAdd: true, added: "adds the assumption `%[2]s` to %[1]s, which skips the test instead of failing it"}},
	{"swallow", meaningRule{noAdd: true, added: "adds a `%[2]s` in %[1]s that swallows the failure (it neither rethrows nor fails)"}},
	{"expected", meaningRule{keep: true, noAdd: true, lost: "removes or changes the expected exception `%[2]s` of %[1]s", added: "adds the expected exception `%[2]s` to %[1]s"}},
	{"timeout", meaningRule{keep: true, lost: "removes or changes the timeout `%[2]s` of %[1]s"}},
	{"rule", meaningRule{keep: true, noAdd: true, lost: "removes or changes the rule or extension `%[2]s` of %[1]s", added: "adds the rule or extension `%[2]s` to %[1]s, which can change how its failures are reported"}},
	{"test", meaningRule{keep: true, lost: "removes the test %s or its test annotation"}},
	{"assertion", meaningRule{keep: true, lost: "removes or changes the assertion `%[2]s` in %[1]s"}},
	{"return", meaningRule{noAdd: true, added: "adds `%[2]s` to %[1]s, which can end the test before its assertions"}},
	{"assert-decl", meaningRule{noAdd: true, added: "declares its own %[2]s (%[1]s), which can shadow the assertion the test calls"}},
	{"import", meaningRule{keep: true, lost: "removes the import `%[2]s`"}},
}

// weakensPrefix starts the feedback of a patch the meaning check rejects.
const weakensPrefix = "the patch weakens the test: "

// weakening checks the Java files of a candidate against the module's own:
// the reasons the patch weakens their tests (empty when it keeps them) and,
// when it does not, the evidence line that says what was compared.
func (r *run) weakening(files map[string][]byte) (reasons []string, evidence string, err error) {
	counts := map[string]int{}
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(rel, ".java") {
			continue
		}
		before, why, err := r.meaningBefore(rel)
		if err != nil {
			return nil, "", err
		}
		if why != "" {
			return []string{why}, "", nil
		}
		after, err := r.ed.TestMeaning(string(files[rel]))
		if err != nil {
			return []string{fmt.Sprintf("%s as patched cannot be checked: %v", rel, err)}, "", nil
		}
		reasons = append(reasons, compareMeaning(before, after)...)
		for _, f := range before {
			counts[f.Kind]++
		}
	}
	if len(reasons) > 0 {
		return reasons, "", nil
	}
	return nil, fmt.Sprintf("test meaning kept (compared on the parsed sources): %d test(s), %d assertion(s), %d expected exception(s) and timeout(s); nothing disabled, assumed, swallowed or shadowed",
		counts["test"], counts["assertion"], counts["expected"]+counts["timeout"]), nil
}

// meaningBefore returns the facts of a module file as it is on disk (none
// for a file the patch creates), once per run; why says why there are none
// to compare with when the editor cannot read the file (no patch of it can
// be validated then).
func (r *run) meaningBefore(rel string) (facts []editor.Fact, why string, err error) {
	if f, ok := r.meaning[rel]; ok {
		return f, "", nil
	}
	data, err := saferead.ReadFile(filepath.Join(r.cfg.Module.Dir, rel), maxSourceSize, "a Java source")
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, "", fmt.Errorf("read %s: %w", rel, err)
	default:
		if facts, err = r.ed.TestMeaning(string(data)); err != nil {
			return nil, fmt.Sprintf("%s cannot be checked: %v", rel, err), nil
		}
	}
	if r.meaning == nil {
		r.meaning = map[string][]editor.Fact{}
	}
	r.meaning[rel] = facts
	return facts, "", nil
}

// compareMeaning gives the reasons the facts after a patch weaken those
// before it, by meaningRules, in their order; an unknown kind must stay
// exactly as it was.
func compareMeaning(before, after []editor.Fact) []string {
	id := func(f editor.Fact) string { return f.Kind + "\x00" + f.Where + "\x00" + f.Key }
	nb, na := map[string]int{}, map[string]int{}
	for _, f := range before {
		nb[id(f)]++
	}
	for _, f := range after {
		na[id(f)]++
	}
	rules := map[string]meaningRule{}
	for _, r := range meaningRules {
		rules[r.kind] = r.meaningRule
	}
	var reasons []string
	seen := map[string]bool{}
	check := func(kind string, rule meaningRule) {
		for _, f := range before {
			if f.Kind == kind && rule.keep && na[id(f)] < nb[id(f)] && !seen[id(f)] {
				seen[id(f)] = true
				reasons = append(reasons, fmt.Sprintf(rule.lost, f.Where, f.Text))
			}
		}
		for _, f := range after {
			if f.Kind == kind && rule.noAdd && na[id(f)] > nb[id(f)] && !seen[id(f)] {
				seen[id(f)] = true
				reasons = append(reasons, fmt.Sprintf(rule.added, f.Where, f.Text))
			}
		}
	}
	for _, r := range meaningRules {
		check(r.kind, r.meaningRule)
	}
	strict := meaningRule{keep: true, noAdd: true, lost: "removes or changes `%[2]s` of %[1]s", added: "adds `%[2]s` to %[1]s"}
	var unknown []string
	for _, f := range slices.Concat(before, after) {
		if _, ok := rules[f.Kind]; !ok && !slices.Contains(unknown, f.Kind) {
			unknown = append(unknown, f.Kind)
			check(f.Kind, strict)
		}
	}
	return reasons
}

// weakeningText is the feedback for the reasons a patch weakens a test:
// the first few, and how many more there are.
func weakeningText(reasons []string) string {
	return weakensPrefix + listText(reasons)
}
