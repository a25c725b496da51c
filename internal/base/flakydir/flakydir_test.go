package flakydir

import (
	"path/filepath"
	"testing"
)

func TestLayout(t *testing.T) {
	build := filepath.Join("m", "build")
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"in build", InBuild(build).Path(), filepath.Join("m", "build", "flaky")},
		{"of module", OfModule("m").Path(), filepath.Join("m", "target", "flaky")},
		{"for test classes", ForTestClasses(filepath.Join("m", "build", "test-classes")).Path(), filepath.Join("m", "build", "flaky")},
		{"report", InBuild(build).Report(), filepath.Join("m", "build", "flaky", "report.json")},
		{"orders", InBuild(build).Orders(), filepath.Join("m", "build", "flaky", "orders")},
		{"repair", InBuild(build).Repair(), filepath.Join("m", "build", "flaky", "repair")},
		{"repair work", InBuild(build).RepairWork(), filepath.Join("m", "build", "flaky", "repair", "work")},
		{"cache", InBuild(build).Cache(), filepath.Join("m", "build", "flaky", "cache")},
		{"gate", InBuild(build).GateFile(), filepath.Join("m", "build", "flaky", "gate-failed")},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
