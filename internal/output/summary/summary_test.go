package summary

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func TestMarkdown(t *testing.T) {
	victim := report.Finding{Test: "com.acme.CartTest#total", Kind: report.ODVictim, Polluters: [][]string{{"com.acme.PriceTest#discount"}},
		Message: "expected:<3> but was:<4>", Reproduce: "mvn -Pflaky test -Dflaky.order=o.txt", ReproduceRunOrder: "flaky run-order --order o.txt"}
	known := report.Finding{Test: "com.acme.Other#x", Kind: report.NOD}
	markup := report.Finding{Test: "com.acme.Html#render", Kind: report.NOD, Message: "<script>alert(1)</script>\n```\nbreak out | of it\x1b[31m"}
	gated := func(findings ...report.Finding) *report.Report {
		r := &report.Report{Module: "core", Findings: findings, Gate: &report.Gate{Enabled: true}}
		for _, f := range findings {
			if f.Test == known.Test {
				r.Gate.Known = append(r.Gate.Known, f.Key())
			} else {
				r.Gate.New = append(r.Gate.New, f.Key())
			}
		}
		r.Gate.Pass = len(r.Gate.New) == 0
		return r
	}
	tests := []struct {
		name    string
		modules []Module
		want    []string // in this order
		absent  []string
	}{
		{
			name:    "new first, known after",
			modules: []Module{{Name: "core", Report: gated(known, victim)}},
			want: []string{
				"## flaky: 1 new flaky test (gate failed)",
				"| `com.acme.CartTest#total` | order-dependent victim | fails after com.acme.PriceTest#discount |",
				"<details><summary><code>com.acme.CartTest#total</code>: order-dependent victim</summary>",
				"```sh\nmvn -Pflaky test -Dflaky.order=o.txt\n```",
				"**Known flaky tests** (accepted in `.flaky/baseline.json`): `com.acme.Other#x` (nod)",
			},
		},
		{
			name: "flaky's note apart from the test's message",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Findings: []report.Finding{{Test: "p.V#t", Kind: report.ODVictim,
				Message: "expected:<1> but was:<2>", Note: "the budget ended before the minimisation did: the groups may be incomplete"}}}}},
			want: []string{"```text\nexpected:<1> but was:<2>\n```\n\n_flaky: the budget ended before the minimisation did: the groups may be incomplete_\n\n"},
		},
		{
			name:    "no findings",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{Tests: 7}}}},
			want:    []string{"## flaky: no new flaky tests", "<sub>7 tests, 0 orders run"},
			absent:  []string{"| test |", "<details>"},
		},
		{
			name: "tests that never ran are said, bounded, and the title is not clean",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{Tests: 40,
				Coverage: &report.Coverage{NeverRan: func() []string {
					var ids []string
					for i := range 33 {
						ids = append(ids, fmt.Sprintf("a.ExitTest#m%d", i))
					}
					return ids
				}()}}}}},
			want: []string{"## flaky: no new flaky tests, but 33 tests did not run",
				"**Did not run** (crashed, timed out or got no result in every run; nothing was judged of them): `a.ExitTest#m0`, `a.ExitTest#m1`",
				"`a.ExitTest#m29` and 3 more"},
			absent: []string{"## flaky: no new flaky tests\n", "a.ExitTest#m30"},
		},
		{
			name: "a merge that did not verify its parts is no clean verdict",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{Tests: 4,
				Merge: &report.MergeStats{Parts: []report.MergePart{{Shard: "1/2", Runs: 5, Rerun: 3}, {Shard: "2/2", Runs: 5, Rerun: 5}}}}}}},
			want: []string{"## flaky: no new flaky tests (unverified)",
				"> **Unverified:** 2 of the 10 runs the shards recorded are their word, no run of the merge checked them"},
		},
		{
			name: "a merge whose parts the user vouched for",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{Tests: 4,
				Merge: &report.MergeStats{Trusted: true, Parts: []report.MergePart{{Shard: "1/1", Runs: 5, Rerun: 3}}}}}}},
			want:   []string{"## flaky: no new flaky tests\n"},
			absent: []string{"nverified"},
		},
		{
			name: "budget cut said first",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{
				Coverage: &report.Coverage{BudgetExhausted: true, BudgetMs: 60000, Unconfirmed: []string{"a#b"}}}}}},
			want: []string{"> **Partial results:** the order-dependence analysis in core was cut by its budget of 1m0s (1 unconfirmed)"},
		},
		{
			name: "a change's analysis says what it analysed; its unconfirmed flips are suspected",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{
				Change:   &report.ChangeStats{Ref: "origin/main", Summary: "2 affected tests of 9, 3 pairs, because: TransferTest changed"},
				Coverage: &report.Coverage{Unconfirmed: []string{"a#b"}}}}}},
			want: []string{"Analysed the change since `origin/main`: 2 affected tests of 9, 3 pairs, because: TransferTest changed",
				"**Suspected** (their outcome changed, but no rerun confirmed it; not reported as flaky, the verdict stands): `a#b`"},
			absent: []string{"**Unconfirmed**"},
		},
		{
			name:    "markup stays text",
			modules: []Module{{Name: "core", Report: gated(markup)}},
			want:    []string{"````text\n<script>alert(1)</script>\n```\nbreak out | of it\\u001b[31m\n````"},
			absent:  []string{"\x1b"},
		},
		{
			name:    "modules named",
			modules: []Module{{Name: "core", Report: gated(victim)}, {Name: "web", Report: gated(markup)}},
			want:    []string{"## flaky: 2 new flaky tests (gate failed)", "| module | test | kind | why |", "| `web` | `com.acme.Html#render` |", ", 2 modules"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := Markdown(tt.modules)
			at := 0
			for _, w := range tt.want {
				i := strings.Index(md[at:], w)
				if i < 0 {
					t.Fatalf("missing (or out of order) %q in:\n%s", w, md)
				}
				at += i + len(w)
			}
			for _, a := range tt.absent {
				if strings.Contains(md, a) {
					t.Errorf("unexpected %q in:\n%s", a, md)
				}
			}
		})
	}
}

