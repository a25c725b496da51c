package buildinfo

import (
	"runtime/debug"
	"testing"
)

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

// read takes the -ldflags values first, then what Go recorded.
func TestRead(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	tests := []struct {
		name                  string
		bi                    *debug.BuildInfo
		version, commit, date string
		want                  Info
		wantString            string
	}{
		{"nothing recorded", nil, "", "", "", Info{Version: "dev"}, "dev"},
		{"a git checkout's build", vcs, "", "", "",
			Info{Version: "dev", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-01-02T03:04:05Z", Modified: true},
			"dev (commit 0123456789ab+changes, 2026-01-02T03:04:05Z)"},
		{"go install module@version", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "", "", "",
			Info{Version: "v0.3.0"}, "v0.3.0"},
		{"the Makefile's -ldflags win", vcs, "v0.3.0-2-gabcdef1-dirty", "abcdef1234567890", "2026-02-03T04:05:06+01:00",
			Info{Version: "v0.3.0-2-gabcdef1-dirty", Commit: "abcdef1234567890", Date: "2026-02-03T04:05:06+01:00"},
			"v0.3.0-2-gabcdef1-dirty (commit abcdef123456, 2026-02-03T04:05:06+01:00)"},
		{"a version alone", vcs, "v1.0.0", "", "",
			Info{Version: "v1.0.0", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-01-02T03:04:05Z", Modified: true},
			"v1.0.0 (commit 0123456789ab+changes, 2026-01-02T03:04:05Z)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := read(tt.bi, tt.version, tt.commit, tt.date)
			if got != tt.want {
				t.Errorf("read = %+v, want %+v", got, tt.want)
			}
			if s := got.String(); s != tt.wantString {
				t.Errorf("String() = %q, want %q", s, tt.wantString)
			}
		})
	}
}
