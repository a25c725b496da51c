package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/flakyhq/flaky/internal/report"
)

// chromium returns the Chromium (or Chrome) executable, skipping the test
// when there is none (scripts/setup.sh installs Debian's chromium; CI sets
// FLAKY_NEED_BROWSER so that a missing one fails there).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("FLAKY_NEED_BROWSER") != "" {
		t.Fatal("no Chromium on PATH (scripts/setup.sh installs it)")
	}
	t.Skip("no Chromium on PATH")
	return ""
}

// TestHTMLReportInBrowser renders a report whose test message carries markup
// with `flaky report`, opens the page in headless Chromium, and checks the
// summary, the finding's evidence chain, that the markup is shown as text (no
// script ran), the filter, and saves a screenshot under target/ for review.
func TestHTMLReportInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := copyFixture(t, "junit4")
	flakyDir := filepath.Join(dir, "target", "flaky")
	hostile := `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">`
	rep := &report.Report{
		Module: ".",
		Findings: []report.Finding{
			{Test: "fixture.junit4.CounterTest#startsAtZero", Kind: report.ODVictim,
				Polluters: [][]string{{"fixture.junit4.CounterTest#increments"}}, Cleaners: [][]string{{"fixture.junit4.ResetTest#resets"}},
				Message:      hostile + "\nexpected:<0> but was:<1>",
				FailingOrder: []string{"fixture.junit4.CounterTest#increments", "fixture.junit4.CounterTest#startsAtZero"},
				Evidence: []report.Evidence{
					{Run: "failing order: 2 run(s)", Order: []string{"fixture.junit4.CounterTest#increments", "fixture.junit4.CounterTest#startsAtZero"}, Outcome: "fail", Message: hostile},
					{Run: "alone: 1 run(s)", Order: []string{"fixture.junit4.CounterTest#startsAtZero"}, Outcome: "pass"},
				},
				Reproduce: "mvn -Pflaky test -Dflaky.order=target/flaky/orders/o.txt", ReproduceRunOrder: "flaky run-order --order o.txt"},
			{Test: "fixture.junit4.ClockTest#ticks", Kind: report.API, Strategy: "TIME_INCREMENT", Group: "TIME", Message: "too slow",
				CallSites: []report.CallSite{{Class: "fixture.junit4.Clock", Method: "now", File: "Clock.java", Line: 7, API: "java.lang.System#currentTimeMillis()"}}},
		},
		Stats: report.Stats{Tests: 9, Orders: 40, DurationMs: 61000,
			Coverage: &report.Coverage{Orders: 40, Rounds: 10, RoundsPlanned: 10, Pairs: 72, PairsCovered: 30, BudgetExhausted: true, BudgetMs: 60000}},
	}
	if err := report.Write(filepath.Join(flakyDir, "report.json"), rep); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(flakyBin(t), "report", "--module", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("flaky report: %v\n%s", err, out)
	}
	page := filepath.Join(flakyDir, "index.html")
	if !strings.Contains(string(out), page) {
		t.Errorf("flaky report does not name the page it wrote:\n%s", out)
	}

	// chromedp waits 20 s by default for the browser to print its DevTools
	// address; beside 16 spinning processes on 2 cores Chrome took longer
	// (make test-busy: "websocket url timeout reached"). Only a browser that
	// never starts reaches the 10 minutes the start is bounded by below.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1280, 1600),
		chromedp.WSURLReadTimeout(10*time.Minute))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The browser's start, measured here with a bound that only a browser
	// that never starts reaches, sizes the bound on the page's checks: a
	// fixed 60 s could run out on a busy machine, where Chrome's processes
	// start many times slower.
	ctx, cancel = context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	began := time.Now()
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	started := time.Since(began)
	ctx, cancel = context.WithTimeout(ctx, max(60*time.Second, 20*started))
	defer cancel()

	var title, message, summary, shownAfterFilter string
	var sections, steps int
	var shot []byte
	err = chromedp.Run(ctx,
		chromedp.Navigate("file://"+page),
		chromedp.WaitVisible("#summary"),
		chromedp.Title(&title),
		chromedp.Text("#summary", &summary),
		chromedp.Text("section.finding pre.message", &message),
		chromedp.Evaluate(`document.querySelectorAll("section.finding").length`, &sections),
		chromedp.Evaluate(`document.querySelectorAll("section.finding .step.polluter, section.finding .step.test").length`, &steps),
		chromedp.FullScreenshot(&shot, 100),
		chromedp.SetValue("#kind-filter", "api"),
		chromedp.Evaluate(`document.getElementById("kind-filter").dispatchEvent(new Event("change")); Array.from(document.querySelectorAll("section.finding")).filter(s => !s.classList.contains("hidden")).map(s => s.dataset.kind).join(",")`, &shownAfterFilter),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(repoRoot(t), "target"), 0o755); err == nil {
		_ = os.WriteFile(filepath.Join(repoRoot(t), "target", "html-report.png"), shot, 0o644)
	}
	if title == "pwned" || !strings.HasPrefix(title, "flaky report") {
		t.Errorf("page title %q: a script from the test message ran", title)
	}
	if !strings.Contains(message, `<script>document.title="pwned"</script>`) {
		t.Errorf("the message's markup is not shown as text: %q", message)
	}
	for _, want := range []string{"tests\n9", "flaky tests\n2", "new\n2"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q: %q", want, summary)
		}
	}
	if sections != 2 || steps < 3 {
		t.Errorf("%d finding sections and %d marked timeline steps; want 2 and at least 3", sections, steps)
	}
	if shownAfterFilter != "api" {
		t.Errorf("after filtering by kind api the page shows %q", shownAfterFilter)
	}
	var cut string
	if err := chromedp.Run(ctx, chromedp.Text(".cut", &cut)); err != nil || !strings.Contains(cut, "cut by its budget") {
		t.Errorf("the budget cut is not shown: %q (%v)", cut, err)
	}
}
