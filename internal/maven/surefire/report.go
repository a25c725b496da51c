// Package surefire reads and writes Maven Surefire's files: the TEST-*.xml reports
// and the order files the flaky provider reads.
package surefire

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/testid"
)

// Outcome is the result of one test case as a Surefire report records it.
type Outcome string

// Outcomes in Surefire reports.
const (
	Pass    Outcome = "pass"
	Fail    Outcome = "fail"
	Error   Outcome = "error"
	Skipped Outcome = "skipped"
)

// TestCase is one <testcase> of a Surefire XML report.
type TestCase struct {
	Class   string  // the classname attribute
	Name    string  // the name attribute (method name, possibly with a parameter suffix)
	Outcome Outcome // pass, fail, error or skipped
	Message string  // the failure, error or skip message
	Type    string  // the failure or error type
	File    string  // the report file it came from
	// Flakes counts the failed runs of a test that also passed: its
	// <flakyFailure> and <flakyError> elements.
	Flakes int
}

// ID is the test id flaky uses for this test case: Class#Name ("Class#"
// when the testcase has no name).
func (c TestCase) ID() string { return testid.JoinMethod(c.Class, c.Name) }

type xmlSuite struct {
	XMLName xml.Name      `xml:"testsuite"`
	Cases   []xmlTestCase `xml:"testcase"`
}

type xmlProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
}

type xmlTestCase struct {
	Name      string       `xml:"name,attr"`
	ClassName string       `xml:"classname,attr"`
	Failure   *xmlProblem  `xml:"failure"`
	Error     *xmlProblem  `xml:"error"`
	Skipped   *xmlProblem  `xml:"skipped"`
	FlakyFail []xmlProblem `xml:"flakyFailure"`
	FlakyErr  []xmlProblem `xml:"flakyError"`
}

// ReadReports parses every TEST-*.xml file in dir (a surefire-reports directory)
// and returns their test cases, files in name order and cases in file order.
func ReadReports(dir string) ([]TestCase, error) {
	files, err := filepath.Glob(filepath.Join(dir, "TEST-*.xml"))
	if err != nil {
		return nil, fmt.Errorf("listing surefire reports in %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no TEST-*.xml reports in %s", dir)
	}
	sort.Strings(files)
	var cases []TestCase
	for _, f := range files {
		got, err := ReadReport(f)
		if err != nil {
			return nil, err
		}
		cases = append(cases, got...)
	}
	return cases, nil
}

// ReadReport parses one Surefire TEST-*.xml file.
func ReadReport(file string) ([]TestCase, error) {
	data, err := saferead.ReadFile(file, MaxRecordSize, "a Surefire report")
	if err != nil {
		return nil, fmt.Errorf("reading surefire report: %w", err)
	}
	var suite xmlSuite
	if err := xml.Unmarshal(data, &suite); err != nil {
		return nil, fmt.Errorf("parsing surefire report %s: %w", file, err)
	}
	cases := make([]TestCase, 0, len(suite.Cases))
	for _, c := range suite.Cases {
		tc := TestCase{Class: c.ClassName, Name: strings.TrimSpace(c.Name), Outcome: Pass, File: file, Flakes: len(c.FlakyFail) + len(c.FlakyErr)}
		switch {
		case c.Error != nil:
			tc.Outcome, tc.Message, tc.Type = Error, c.Error.Message, c.Error.Type
		case c.Failure != nil:
			tc.Outcome, tc.Message, tc.Type = Fail, c.Failure.Message, c.Failure.Type
		case c.Skipped != nil:
			tc.Outcome, tc.Message = Skipped, c.Skipped.Message
		}
		cases = append(cases, tc)
	}
	return cases, nil
}
