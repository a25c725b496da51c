package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/output/sarifreport"
)

// checkPublished checks what mvn -Pflaky verify published on the reactor
// fixture besides report.json: each module's summary.md and flaky.sarif (valid
// SARIF 2.1.0, the flaky test at its source file), the pages over all modules
// at the reactor root, and on GitHub Actions the error annotation and the job
// summary.
func checkPublished(t *testing.T, dir, out, stepSummary, flakyTest string) {
	t.Helper()
	const source = "core/src/test/java/fixture/reactor/core/ExchangeRateTest.java"
	md, err := os.ReadFile(filepath.Join(dir, "core", "target", "flaky", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## flaky: 1 new flaky test (gate failed)", "`" + flakyTest + "`", "Reproduce with Maven (from the project's root):", "-pl core ", "-Dflaky.order=target/flaky/orders/order-"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	// A reviewer runs its commands in another checkout.
	if strings.Contains(string(md), dir) {
		t.Errorf("summary.md names this machine's %s:\n%s", dir, md)
	}
	if job, err := os.ReadFile(stepSummary); err != nil || !bytes.Contains(job, []byte(flakyTest)) {
		t.Errorf("the job summary does not name the flaky test (%v):\n%s", err, job)
	}
	if !strings.Contains(out, "::error file="+source) || !strings.Contains(out, flakyTest) {
		t.Errorf("no GitHub error annotation at %s in the build output:\n%s", source, tail(out))
	}
	sarif, err := os.ReadFile(filepath.Join(dir, "core", "target", "flaky", "flaky.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	validSARIF(t, sarif)
	if !bytes.Contains(sarif, []byte(`"uri": "`+source+`"`)) {
		t.Errorf("flaky.sarif does not locate the test at %s:\n%s", source, sarif)
	}
	page, err := os.ReadFile(filepath.Join(dir, "target", "flaky", "index.html"))
	if err != nil {
		t.Fatalf("no page over all modules at the reactor root: %v", err)
	}
	for _, want := range []string{`data-module="core"`, `<option value="web">web</option>`, flakyTest} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the reactor page lacks %q", want)
		}
	}
}

// validSARIF validates a SARIF log against the SARIF 2.1.0 schema.
func validSARIF(t *testing.T, data []byte) {
	t.Helper()
	if err := sarifreport.Validate(data); err != nil {
		t.Error(err)
	}
}
