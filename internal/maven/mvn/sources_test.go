package mvn

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModulePath(t *testing.T) {
	for _, c := range []struct{ root, module, want string }{
		{"/p", "/p", "."}, {"/p", "/p/core", "core"}, {"/p", "/p/a/b", "a/b"}, {"/p", "/q/web", "web"},
	} {
		if got := ModulePath(c.root, c.module); got != c.want {
			t.Errorf("ModulePath(%q, %q) = %q, want %q", c.root, c.module, got, c.want)
		}
	}
}

func TestArtifactID(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ pom, want string }{
		{"<project><artifactId> shop </artifactId></project>", "shop"},
		{"<project><artifactId>${name}</artifactId></project>", ""},
		{"", ""},
	} {
		os.Remove(filepath.Join(dir, "pom.xml"))
		if tt.pom != "" {
			if err := os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(tt.pom), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := ArtifactID(dir); got != tt.want {
			t.Errorf("pom %q: %q, want %q", tt.pom, got, tt.want)
		}
	}
}
