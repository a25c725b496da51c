package repair

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

func result(outcomes ...string) *launcher.Result {
	res := &launcher.Result{}
	for i := 0; i < len(outcomes); i += 2 {
		res.Order = append(res.Order, outcomes[i])
		res.Tests = append(res.Tests, launcher.TestResult{Test: outcomes[i], Outcome: launcher.Outcome(outcomes[i+1])})
	}
	return res
}

// TestOrderFailure: the finding's test must pass; the others must pass or
// be skipped.
func TestOrderFailure(t *testing.T) {
	tests := []struct {
		name string
		res  *launcher.Result
		want string
	}{
		{"all pass", result("p", "pass", "v", "pass"), ""},
		{"ignored test in between", result("p", "pass", "i", "skipped", "v", "pass"), ""},
		{"polluter fails", result("p", "fail", "v", "pass"), "p fail: "},
		{"test skipped", result("p", "pass", "v", "skipped"), "v skipped"},
		{"test did not run", result("p", "pass"), "v did not run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order := append(slices.Clone(tt.res.Order), "v")
			if got := orderFailure(tt.res, order, "v"); got != tt.want {
				t.Errorf("orderFailure = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestChangedOutcomes: known victims going from fail to pass are better;
// any other change is worse; the test itself and NOD tests are ignored.
func TestChangedOutcomes(t *testing.T) {
	r := &run{base: result("p", "pass", "v1", "fail", "v2", "fail", "o", "fail", "n", "pass", "s", "pass"),
		known: map[string]bool{"v1": true, "v2": true}, nod: []string{"n"}}
	worse, better := r.changedOutcomes(result("p", "pass", "v1", "pass", "v2", "pass", "o", "pass", "n", "fail", "s", "skipped"), "v1")
	if want := []string{"o was fail, now pass", "s was pass, now skipped"}; !slices.Equal(worse, want) {
		t.Errorf("worse %q, want %q", worse, want)
	}
	if !slices.Equal(better, []string{"v2"}) {
		t.Errorf("better %q, want [v2]", better)
	}
}

// TestShorten keeps whole parts up to the bound and counts the rest.
func TestShorten(t *testing.T) {
	if got := shorten("a; b", 10); got != "a; b" {
		t.Errorf("short reason changed: %q", got)
	}
	if got := shorten("aaaa; bbbb; cccc", 11); got != "aaaa; bbbb; and 1 more" {
		t.Errorf("got %q", got)
	}
	if got := shorten(strings.Repeat("x", 20)+"; y", 10); got != "xxxxxxxxxx...; and 1 more" {
		t.Errorf("got %q", got)
	}
	if got := orderText([]string{"a", "b", "c", "d", "e"}); got != "[a, ... (5 tests), e]" {
		t.Errorf("orderText = %q", got)
	}
}

// TestAcceptSharesDiffs: patches of different files get a diff each; a
// patch of a file an earlier patch changed joins its diff, which every
// finding of both points at and which applies to the clean sources on its
// own.
func TestAcceptSharesDiffs(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("A.java", "class A {\n}\n")
	write("B.java", "class B {\n}\n")
	out := filepath.Join(t.TempDir(), "repair")
	r := &run{cfg: Config{Module: Module{Dir: dir}, OutDir: out}, src: &sources{dir: dir, files: map[string][]byte{}},
		res: &Result{Repairs: map[string]*report.Repair{}, Files: map[string][]byte{}, Originals: map[string][]byte{}}}
	accept := func(test, rel, content string) *report.Repair {
		rep, err := r.accept(report.Finding{Test: test, Kind: report.ODVictim}, &candidate{kind: report.RepairReset, files: map[string][]byte{rel: []byte(content)}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	a := accept("p.V#a", "A.java", "class A {\n  int x;\n}\n")
	b := accept("p.V#b", "B.java", "class B {\n  int y;\n}\n")
	if a.Patch == b.Patch {
		t.Fatalf("patches of different files share %s", a.Patch)
	}
	c := accept("p.V#c", "A.java", "class A {\n  int x;\n  int z;\n}\n")
	if c.Patch != a.Patch || !slices.Equal(a.Files, []string{"A.java"}) {
		t.Errorf("the second patch of A.java: %s, want %s", c.Patch, a.Patch)
	}
	diffs, _ := filepath.Glob(filepath.Join(out, "*.diff"))
	if len(diffs) != 2 {
		t.Errorf("diffs %v, want two", diffs)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	for _, d := range diffs {
		cmd := exec.Command("git", "apply", "--check", d)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("git apply --check %s: %v\n%s", d, err, out)
		}
	}
	// A patch touching both files merges the two diffs into one.
	d := accept("p.V#d", "B.java", "class B {\n  int y;\n}\n// d\n")
	d2, _ := r.accept(report.Finding{Test: "p.V#e", Kind: report.ODVictim}, &candidate{kind: report.RepairReset, files: map[string][]byte{"A.java": r.res.Files["A.java"], "B.java": []byte("class B {\n  int y;\n}\n// e\n")}}, nil, nil)
	if diffs, _ := filepath.Glob(filepath.Join(out, "*.diff")); len(diffs) != 1 || d2.Patch != a.Patch || b.Patch != a.Patch || d.Patch != a.Patch || !slices.Equal(b.Files, []string{"A.java", "B.java"}) {
		t.Errorf("after a patch of both files: diffs %v, patches %s %s %s %s, files %v", diffs, a.Patch, b.Patch, d.Patch, d2.Patch, b.Files)
	}
}

// TestChaosParams: the strategy parameters of an api finding's reproduce
// command, which its validation runs under.
func TestChaosParams(t *testing.T) {
	tests := []struct {
		name, command string
		want          []string
	}{
		{"the seed of a later run", "flaky run-order --module '/w/my mod' --order o.txt --chaos ITERATION_ORDER --chaos-param seed=24303", []string{"seed=24303"}},
		{"several, one with =", "flaky run-order --chaos SLEEP_INCREASE --chaos-param sleep.limit=0 --chaos-param=chaos.seed=7", []string{"sleep.limit=0", "chaos.seed=7"}},
		{"none", "flaky run-order --module m --order o.txt --chaos LOCALE", nil},
		{"unreadable", "flaky run-order 'unclosed", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chaosParams(report.Finding{ReproduceRunOrder: tt.command}); !slices.Equal(got, tt.want) {
				t.Errorf("params %q, want %q", got, tt.want)
			}
		})
	}
}
