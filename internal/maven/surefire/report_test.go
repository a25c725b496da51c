package surefire

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadReport(t *testing.T) {
	const report = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="p.ATest" tests="4" failures="1" errors="1" skipped="1">
  <testcase name="ok" classname="p.ATest" time="0.001"/>
  <testcase name="bad" classname="p.ATest" time="0.002">
    <failure message="expected:&lt;1&gt; but was:&lt;2&gt;" type="java.lang.AssertionError">trace</failure>
  </testcase>
  <testcase name="boom" classname="p.ATest" time="0"><error message="npe" type="java.lang.NullPointerException"/></testcase>
  <testcase name="off" classname="p.ATest" time="0"><skipped message="ignored"/></testcase>
</testsuite>`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "TEST-p.ATest.xml"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReports(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id      string
		outcome Outcome
		message string
	}{
		{"p.ATest#ok", Pass, ""},
		{"p.ATest#bad", Fail, "expected:<1> but was:<2>"},
		{"p.ATest#boom", Error, "npe"},
		{"p.ATest#off", Skipped, "ignored"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d cases, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].ID() != w.id || got[i].Outcome != w.outcome || got[i].Message != w.message {
			t.Errorf("case %d = %s %s %q, want %s %s %q", i, got[i].ID(), got[i].Outcome, got[i].Message, w.id, w.outcome, w.message)
		}
	}
}

func TestReadReportsErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"no reports", nil},
		{"malformed", map[string]string{"TEST-x.xml": "<testsuite><testcase"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for n, c := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := ReadReports(dir); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}
