package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

func TestWithInitStep(t *testing.T) {
	const plain = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>\n"
	const withProfile = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version>" +
		"<profiles><profile><id>flaky</id></profile></profiles></project>\n"
	const child = "<project><modelVersion>4.0.0</modelVersion><parent><groupId>g</groupId><artifactId>a</artifactId><version>1</version></parent>" +
		"<artifactId>m</artifactId><packaging>jar</packaging></project>\n"
	const cmd = "mvn -Pflaky test -pl m -Dflaky.testFailureIgnore=false -Dflaky.order=/o.txt"
	tests := []struct {
		name      string
		root, mod string // pom contents; mod "" means the module is the root
		want      string
	}{
		{"root without the profile", plain, "", "cd ROOT && flaky init && " + cmd},
		{"root with the profile", withProfile, "", cmd},
		{"module inherits the profile", withProfile, child, cmd},
		{"module whose parent lacks it", plain, child, "cd ROOT && flaky init && " + cmd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "my root")
			module := root
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(root, "pom.xml"), []byte(tt.root), 0o644)
			if tt.mod != "" {
				module = filepath.Join(root, "m")
				os.MkdirAll(module, 0o755)
				os.WriteFile(filepath.Join(module, "pom.xml"), []byte(tt.mod), 0o644)
			}
			findings := []report.Finding{{Test: "a.B#c", Reproduce: cmd}}
			if err := withInitStep(findings, module, root); err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if len(want) > 7 && want[:7] == "cd ROOT" {
				want = "cd '" + root + "'" + want[7:]
			}
			if findings[0].Reproduce != want {
				t.Errorf("reproduce %q, want %q", findings[0].Reproduce, want)
			}
		})
	}
}

func TestWithMavenArgs(t *testing.T) {
	findings := []report.Finding{
		{Test: "a.B#c", Reproduce: "mvn -Pflaky test -Dflaky.order=/o.txt", ReproduceRunOrder: "flaky run-order --module /m --order /o.txt"},
		{Test: "a.B#d", Reproduce: "mvn -Pflaky test -Dflaky.order=/p.txt"},
	}
	withMavenArgs(findings, []string{"-Pjdk17", "-Dskip=true"})
	want := []report.Finding{
		{Test: "a.B#c", Reproduce: "mvn -Pflaky test -Pjdk17 -Dskip=true -Dflaky.order=/o.txt", ReproduceRunOrder: "flaky -P jdk17 -D skip=true run-order --module /m --order /o.txt"},
		{Test: "a.B#d", Reproduce: "mvn -Pflaky test -Pjdk17 -Dskip=true -Dflaky.order=/p.txt"},
	}
	for i := range want {
		if findings[i].Reproduce != want[i].Reproduce || findings[i].ReproduceRunOrder != want[i].ReproduceRunOrder {
			t.Errorf("finding %d: %q, %q; want %q, %q", i, findings[i].Reproduce, findings[i].ReproduceRunOrder, want[i].Reproduce, want[i].ReproduceRunOrder)
		}
	}
}