func TestMarkdownShowsProposedPatch(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fix.diff"), []byte("--- a/T.java\n+++ b/T.java\n@@ -1 +1,2 @@\n+x();\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := report.Finding{Test: "p.T#m", Kind: report.ODVictim, Repair: &report.Repair{Kind: "reset", Patch: "fix.diff", Validated: true}}
	md := Markdown([]Module{{Name: "core", Dir: dir, Report: &report.Report{Module: "core", Findings: []report.Finding{f}}}})
	if !strings.Contains(md, "Proposed fix (reset, validated; `flaky repair --apply` writes it):\n\n```diff\n--- a/T.java\n+++ b/T.java\n@@ -1 +1,2 @@\n+x();\n```") {
		t.Errorf("no proposed patch in:\n%s", md)
	}
}

func TestMarkdownStaysShort(t *testing.T) {
	rep := &report.Report{Module: "core"}
	big := strings.Repeat("x", 1<<20)
	for i := range 3000 {
		rep.Findings = append(rep.Findings, report.Finding{Test: fmt.Sprintf("com.acme.T#m%d", i), Kind: report.NOD,
			Message: big, Reproduce: "mvn -Pflaky test"})
	}
	md := Markdown([]Module{{Name: "core", Report: rep}})
	if len(md) > MaxBytes {
		t.Errorf("summary is %d bytes, more than %d", len(md), MaxBytes)
	}
	if !strings.Contains(md, "more findings left out") {
		t.Errorf("no note about the findings left out")
	}
}

