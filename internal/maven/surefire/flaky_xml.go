package surefire

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flakyhq/flaky/internal/base/safewrite"
)

// Problem is one failed run of a test, as Surefire records failures.
type Problem struct {
	Error     bool   // an error (exception) rather than an assertion failure
	Message   string // the failure message
	Type      string // the throwable's class
	Stack     string // the stack trace
	SystemOut string // output of the run, if any
}

// FlakyCase is one test in Surefire's rerun vocabulary: a test that passed in
// some runs and failed in others is flaky (Failed false, its failed runs in
// Flaky); a test that failed in every run has Failed true, its first failure
// in Failure and the others in Reruns.
type FlakyCase struct {
	Class   string
	Name    string
	TimeSec float64
	Failed  bool
	Failure Problem
	Flaky   []Problem
	Reruns  []Problem
}

type xmlOutSuite struct {
	XMLName  xml.Name         `xml:"testsuite"`
	XSI      string           `xml:"xmlns:xsi,attr"`
	Schema   string           `xml:"xsi:noNamespaceSchemaLocation,attr"`
	Version  string           `xml:"version,attr"`
	Name     string           `xml:"name,attr"`
	Time     string           `xml:"time,attr"`
	Tests    int              `xml:"tests,attr"`
	Errors   int              `xml:"errors,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Failures int              `xml:"failures,attr"`
	Flakes   int              `xml:"flakes,attr"`
	Cases    []xmlOutTestCase `xml:"testcase"`
}

type xmlOutTestCase struct {
	Name         string       `xml:"name,attr"`
	ClassName    string       `xml:"classname,attr"`
	Time         string       `xml:"time,attr"`
	Failure      *xmlOutFinal `xml:"failure,omitempty"`
	Error        *xmlOutFinal `xml:"error,omitempty"`
	RerunFailure []xmlOutRun  `xml:"rerunFailure,omitempty"`
	RerunError   []xmlOutRun  `xml:"rerunError,omitempty"`
	FlakyFailure []xmlOutRun  `xml:"flakyFailure,omitempty"`
	FlakyError   []xmlOutRun  `xml:"flakyError,omitempty"`
}

type xmlOutFinal struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Stack   string `xml:",chardata"`
}

type xmlOutRun struct {
	Message   string `xml:"message,attr,omitempty"`
	Type      string `xml:"type,attr,omitempty"`
	Stack     string `xml:"stackTrace,omitempty"`
	SystemOut string `xml:"system-out,omitempty"`
}

func runOf(p Problem) xmlOutRun {
	return xmlOutRun{Message: p.Message, Type: p.Type, Stack: p.Stack, SystemOut: p.SystemOut}
}

// WriteFlakyReports writes one Surefire-format TEST-<class>.xml per class into
// dir, using Surefire's own <flakyFailure>, <flakyError>, <rerunFailure> and
// <rerunError> elements, so tools that read Surefire reports show them.
// It replaces the TEST-*.xml files already in dir.
func WriteFlakyReports(dir string, cases []FlakyCase) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "TEST-*.xml"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("removing old report: %w", err)
		}
	}
	byClass := map[string][]FlakyCase{}
	for _, c := range cases {
		byClass[c.Class] = append(byClass[c.Class], c)
	}
	classes := make([]string, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, class := range classes {
		suite := suiteOf(class, byClass[class])
		data, err := xml.MarshalIndent(suite, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding report for %s: %w", class, err)
		}
		content := append([]byte(xml.Header), data...)
		content = append(content, '\n')
		path := filepath.Join(dir, "TEST-"+class+".xml")
		if err := safewrite.Atomic(path, content, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

func suiteOf(class string, cases []FlakyCase) xmlOutSuite {
	s := xmlOutSuite{
		XSI:     "http://www.w3.org/2001/XMLSchema-instance",
		Schema:  "https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report.xsd",
		Version: "3.0.2",
		Name:    class,
		Tests:   len(cases),
	}
	var total float64
	for _, c := range cases {
		total += c.TimeSec
		tc := xmlOutTestCase{Name: c.Name, ClassName: c.Class, Time: seconds(c.TimeSec)}
		if c.Failed {
			final := &xmlOutFinal{Message: c.Failure.Message, Type: c.Failure.Type, Stack: c.Failure.Stack}
			if c.Failure.Error {
				tc.Error = final
				s.Errors++
			} else {
				tc.Failure = final
				s.Failures++
			}
			for _, p := range c.Reruns {
				if p.Error {
					tc.RerunError = append(tc.RerunError, runOf(p))
				} else {
					tc.RerunFailure = append(tc.RerunFailure, runOf(p))
				}
			}
		} else {
			for _, p := range c.Flaky {
				if p.Error {
					tc.FlakyError = append(tc.FlakyError, runOf(p))
				} else {
					tc.FlakyFailure = append(tc.FlakyFailure, runOf(p))
				}
			}
			if len(c.Flaky) > 0 {
				s.Flakes++
			}
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Time = seconds(total)
	return s
}

func seconds(s float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", s), "0"), ".")
}
