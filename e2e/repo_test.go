package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoRegistryHostInRepository checks that no tracked file names a package
// registry's host: the Go module proxy and checksum database this machine's
// go command is configured with, and the repositories of Maven's super POM.
// The host names are read from the tools, so the test itself names none.
func TestNoRegistryHostInRepository(t *testing.T) {
	t.Parallel()
	hosts := goRegistryHosts(t)
	hosts = append(hosts, mavenRegistryHosts(t)...)
	if len(hosts) == 0 {
		t.Fatal("found no registry host to look for")
	}
	root := repoRoot(t)
	files, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the work tree
		}
		lower := bytes.ToLower(data)
		for _, h := range hosts {
			if bytes.Contains(lower, []byte(h)) {
				t.Errorf("%s names the registry host of %s", name, describeHost(h))
			}
		}
	}
}

// describeHost names a host without spelling it, so test output stays clean too.
func describeHost(h string) string {
	return strings.Repeat("*", len(h)) + " (" + h[:1] + "…)"
}

// goRegistryHosts returns the hosts of GOPROXY and GOSUMDB.
func goRegistryHosts(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOPROXY", "GOSUMDB").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	var hosts []string
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, p := range strings.FieldsFunc(lines[0], func(r rune) bool { return r == ',' || r == '|' }) {
		if u, err := url.Parse(p); err == nil && u.Host != "" {
			hosts = append(hosts, strings.ToLower(u.Hostname()))
		}
	}
	if len(lines) > 1 {
		// GOSUMDB is "name[+key] [url]"; the name is the host.
		if f := strings.Fields(lines[1]); len(f) > 0 && f[0] != "off" {
			name, _, _ := strings.Cut(f[0], "+")
			hosts = append(hosts, strings.ToLower(name))
		}
	}
	return hosts
}

// mavenRegistryHosts returns the hosts of the repositories in Maven's super
// POM, read from the installed Maven's model builder; none when Maven is absent.
func mavenRegistryHosts(t *testing.T) []string {
	t.Helper()
	mvnPath, err := exec.LookPath("mvn")
	if err != nil {
		return nil
	}
	mvnPath, err = filepath.EvalSymlinks(mvnPath)
	if err != nil {
		return nil
	}
	jars, _ := filepath.Glob(filepath.Join(filepath.Dir(mvnPath), "..", "lib", "maven-model-builder-*.jar"))
	var hosts []string
	for _, jar := range jars {
		zr, err := zip.OpenReader(jar)
		if err != nil {
			t.Fatalf("open %s: %v", jar, err)
		}
		defer zr.Close()
		f, err := zr.Open("org/apache/maven/model/pom-4.0.0.xml")
		if err != nil {
			continue
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var superPOM struct {
			URLs []string `xml:"repositories>repository>url"`
		}
		if err := xml.Unmarshal(data, &superPOM); err != nil {
			t.Fatalf("parse the super POM: %v", err)
		}
		for _, s := range superPOM.URLs {
			if u, err := url.Parse(s); err == nil && u.Host != "" {
				hosts = append(hosts, strings.ToLower(u.Hostname()))
			}
		}
	}
	return hosts
}