// Victims of one polluter with the same cleaners share one row that says
// why once; a victim with other cleaners keeps its own; the unconfirmed
// tests are named.
func TestMarkdownGroupsAlikeFindings(t *testing.T) {
	victim := func(test string, cleaners ...string) report.Finding {
		f := report.Finding{Test: test, Kind: report.ODVictim, Polluters: [][]string{{"p.T#pollute"}}}
		for _, c := range cleaners {
			f.Cleaners = append(f.Cleaners, []string{c})
		}
		return f
	}
	rep := &report.Report{Module: "core", Findings: []report.Finding{
		victim("p.T#a", "p.T#clean1", "p.T#clean2"), victim("p.T#b", "p.T#clean1", "p.T#clean2"),
		victim("p.T#c"), victim("p.T#d", "p.T#clean1", "p.T#clean2"),
	}, Stats: report.Stats{Coverage: &report.Coverage{Unconfirmed: []string{"p.U#x", "p.U#y"}}}}
	md := Markdown([]Module{{Name: "core", Report: rep}})
	for _, want := range []string{
		"| `p.T#a`<br>`p.T#b`<br>`p.T#d` | 3 × order-dependent victim | fails after p.T#pollute; passes again when p.T#clean1 or p.T#clean2 runs in between |",
		"| `p.T#c` | order-dependent victim | fails after p.T#pollute |",
		"**Unconfirmed** (their outcome changed, but no rerun confirmed it; not reported as flaky): `p.U#x`, `p.U#y`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "p.T#clean2 runs in between"); n != 1 {
		t.Errorf("the shared why appears %d times, want once:\n%s", n, md)
	}
}

// A finding's reproduce commands run from the root of another checkout:
// paths relative to the project, and a short order written out by a
// command before them (run here with sh in a fresh folder).
func TestReproduceFromAnotherCheckout(t *testing.T) {
	ci := t.TempDir() // the CI machine's project root
	core := filepath.Join(ci, "core")
	order := []string{"com.acme.PriceTest#discount", "com.acme.CartTest$Inner#total[1]"}
	orderFile := filepath.Join(core, "target", "flaky", "orders", "order-0a1b.txt")
	if err := os.MkdirAll(filepath.Dir(orderFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orderFile, []byte(strings.Join(order, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := report.Finding{Test: order[1], Kind: report.ODVictim,
		Reproduce:         "mvn -Pflaky test -pl core -am -Dtest=com.acme.PriceTest,com.acme.CartTest -Dsurefire.failIfNoSpecifiedTests=false -Dflaky.testFailureIgnore=false -Dflaky.order=" + orderFile,
		ReproduceRunOrder: "flaky run-order --module " + core + " --order " + orderFile}
	md := Markdown([]Module{{Name: "core", Dir: core, Report: &report.Report{Module: "core", Findings: []report.Finding{f}}}})
	if strings.Contains(md, ci) {
		t.Errorf("the summary names the CI machine's path %s:\n%s", ci, md)
	}
	for _, want := range []string{
		"Reproduce with Maven (from the project's root):\n\n```sh\nmvn -Pflaky test -pl core -am -Dtest=com.acme.PriceTest,com.acme.CartTest -Dsurefire.failIfNoSpecifiedTests=false -Dflaky.testFailureIgnore=false -Dflaky.order=target/flaky/orders/order-0a1b.txt\n```",
		"or with flaky:\n\n```sh\nflaky run-order --module core --order core/target/flaky/orders/order-0a1b.txt\n```",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q:\n%s", want, md)
		}
	}
	_, write, ok := strings.Cut(md, "Write the order they run:\n\n```sh\n")
	write, _, _ = strings.Cut(write, "\n```")
	if !ok {
		t.Fatalf("the summary does not write the order:\n%s", md)
	}
	checkout := t.TempDir()
	cmd := exec.Command("sh", "-c", write)
	cmd.Dir = checkout
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", write, err, out)
	}
	// Where both commands read it: -Dflaky.order from the module, --order
	// from the root.
	got, err := os.ReadFile(filepath.Join(checkout, "core", "target", "flaky", "orders", "order-0a1b.txt"))
	if err != nil || string(got) != strings.Join(order, "\n")+"\n" {
		t.Errorf("%s wrote %q (%v), want the order", write, got, err)
	}

	// A long order is not written out: it is in the build's target/flaky/orders.
	long := make([]string, maxInlineOrder+1)
	for i := range long {
		long[i] = fmt.Sprintf("com.acme.T#t%d", i)
	}
	if err := os.WriteFile(orderFile, []byte(strings.Join(long, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if md := Markdown([]Module{{Name: "core", Dir: core, Report: &report.Report{Module: "core", Findings: []report.Finding{f}}}}); strings.Contains(md, "Write the order") {
		t.Errorf("a %d-test order is written out:\n%s", len(long), md)
	}
}
