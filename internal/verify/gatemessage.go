package verify

import (
	"fmt"
	"strings"

	"github.com/flakyhq/flaky/internal/gate/baseline"
)

// MaxGateTests bounds the tests of each kind (new flaky ones, failing ones)
// that GateMessage names; the report has them all.
const MaxGateTests = 10

// GateMessage is the text a failed gate fails the build with (the flaky
// profile shows it as Maven's error, after everything the build printed
// since verify's [flaky] lines): why the module failed, each new flaky test
// with its kind and reproduce command and each test that failed in every
// run, at most MaxGateTests of each, then what to do and where the report
// is.
func (r *Result) GateMessage(module, reportPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "flaky: the flaky gate failed in module %s:", module)
	var why []string
	if n := len(r.Verdict.New); n > 0 {
		why = append(why, fmt.Sprintf("%d new flaky test(s) not in %s", n, baseline.BaselinePath))
	}
	if n := len(r.Failing); n > 0 {
		why = append(why, fmt.Sprintf("%d test(s) fail in every run", n))
	}
	b.WriteString(" " + strings.Join(why, ", ") + "\n")
	for i, f := range r.Verdict.New {
		if i == MaxGateTests {
			fmt.Fprintf(&b, "  ... and %d more new flaky test(s)\n", len(r.Verdict.New)-i)
			break
		}
		fmt.Fprintf(&b, "  NEW   %-10s %s\n", f.Kind, f.Test)
		if f.Reproduce != "" {
			fmt.Fprintf(&b, "        reproduce: %s\n", f.Reproduce)
		}
	}
	for i, t := range r.Failing {
		if i == MaxGateTests {
			fmt.Fprintf(&b, "  ... and %d more failing in every run\n", len(r.Failing)-i)
			break
		}
		fmt.Fprintf(&b, "  FAILS in every run: %s\n", t)
	}
	var todo []string
	if len(r.Failing) > 0 {
		todo = append(todo, "fix the failing tests (they are not flaky)")
	}
	if len(r.Verdict.New) > 0 {
		todo = append(todo, "fix the new flaky tests, or accept them with `flaky baseline accept`")
	}
	fmt.Fprintf(&b, "%s; report: %s\n", strings.Join(todo, "; "), reportPath)
	return b.String()
}
