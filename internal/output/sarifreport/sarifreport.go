// Package sarifreport renders flaky's reports as SARIF 2.1.0, the format
// GitHub code scanning and IDEs read: one rule per finding kind, one result
// per finding at its test's source, with the polluters, cleaners, setters
// and perturbed call sites as related locations.
package sarifreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/report"
)

// Module is one module's report and how to find its sources.
type Module struct {
	Name   string
	Report *report.Report
	// Locate returns the source file of a class (binary name; file is the
	// debug information's file name or "") relative to the project root,
	// and the line of the method's declaration when a method is given and
	// known (0 otherwise); "" when there is none.
	Locate func(class, method, file string) (path string, line int)
}

// kinds are the rules, one per finding kind, in a fixed order.
var kinds = []report.Kind{report.ODVictim, report.ODBrittle, report.NIO, report.NOD, report.API}

// help explains each rule.
var help = map[report.Kind]string{
	report.ODVictim:  "The test passes when run alone but fails after some other tests (its polluters) ran in the same JVM: they leave shared state behind that it depends on.",
	report.ODBrittle: "The test fails when run alone and passes only after some other tests (its state-setters) ran: it depends on state they set up.",
	report.NIO:       "The test passes once and fails when run again in the same JVM: it pollutes state it depends on itself.",
	report.NOD:       "The test both passed and failed in the same order: its outcome does not depend on the order (timing, concurrency, randomness, the environment).",
	report.API:       "The test fails when a nondeterministic JDK API (randomness, time, locale, sleeps, timeouts, iteration order, ...) behaves differently within its specification.",
}

// Encode renders the modules' reports as one SARIF log with one run.
func Encode(version string, modules []Module) ([]byte, error) {
	log := sarif.NewReport()
	run := sarif.NewRun()
	run.Tool = sarif.NewTool()
	run.Tool.Driver = sarif.NewToolComponent().WithName("flaky").WithVersion(version)
	for _, k := range kinds {
		run.AddRule(string(k)).
			WithName(ruleName(k)).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(strings.ToUpper(k.Title()[:1]) + k.Title()[1:])).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(help[k])).
			WithHelp(sarif.NewMultiformatMessageString().WithText(help[k]))
	}
	for _, m := range modules {
		for _, f := range m.Report.Findings {
			addResult(run, m, f)
		}
	}
	log.AddRun(run)
	var buf bytes.Buffer
	if err := log.PrettyWrite(&buf); err != nil {
		return nil, fmt.Errorf("encoding SARIF: %w", err)
	}
	if err := Validate(buf.Bytes()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// schemaJSON is the OASIS SARIF 2.1.0 schema (errata 01), as shipped by
// github.com/owenrumney/go-sarif.
//
//go:embed sarif-schema-2.1.0.json
var schemaJSON string

var schema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("sarif-schema-2.1.0.json")
})

// Validate checks a SARIF log against the SARIF 2.1.0 schema.
func Validate(data []byte) error {
	s, err := schema()
	if err != nil {
		return fmt.Errorf("SARIF schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("SARIF log: %w", err)
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("SARIF log does not follow the SARIF 2.1.0 schema: %w", err)
	}
	return nil
}

// ruleName is a kind as a SARIF rule name: OdVictim style.
func ruleName(k report.Kind) string {
	var b strings.Builder
	for _, part := range strings.Split(string(k), "-") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func addResult(run *sarif.Run, m Module, f report.Finding) {
	level, state := "error", "new"
	if !m.Report.IsNew(f) {
		level, state = "warning", "unchanged"
	}
	text := fmt.Sprintf("%s is flaky (%s): %s.", f.Test, f.Kind.Title(), report.Describe(f))
	if msg := report.Headline(f.Message, maxLine); msg != "" {
		text += " It failed with: " + msg
	}
	if f.Note != "" {
		text += " Note: " + f.Note + "."
	}
	if f.Reproduce != "" {
		text += " Reproduce: " + f.Reproduce
	}
	res := run.CreateResultForRule(string(f.Kind)).
		WithLevel(level).
		WithBaselineState(state).
		WithMessage(sarif.NewTextMessage(text)).
		WithPartialFingerprints(map[string]string{"flakyTest/v1": m.Name + ":" + f.Key()})
	class, method := testid.Split(f.Test)
	if loc := location(m, class, method, "", f.Test); loc != nil {
		res.AddLocation(loc)
	}
	logical := sarif.NewLogicalLocation().WithName(method).WithFullyQualifiedName(f.Test).WithKind("function")
	if len(res.Locations) == 0 {
		res.AddLocation(sarif.NewLocation().WithLogicalLocations([]*sarif.LogicalLocation{logical}))
	} else {
		res.Locations[0].WithLogicalLocations([]*sarif.LogicalLocation{logical})
	}
	id := 1
	related := func(loc *sarif.Location) {
		if loc != nil {
			res.AddRelatedLocation(loc.WithID(id))
			id++
		}
	}
	for _, gs := range []struct {
		role   string
		groups [][]string
	}{{"polluter", f.Polluters}, {"cleaner", f.Cleaners}, {"state-setter", f.Setters}} {
		for _, g := range gs.groups {
			for _, t := range g {
				c, meth := testid.Split(t)
				related(location(m, c, meth, "", gs.role+" "+t))
			}
		}
	}
	for _, cs := range f.CallSites {
		loc := location(m, cs.Class, "", cs.File, fmt.Sprintf("perturbed call %s in %s.%s", cs.API, cs.Class, cs.Method))
		if loc != nil && cs.Line > 0 {
			loc.PhysicalLocation.WithRegion(sarif.NewRegion().WithStartLine(cs.Line))
		}
		related(loc)
	}
}

// location is a class's source file with a message, or nil when the module
// has no source for it.
func location(m Module, class, method, file, message string) *sarif.Location {
	if m.Locate == nil {
		return nil
	}
	path, line := m.Locate(class, method, file)
	if path == "" {
		return nil
	}
	phys := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(path).WithURIBaseID("%SRCROOT%"))
	if line > 0 {
		phys.WithRegion(sarif.NewRegion().WithStartLine(line))
	}
	return sarif.NewLocationWithPhysicalLocation(phys).WithMessage(sarif.NewTextMessage(message))
}

// maxLine bounds the failure line quoted in a result's message.
const maxLine = 1000
