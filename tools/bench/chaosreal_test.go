package main

import (
	"strings"
	"testing"
)

// TestChaosRealworldNames checks which names the real-project chaos
// benchmark takes without building anything: none (skipped), or only known
// projects; every known project names its archive, folder and module.
func TestChaosRealworldNames(t *testing.T) {
	tests := []struct {
		names   []string
		wantErr string
	}{
		{names: nil},
		{names: []string{""}},
		{names: []string{"nope"}, wantErr: `no project "nope" (known: jjwt, nanohttpd)`},
	}
	for _, tt := range tests {
		err := runChaosRealworld(tt.names, []string{"combined"}, 1, t.TempDir(), "bin/flaky")
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("runChaosRealworld(%q) = %v, want %q", tt.names, err, tt.wantErr)
		}
	}
	for name, p := range realProjects {
		if !strings.HasSuffix(p.archive, ".tar.gz") || p.dir == "" || p.module == "" {
			t.Errorf("%s: %+v", name, p)
		}
	}
}
