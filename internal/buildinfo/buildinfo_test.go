package buildinfo

import "testing"

func TestMavenVersion(t *testing.T) {
	tests := []struct{ in, want string }{
		{"dev", "0.0.0-dev"},
		{"", "0.0.0-dev"},
		{"0.1.0", "0.1.0"},
		{"v0.1.0", "0.1.0"},
		{"v1.2.3-rc.1", "1.2.3-rc.1"},
		{"v0.0.0-20250101120000-abcdef123456+dirty", "0.0.0-20250101120000-abcdef123456-dirty"},
		{"version-x", "version-x"},
	}
	for _, tt := range tests {
		if got := mavenVersion(tt.in); got != tt.want {
			t.Errorf("mavenVersion(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestVersionInTests(t *testing.T) {
	// Test binaries carry no module version and no -X flag.
	if got := Version(); got != "dev" {
		t.Errorf("Version() = %q, want dev", got)
	}
	if got := MavenVersion(); got != devMavenVersion {
		t.Errorf("MavenVersion() = %q, want %q", got, devMavenVersion)
	}
}
