package surefire

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	junit "github.com/joshdk/go-junit"
)

func TestWriteFlakyReports(t *testing.T) {
	dir := t.TempDir()
	cases := []FlakyCase{
		{Class: "p.VictimTest", Name: "reads", TimeSec: 0.012, Flaky: []Problem{
			{Message: "expected:<a> but was:<b>", Type: "java.lang.AssertionError", Stack: "java.lang.AssertionError: ...\n\tat p.VictimTest.reads(VictimTest.java:9)"},
			{Error: true, Message: "boom", Type: "java.lang.IllegalStateException"},
		}},
		{Class: "p.VictimTest", Name: "always", Failed: true,
			Failure: Problem{Message: "nope", Type: "java.lang.AssertionError", Stack: "trace"},
			Reruns:  []Problem{{Message: "nope again", Type: "java.lang.AssertionError"}}},
		{Class: "p.Other", Name: "x", Flaky: []Problem{{Message: "m <&> \"q\"", Type: "T"}}},
	}
	if err := WriteFlakyReports(dir, cases); err != nil {
		t.Fatal(err)
	}

	// A real JUnit XML reader must accept the files.
	suites, err := junit.IngestDir(dir)
	if err != nil {
		t.Fatalf("junit reader: %v", err)
	}
	if len(suites) != 2 {
		t.Fatalf("junit reader found %d suites, want 2", len(suites))
	}
	total := 0
	for _, s := range suites {
		total += len(s.Tests)
	}
	if total != 3 {
		t.Errorf("junit reader found %d tests, want 3", total)
	}

	data, err := os.ReadFile(filepath.Join(dir, "TEST-p.VictimTest.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var suite xmlOutSuite
	if err := xml.Unmarshal(data, &suite); err != nil {
		t.Fatal(err)
	}
	if suite.Tests != 2 || suite.Failures != 1 || suite.Flakes != 1 {
		t.Errorf("suite counts tests=%d failures=%d flakes=%d", suite.Tests, suite.Failures, suite.Flakes)
	}
	reads := suite.Cases[0]
	if len(reads.FlakyFailure) != 1 || len(reads.FlakyError) != 1 || reads.Failure != nil {
		t.Errorf("flaky case: %+v", reads)
	}
	if reads.FlakyFailure[0].Stack == "" || reads.FlakyFailure[0].Message != "expected:<a> but was:<b>" {
		t.Errorf("flakyFailure: %+v", reads.FlakyFailure[0])
	}
	always := suite.Cases[1]
	if always.Failure == nil || len(always.RerunFailure) != 1 {
		t.Errorf("failed case: %+v", always)
	}
	// flaky's own reader counts the flaky runs.
	read, err := ReadReport(filepath.Join(dir, "TEST-p.VictimTest.xml"))
	if err != nil || len(read) != 2 || read[0].Flakes != 2 || read[1].Flakes != 0 || read[1].Outcome != Fail {
		t.Errorf("read back %+v, %v", read, err)
	}

	// Writing again replaces the old reports.
	if err := WriteFlakyReports(dir, cases[2:]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "TEST-p.VictimTest.xml")); !os.IsNotExist(err) {
		t.Errorf("stale report left behind: %v", err)
	}
}
