package mvn

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestInstallArtifacts(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repository") // created on demand
	artifacts := []Artifact{{ArtifactID: "flaky-surefire-provider", Jar: []byte("provider")}, {ArtifactID: "flaky-agent", Jar: []byte("agent")}}
	jar := func(a string) string { return filepath.Join(repo, "dev", "flaky", a, "1.2.3", a+"-1.2.3.jar") }

	wrote, err := InstallArtifacts(repo, "1.2.3", artifacts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dev.flaky:flaky-surefire-provider:1.2.3", "dev.flaky:flaky-agent:1.2.3"}
	if !reflect.DeepEqual(wrote, want) {
		t.Errorf("wrote %q, want %q", wrote, want)
	}
	for _, a := range artifacts {
		if got, err := os.ReadFile(jar(a.ArtifactID)); err != nil || !bytes.Equal(got, a.Jar) {
			t.Errorf("%s jar = %q, %v", a.ArtifactID, got, err)
		}
		pom, err := os.ReadFile(strings.TrimSuffix(jar(a.ArtifactID), ".jar") + ".pom")
		if err != nil {
			t.Fatal(err)
		}
		var coords struct {
			ModelVersion string `xml:"modelVersion"`
			GroupID      string `xml:"groupId"`
			ArtifactID   string `xml:"artifactId"`
			Version      string `xml:"version"`
			Packaging    string `xml:"packaging"`
		}
		if err := decodePom(pom, &coords); err != nil {
			t.Fatal(err)
		}
		if coords.ModelVersion != "4.0.0" || coords.GroupID != "dev.flaky" || coords.ArtifactID != a.ArtifactID || coords.Version != "1.2.3" || coords.Packaging != "jar" {
			t.Errorf("pom coordinates %+v", coords)
		}
		if bytes.Contains(pom, []byte("<dependencies>")) {
			t.Error("pom has dependencies")
		}
	}

	// Up to date: nothing written.
	if wrote, err := InstallArtifacts(repo, "1.2.3", artifacts); err != nil || wrote != nil {
		t.Errorf("second install wrote %q, %v", wrote, err)
	}

	// A different file (same size) is replaced; only that artifact is reported.
	if err := os.WriteFile(jar("flaky-agent"), []byte("AGENT"), 0o644); err != nil {
		t.Fatal(err)
	}
	if wrote, err := InstallArtifacts(repo, "1.2.3", artifacts); err != nil || !reflect.DeepEqual(wrote, []string{"dev.flaky:flaky-agent:1.2.3"}) {
		t.Errorf("repair wrote %q, %v", wrote, err)
	}
	if got, _ := os.ReadFile(jar("flaky-agent")); string(got) != "agent" {
		t.Errorf("agent jar = %q after repair", got)
	}
}

func TestInstallArtifactsConcurrent(t *testing.T) {
	repo := t.TempDir()
	big := bytes.Repeat([]byte("0123456789"), 100000)
	artifacts := []Artifact{{ArtifactID: "flaky-agent", Jar: big}}
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = InstallArtifacts(repo, "2.0", artifacts)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(repo, "dev", "flaky", "flaky-agent", "2.0")
	if got, _ := os.ReadFile(filepath.Join(dir, "flaky-agent-2.0.jar")); !bytes.Equal(got, big) {
		t.Error("jar content differs")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in %s, want the jar and the pom (temporary files left?)", len(entries), dir)
	}
}

func TestInstallArtifactsErrors(t *testing.T) {
	a := []Artifact{{ArtifactID: "flaky-agent", Jar: []byte("x")}}
	for _, v := range []string{"", "1/2", "a b ", "1<2"} {
		if _, err := InstallArtifacts(t.TempDir(), v, a); err == nil {
			t.Errorf("version %q accepted", v)
		}
	}
	if _, err := InstallArtifacts("", "1.0", a); err == nil {
		t.Error("empty repo accepted")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallArtifacts(file, "1.0", a); err == nil || !strings.Contains(err.Error(), "install flaky-agent") {
		t.Errorf("repo that is a file: %v", err)
	}
}

// TestPluginJarNamesTheVersion rewrites a plugin jar's descriptors to a
// version and keeps every other entry and the rest of the descriptor.
func TestPluginJarNamesTheVersion(t *testing.T) {
	descriptor := `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated -->
<plugin>
  <groupId>dev.flaky</groupId>
  <artifactId>flaky-maven-plugin</artifactId>
  <version>0.1.0</version>
  <mojos>
    <mojo>
      <goal>verify</goal>
      <description>the &apos;gate&apos;</description>
      <parameters>
        <parameter>
          <name>version</name>
        </parameter>
      </parameters>
    </mojo>
  </mojos>
</plugin>
`
	var jar bytes.Buffer
	w := zip.NewWriter(&jar)
	for _, e := range []struct{ name, body string }{
		{"META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n"},
		{"META-INF/maven/plugin.xml", descriptor},
		{"META-INF/maven/dev.flaky/flaky-maven-plugin/plugin-help.xml", descriptor},
		{"dev/flaky/maven/VerifyMojo.class", "\xca\xfe\xba\xbe"},
	} {
		f, err := w.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	patched, err := PluginJar(jar.Bytes(), "2.0.0-rc.1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := zip.NewReader(bytes.NewReader(patched), int64(len(patched)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range r.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		switch {
		case strings.HasSuffix(f.Name, ".xml"):
			var d struct {
				Version string `xml:"version"`
				Goal    string `xml:"mojos>mojo>goal"`
				Desc    string `xml:"mojos>mojo>description"`
				Param   string `xml:"mojos>mojo>parameters>parameter>name"`
			}
			if err := xml.Unmarshal(body, &d); err != nil {
				t.Fatalf("%s: %v\n%s", f.Name, err, body)
			}
			if d.Version != "2.0.0-rc.1" || d.Goal != "verify" || d.Desc != "the 'gate'" || d.Param != "version" {
				t.Errorf("%s after PluginJar: %+v\n%s", f.Name, d, body)
			}
		case f.Name == "dev/flaky/maven/VerifyMojo.class" && string(body) != "\xca\xfe\xba\xbe":
			t.Errorf("%s changed", f.Name)
		}
	}
	if want := "META-INF/MANIFEST.MF META-INF/maven/plugin.xml META-INF/maven/dev.flaky/flaky-maven-plugin/plugin-help.xml dev/flaky/maven/VerifyMojo.class"; strings.Join(names, " ") != want {
		t.Errorf("entries %q, want %q", names, want)
	}
	if _, err := PluginJar(patched[:len(patched)/2], "1"); err == nil {
		t.Error("PluginJar took a truncated jar")
	}
}
