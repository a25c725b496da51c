package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/base/buildinfo"
)

// runReport needs a report.json to write again.
func TestRunReportWithoutAReport(t *testing.T) {
	dir := projectDir(t, strings.Replace(jupiterPom, "JUPITER", "5.14.4", 1))
	err := runReport(context.Background(), reportOptions{globalOptions: globalOptions{Stdout: io.Discard, Stderr: io.Discard}, Module: dir})
	if err == nil || !strings.Contains(err.Error(), "run flaky detect, flaky chaos or mvn -Pflaky verify first") {
		t.Errorf("%v, want it to say what writes a report", err)
	}
}

func TestRunVersion(t *testing.T) {
	var out bytes.Buffer
	if err := runVersion(globalOptions{Stdout: &out}); err != nil || out.String() != "flaky "+buildinfo.Version()+"\n" {
		t.Errorf("%v, printed %q", err, out.String())
	}
}
