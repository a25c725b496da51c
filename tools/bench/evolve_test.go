package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEvolvePlans checks every plan of scripted changes: it reads, names a
// project, and each change it realises has its diff or directory, with
// expected findings only for the kinds that plant one.
func TestEvolvePlans(t *testing.T) {
	plans, err := filepath.Glob("evolve/*/scenarios.json")
	if err != nil {
		t.Fatal(err)
	}
	plans = append(plans, "../../testdata/evolve/junit4/scenarios.json")
	if len(plans) < 3 {
		t.Fatalf("plans %v: want the fixture's and the two real projects'", plans)
	}
	for _, p := range plans {
		t.Run(p, func(t *testing.T) {
			plan, err := readPlan(filepath.Dir(p))
			if err != nil {
				t.Fatal(err)
			}
			if (plan.Fixture == "") == (plan.Archive == "") {
				t.Errorf("names fixture %q and archive %q: want exactly one", plan.Fixture, plan.Archive)
			}
			if plan.Base != "" {
				if _, err := os.Stat(filepath.Join(filepath.Dir(p), plan.Base)); err != nil {
					t.Error(err)
				}
			}
			if n := len(plan.Scenarios); n < 6 || n > 7 {
				t.Errorf("%d scenarios, want the six kinds of change (and at most a seventh: a new test method in an existing class)", n)
			}
			for _, s := range plan.Scenarios {
				if s.What == "" {
					t.Errorf("%s: says not what it does", s.Name)
				}
				if s.Skipped {
					continue
				}
				src := filepath.Join(filepath.Dir(p), s.Name)
				if s.Patch != "" {
					src = filepath.Join(filepath.Dir(p), s.Patch)
				}
				if _, err := os.Stat(src); err != nil {
					t.Errorf("%s: %v", s.Name, err)
				}
				if (len(s.Findings) > 0) != (s.Name[0] <= 'c') {
					t.Errorf("%s: %d expected findings: (a) to (c) plant one or more, (d) to (g) none", s.Name, len(s.Findings))
				}
				for _, f := range s.Findings {
					if f.Test == "" || f.Kind == "" || len(f.Polluters) == 0 {
						t.Errorf("%s: finding %+v lacks its test, kind or polluters", s.Name, f)
					}
				}
			}
		})
	}
}
