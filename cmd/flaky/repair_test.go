package main

import (
	"strings"
	"testing"
)

// repair takes -P, -D and --test-timeout after the command, as detect and
// chaos do.
func TestRepairUsage(t *testing.T) {
	noPom := t.TempDir()
	for _, tt := range []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"maven options", []string{"repair", "--module", noPom, "-P", "ci", "-D", "skip=yes", "--test-timeout", "30s"}, "no pom.xml in " + noPom},
		{"bad test timeout", []string{"repair", "--module", noPom, "--test-timeout", "-1s"}, "--test-timeout must not be negative"},
		{"bad property", []string{"repair", "--module", noPom, "-D", "=x"}, `maven property "=x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runApp(tt.args...)
			if code != exitError || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q\nstdout: %s", code, stderr, exitError, tt.wantStderr, stdout)
			}
		})
	}
}
