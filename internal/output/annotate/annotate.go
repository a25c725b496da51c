// Package annotate publishes findings where GitHub Actions shows them: one
// workflow-command annotation per flaky test at its source (an error for a
// new one, a warning for one the baseline accepts), and the Markdown
// summary appended to the job summary.
package annotate

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/sethvargo/go-githubactions"

	"github.com/flakyhq/flaky/internal/base/console"
	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// Module is one module's report and how to find its sources.
type Module struct {
	Name   string
	Report *report.Report
	// Locate returns the source file of a class relative to the project
	// root (the workspace GitHub resolves annotation paths against) and the
	// line of the method's declaration when known (0 otherwise); "" when
	// there is none.
	Locate func(class, method, file string) (path string, line int)
}

// maxLine bounds the failure line quoted in an annotation.
const maxLine = 500

// OnGitHub tells whether getenv describes a GitHub Actions job.
func OnGitHub(getenv func(string) string) bool {
	return getenv("GITHUB_ACTIONS") == "true"
}

// GitHub writes one annotation per finding to w (the job's log).
func GitHub(w io.Writer, modules []Module) {
	gh := githubactions.New(githubactions.WithWriter(w))
	for _, m := range modules {
		for _, f := range m.Report.Findings {
			fields := map[string]string{"title": fmt.Sprintf("flaky: %s (%s)", f.Test, f.Kind.Title())}
			class, method := testid.Split(f.Test)
			if m.Locate != nil {
				if path, line := m.Locate(class, method, ""); path != "" {
					fields["file"] = path
					if line > 0 {
						fields["line"] = strconv.Itoa(line)
					}
				}
			}
			msg := report.Describe(f)
			if first := report.Headline(f.Message, maxLine); first != "" {
				msg += "\n" + first
			}
			if f.Reproduce != "" {
				msg += "\nreproduce: " + f.Reproduce
			}
			msg = console.Escape(msg)
			a := gh.WithFieldsMap(fields)
			if m.Report.IsNew(f) {
				a.Errorf("%s", msg)
			} else {
				a.Warningf("%s (accepted in the baseline)", msg)
			}
		}
	}
}

// AppendStepSummary appends markdown to the job summary file GitHub names
// in GITHUB_STEP_SUMMARY; without it, it does nothing.
func AppendStepSummary(getenv func(string) string, markdown string) error {
	path := getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("job summary: %w", err)
	}
	if _, err := io.WriteString(f, markdown+"\n"); err != nil {
		f.Close()
		return fmt.Errorf("job summary: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("job summary: %w", err)
	}
	return nil
}
