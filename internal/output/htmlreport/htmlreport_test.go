package htmlreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/report"
)

func TestRender(t *testing.T) {
	long := make([]string, 100)
	for i := range long {
		long[i] = "p.T#t" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	victim := report.Finding{Test: "p.CartTest#total", Kind: report.ODVictim, Polluters: [][]string{{"p.PriceTest#discount"}},
		Message:  "<script>alert(1)</script>\x00" + strings.Repeat("y", 1<<20),
		Evidence: []report.Evidence{{Run: "failing", Order: append(append([]string{}, long...), "p.PriceTest#discount", "p.CartTest#total"), Outcome: "fail"}}}
	tests := []struct {
		name    string
		modules []Module
		want    []string
		absent  []string
	}{
		{
			name:    "markup escaped, long message clipped, long order shows marked steps",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Findings: []report.Finding{victim}}}},
			want: []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "more bytes in report.json", `<span class="step polluter" title="p.PriceTest#discount">PriceTest#discount</span>`,
				`<span class="step test" title="p.CartTest#total">CartTest#total</span>`, "… 100 more"},
			absent: []string{"<script>alert(1)", strings.Repeat("y", 20<<10)},
		},
		{
			// verify's 152 orders: Surefire's run, 3 reruns and the
			// order-dependence analysis's 148, the coverage table's.
			name:    "the orders card adds up with the coverage table",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{Orders: 152, Coverage: &report.Coverage{Orders: 148}}}}},
			want: []string{`<span class="muted">orders run</span><b>152</b><span class="muted by">148 order-dependence, 4 Surefire&#39;s run and reruns</span>`,
				"<th>order-dependence orders</th>", "<td>core</td><td>148</td>"},
		},
		{
			name:    "one analysis ran every order",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{Orders: 148, Coverage: &report.Coverage{Orders: 148}}}}},
			want:    []string{`<span class="muted">orders run</span><b>148</b></div>`},
		},
		{
			name: "flaky's note apart from the test's message",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Findings: []report.Finding{{Test: "p.V#t", Kind: report.ODVictim,
				Message: "expected:<1> but was:<2>", Note: "the budget ended before the minimisation did: the groups may be incomplete"}}}}},
			want: []string{"<pre class=\"message\">expected:&lt;1&gt; but was:&lt;2&gt;</pre>\n<div class=\"note muted\">flaky: the budget ended before the minimisation did: the groups may be incomplete</div>"},
		},
		{
			name:    "no findings",
			modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Stats: report.Stats{Tests: 3}}}},
			want:    []string{`<p id="no-findings">No flaky tests found.</p>`, "<b>3</b>"},
			absent:  []string{`class="finding"`},
		},
		{
			name: "gate and modules",
			modules: []Module{
				{Name: "core", Report: &report.Report{Module: "core", Findings: []report.Finding{victim}, Gate: &report.Gate{Enabled: true, Known: []string{victim.Key()}, Pass: true,
					Unjudged: []report.Unjudged{{Test: "p.Old#t", Kind: report.NIO, Reason: "the order-dependence analysis did not run"}}}}},
				{Name: "web", Report: &report.Report{Module: "web", Gate: &report.Gate{Enabled: true, Pass: true}}},
			},
			want: []string{`<b class="status-pass">passed</b>`, `<span class="badge known">known</span>`, `<option value="web">web</option>`,
				"not judged: p.Old#t (core, accepted as nio): the order-dependence analysis did not run"},
		},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fix.diff"), []byte("--- a/T.java\n+++ b/T.java\n@@ -1,2 +1,3 @@\n class T {\n+    @After public void reset() { X.clear(); }\n-    // <old>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repaired := victim
	repaired.Message = "m"
	repaired.Repair = &report.Repair{Kind: "cleaner", Patch: "fix.diff", Validated: true}
	repaired.PollutedState = []report.StateItem{{Kind: "static-field", Root: "p.Prices.TABLE", Path: "['BTC']", Passing: "100", Failing: "<b>90</b>", Confirmed: true}}
	repaired.ProblemInvariants = []report.ProblemInvariant{{Point: "p.Store.count():::EXIT", Variable: "return", Passing: []string{"return == 0"}, Failing: []string{"return == 1"}}}
	unrepaired := report.Finding{Test: "p.A#b", Kind: report.NIO, Repair: &report.Repair{Reason: "no reset-method writes p.A.ids"}}
	tests = append(tests, struct {
		name    string
		modules []Module
		want    []string
		absent  []string
	}{
		name:    "patches",
		modules: []Module{{Name: "core", Dir: dir, Report: &report.Report{Module: "core", Findings: []report.Finding{repaired, unrepaired}}}},
		want: []string{`<span class="badge known">cleaner, validated</span>`, `<span class="diff-add">&#43;    @After public void reset() { X.clear(); }</span>`,
			`<span class="diff-del">-    // &lt;old&gt;</span>`, "Not repaired: no reset-method writes p.A.ids",
			`<code>p.Prices.TABLE[&#39;BTC&#39;]</code> <span class="badge known">confirmed</span>`,
			"<code>p.Store.count():::EXIT</code><br><span class=\"muted\">return</span></td><td class=\"diff-add\"><pre>return == 0\n</pre>", `<td class="diff-del"><pre>&lt;b&gt;90&lt;/b&gt;</pre></td>`},
	})
	alike := func(test string) report.Finding {
		return report.Finding{Test: test, Kind: report.ODVictim, Polluters: [][]string{{"p.T#pollute"}}, Cleaners: [][]string{{"p.T#clean1"}, {"p.T#clean2"}}}
	}
	tests = append(tests, struct {
		name    string
		modules []Module
		want    []string
		absent  []string
	}{
		name: "findings that read the same grouped, unconfirmed named",
		modules: []Module{{Name: "core", Report: &report.Report{Module: "core", Findings: []report.Finding{alike("p.T#a"), victim, alike("p.T#b")},
			Stats: report.Stats{Coverage: &report.Coverage{Unconfirmed: []string{"p.U#x", "p.U#y"}}}}}},
		want: []string{`<div class="group" id="group-1-0"><b>2 × order-dependent victim</b>: <span class="why">fails after p.T#pollute; passes again when p.T#clean1 or p.T#clean2 runs in between</span><br><code>p.T#a</code>, <code>p.T#b</code></div>`,
			`<a href="#group-1-0">its group</a>`, `<div class="why">fails after p.PriceTest#discount</div>`,
			"not reported as flaky: <code>p.U#x</code>, <code>p.U#y</code>"},
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := Render(&b, Page{Title: "t", Generated: time.Unix(0, 0), Modules: tt.modules}); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(page, a) {
					t.Errorf("page has %q", a)
				}
			}
		})
	}
}
