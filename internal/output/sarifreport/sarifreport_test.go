package sarifreport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func sample() *report.Report {
	return &report.Report{
		Module: "core",
		Findings: []report.Finding{
			{Test: "com.acme.CartTest#total", Kind: report.ODVictim, Polluters: [][]string{{"com.acme.PriceTest#discount"}},
				Cleaners: [][]string{{"com.acme.Missing#reset"}}, Message: "expected:<3> but was:<4>\n\tat ...", Reproduce: "mvn -Pflaky test -Dflaky.order=o.txt"},
			{Test: "com.acme.CartTest#render", Kind: report.API, Strategy: "ITERATION_ORDER", Group: "ITERATION_ORDER",
				Message:   "<script>alert(1)</script>\x1b[31m",
				CallSites: []report.CallSite{{Class: "com.acme.Cart", Method: "render", File: "Cart.java", Line: 42, API: "java.util.HashMap#keySet()"}}},
			{Test: "com.acme.Gone#x", Kind: report.NOD},
		},
		Gate: &report.Gate{Enabled: true, New: []string{"com.acme.CartTest#total od-victim", "com.acme.Gone#x nod"}, Known: []string{"com.acme.CartTest#render api"}},
	}
}

func locate(class, method, file string) (string, int) {
	switch class {
	case "com.acme.CartTest", "com.acme.PriceTest":
		return "core/src/test/java/" + strings.ReplaceAll(class, ".", "/") + ".java", len(method)
	case "com.acme.Cart":
		return "core/src/main/java/com/acme/" + file, 0
	}
	return "", 0
}

func TestEncodeIsValidSARIF(t *testing.T) {
	tests := []struct {
		name    string
		modules []Module
	}{
		{"findings", []Module{{Name: "core", Report: sample(), Locate: locate}}},
		{"no findings", []Module{{Name: "core", Report: &report.Report{Module: "core"}, Locate: locate}}},
		{"no sources", []Module{{Name: "core", Report: sample()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := Encode("1.2.3", tt.modules)
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(data); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
		})
	}
}

func TestEncodeContent(t *testing.T) {
	data, err := Encode("1.2.3", []Module{{Name: "core", Report: sample(), Locate: locate}})
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string } `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID        string `json:"ruleId"`
				Level         string `json:"level"`
				BaselineState string `json:"baselineState"`
				Message       struct{ Text string }
				Locations     []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }     `json:"artifactLocation"`
						Region           *struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if n := len(run.Tool.Driver.Rules); n != 5 {
		t.Errorf("%d rules, want one per kind (5)", n)
	}
	if len(run.Results) != 3 {
		t.Fatalf("%d results, want 3", len(run.Results))
	}
	byRule := map[string]int{}
	for i, r := range run.Results {
		byRule[r.RuleID] = i
	}
	victim := run.Results[byRule["od-victim"]]
	if victim.Level != "error" || victim.BaselineState != "new" {
		t.Errorf("new victim: level %q, state %q", victim.Level, victim.BaselineState)
	}
	if got := victim.Locations[0].PhysicalLocation.ArtifactLocation.URI; got != "core/src/test/java/com/acme/CartTest.java" {
		t.Errorf("victim location %q", got)
	}
	if len(victim.RelatedLocations) != 1 || victim.RelatedLocations[0].PhysicalLocation.ArtifactLocation.URI != "core/src/test/java/com/acme/PriceTest.java" {
		t.Errorf("victim related locations %+v, want only the polluter (the cleaner has no source)", victim.RelatedLocations)
	}
	api := run.Results[byRule["api"]]
	if api.Level != "warning" || api.BaselineState != "unchanged" {
		t.Errorf("known api finding: level %q, state %q", api.Level, api.BaselineState)
	}
	if rl := api.RelatedLocations; len(rl) != 1 || rl[0].PhysicalLocation.ArtifactLocation.URI != "core/src/main/java/com/acme/Cart.java" || rl[0].PhysicalLocation.Region == nil || rl[0].PhysicalLocation.Region.StartLine != 42 {
		t.Errorf("api call site %+v", rl)
	}
	if nod := run.Results[byRule["nod"]]; nod.Locations[0].PhysicalLocation != nil {
		t.Errorf("a test without sources got a physical location")
	}
}

func TestSchemaRejectsInvalidLogs(t *testing.T) {
	if Validate([]byte(`{"version":"2.1.0","runs":[{"results":[{"level":"severe","message":{"text":"x"}}]}]}`)) == nil {
		t.Fatal("the schema accepted a log without a tool and with an unknown level")
	}
}
