package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

const jupiterPom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>app</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>JUPITER</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
`

// projectDir writes a pom.xml with content into a new directory.
func projectDir(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// isolatedHome gives the test a HOME of its own, so that what init
// installs into ~/.m2/repository stays out of the machine's.
func isolatedHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	return home
}

func TestInitCommand(t *testing.T) {
	home := isolatedHome(t)
	original := strings.Replace(jupiterPom, "JUPITER", "5.14.4", 1)
	dir := projectDir(t, original)
	pom := filepath.Join(dir, "pom.xml")
	backup := filepath.Join(dir, ".flaky", "backups", "pom.xml")
	steps := []struct {
		name       string
		args       []string
		edit       func(string) string // applied to the pom before the step
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "check absent", args: []string{"init", "--check", dir}, wantCode: 1, wantStderr: "has no flaky profile\nrun flaky init"},
		{name: "init", args: []string{"init", dir}, wantStdout: "added the flaky profile to " + pom + " (previous version: " + backup + ")\nthe previous versions are in " + filepath.Join(dir, ".flaky", "backups") + ", which git ignores\nrun mvn -Pflaky verify\n"},
		{name: "check current", args: []string{"init", "--check", dir}, wantStdout: "present and current"},
		{name: "init again", args: []string{"init", dir}, wantStdout: "is up to date"},
		{
			name: "check stale",
			args: []string{"init", "--check", dir},
			edit: func(s string) string {
				return strings.ReplaceAll(s, "<version>0.0.0-dev<", "<version>0.0.9<")
			},
			wantCode:   1,
			wantStderr: "present but stale (written by flaky 0.0.9; flaky 0.0.0-dev writes a different one)\nrun flaky init",
		},
		{name: "update", args: []string{"init", dir}, wantStdout: "updated the flaky profile in " + pom + " (written by flaky 0.0.9; previous version: " + backup + ".1)"},
		{
			name:       "new JUnit version makes it stale",
			args:       []string{"init", "--check", dir},
			edit:       func(s string) string { return strings.Replace(s, "5.14.4", "6.1.3", 1) },
			wantCode:   1,
			wantStderr: "present but stale",
		},
		{name: "remove", args: []string{"init", "--remove", dir}, edit: func(s string) string { return strings.Replace(s, "6.1.3", "5.14.4", 1) }, wantStdout: "removed the flaky profile from " + pom + " (previous version: " + backup + ".2)\nthe previous versions are in " + filepath.Join(dir, ".flaky", "backups") + ", which git ignores\n"},
		{name: "remove again", args: []string{"init", "--remove", dir}, wantStdout: "has a flaky profile; nothing to remove"},
	}
	for _, st := range steps {
		if st.edit != nil {
			content, _ := os.ReadFile(pom)
			if err := os.WriteFile(pom, []byte(st.edit(string(content))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := runApp(st.args...)
		if code != st.wantCode || !strings.Contains(stdout, st.wantStdout) || !strings.Contains(stderr, st.wantStderr) {
			t.Errorf("%s: exit %d (want %d)\nstdout: %s(want %q)\nstderr: %s(want %q)", st.name, code, st.wantCode, stdout, st.wantStdout, stderr, st.wantStderr)
		}
	}
	if got, _ := os.ReadFile(pom); string(got) != original {
		t.Errorf("pom after remove:\n%s", got)
	}
	// Maven resolves the profile's plugin before the build runs: init
	// installed it.
	plugin := filepath.Join(home, ".m2", "repository", "dev", "flaky", "flaky-maven-plugin", "0.0.0-dev", "flaky-maven-plugin-0.0.0-dev.jar")
	if _, err := os.Stat(plugin); err != nil {
		t.Errorf("init did not install the Maven plugin: %v", err)
	}
}

func TestInitCommandErrors(t *testing.T) {
	isolatedHome(t)
	noVersion := projectDir(t, strings.Replace(jupiterPom, "<version>JUPITER</version>\n", "", 1))
	malformed := projectDir(t, "<project>\n  <build>\n</project>\n")
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"two directories", []string{"init", "a", "b"}, "at most one directory"},
		{"check and remove", []string{"init", "--check", "--remove", "."}, "exclude each other"},
		{"no pom", []string{"init", t.TempDir()}, "no pom.xml in"},
		{"malformed", []string{"init", malformed}, "cannot be parsed, so flaky leaves it alone"},
		{"malformed check", []string{"init", "--check", malformed}, "cannot be parsed"},
		{"malformed remove", []string{"init", "--remove", malformed}, "cannot be parsed"},
		{"platform version unknown", []string{"init", noVersion}, "pass --junit-platform-version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runApp(tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.wantStderr)
			}
		})
	}
	if code, _, stderr := runApp("init", "--junit-platform-version", "1.14.4", noVersion); code != 0 {
		t.Errorf("with --junit-platform-version: exit %d: %s", code, stderr)
	}
	if content, _ := os.ReadFile(filepath.Join(noVersion, "pom.xml")); !regexp.MustCompile(`junit-platform-launcher</artifactId>\s*<version>1\.14\.4<`).Match(content) {
		t.Errorf("pom lacks the given platform version:\n%s", content)
	}
}

// A flaky profile that flaky did not write is refused by init and --remove,
// and replaced or removed with --force.
func TestInitCommandForce(t *testing.T) {
	isolatedHome(t)
	own := strings.Replace(strings.Replace(jupiterPom, "JUPITER", "5.14.4", 1), "</project>",
		"  <profiles>\n    <profile>\n      <id>flaky</id>\n    </profile>\n  </profiles>\n</project>", 1)
	dir := projectDir(t, own)
	pom := filepath.Join(dir, "pom.xml")
	for _, args := range [][]string{{"init", dir}, {"init", "--remove", dir}} {
		if code, _, stderr := runApp(args...); code != 2 || !strings.Contains(stderr, "flaky did not write") || !strings.Contains(stderr, "--force") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a refusal naming --force", args, code, stderr)
		}
	}
	if got, _ := os.ReadFile(pom); string(got) != own {
		t.Fatal("a refused command changed the pom")
	}
	if code, stdout, stderr := runApp("init", "--force", dir); code != 0 || !strings.Contains(stdout, "updated the flaky profile in "+pom) {
		t.Fatalf("init --force: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".flaky", "backups", "pom.xml")); string(got) != own {
		t.Error("the backup does not hold the user's profile")
	}
}

func TestInstallArtifactsCommand(t *testing.T) {
	repo := t.TempDir()
	// What it installed is a debug note.
	code, stdout, stderr := runApp("--debug", "install-artifacts", "--repo", repo)
	if code != 0 || stdout != "" || stderr != "flaky: installed dev.flaky:flaky-surefire-provider:0.0.0-dev, dev.flaky:flaky-agent:0.0.0-dev, dev.flaky:flaky-maven-plugin:0.0.0-dev in "+repo+"\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	jars, err := agent.Contents()
	if err != nil {
		t.Fatal(err)
	}
	for a, want := range map[string][]byte{"flaky-surefire-provider": jars.Provider, "flaky-agent": jars.Agent} {
		got, err := os.ReadFile(filepath.Join(repo, "dev", "flaky", a, "0.0.0-dev", a+"-0.0.0-dev.jar"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s jar differs from the embedded one (%v)", a, err)
		}
	}
	plugin, err := mvn.PluginJar(jars.Plugin, "0.0.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(repo, "dev", "flaky", "flaky-maven-plugin", "0.0.0-dev", "flaky-maven-plugin-0.0.0-dev.jar")); err != nil || !bytes.Equal(got, plugin) {
		t.Errorf("the plugin jar is not the embedded one naming 0.0.0-dev (%v)", err)
	}
	if pom, err := os.ReadFile(filepath.Join(repo, "dev", "flaky", "flaky-maven-plugin", "0.0.0-dev", "flaky-maven-plugin-0.0.0-dev.pom")); err != nil || !bytes.Contains(pom, []byte("<packaging>maven-plugin</packaging>")) {
		t.Errorf("the plugin's pom: %s, %v", pom, err)
	}
	if code, stdout, stderr := runApp("--debug", "install-artifacts", "--repo", repo); code != 0 || stdout != "" || stderr != "" {
		t.Errorf("up to date: exit %d, stdout %q, stderr %q; want 0 and no output", code, stdout, stderr)
	}
}

// Without --repo, install-artifacts writes where Maven would read:
// -D maven.repo.local, else ~/.m2/settings.xml's localRepository, else
// ~/.m2/repository.
func TestInstallArtifactsDefaultRepo(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	custom := filepath.Join(t.TempDir(), "custom")
	tests := []struct {
		name     string
		settings string // ~/.m2/settings.xml; "" for none
		args     []string
		want     string
	}{
		{"Maven's default", "", []string{"install-artifacts"}, filepath.Join(home, ".m2", "repository")},
		{"the user's settings", "<settings><localRepository>" + custom + "</localRepository></settings>", []string{"install-artifacts"}, custom},
		{"-D maven.repo.local", "", []string{"-D", "maven.repo.local=" + custom + "-d", "install-artifacts"}, custom + "-d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings := filepath.Join(home, ".m2", "settings.xml")
			os.Remove(settings)
			if tt.settings != "" {
				if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(settings, []byte(tt.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if code, stdout, stderr := runApp(tt.args...); code != 0 || stdout != "" || stderr != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(tt.want, "dev", "flaky", "flaky-agent", "0.0.0-dev", "flaky-agent-0.0.0-dev.jar")); err != nil {
				t.Errorf("not installed in %s: %v", tt.want, err)
			}
		})
	}
	// The help names the default, not the profile's Maven expression.
	_, stdout, _ := runApp("install-artifacts", "--help")
	if !strings.Contains(stdout, "(default: -D maven.repo.local when given, else the localRepository of ~/.m2/settings.xml, else ~/.m2/repository)") {
		t.Errorf("install-artifacts --help names no default:\n%s", stdout)
	}
}

// runInit adds, checks and removes the profile from its options alone.
func TestRunInit(t *testing.T) {
	dir := projectDir(t, strings.Replace(jupiterPom, "JUPITER", "5.14.4", 1))
	pom := filepath.Join(dir, "pom.xml")
	var out bytes.Buffer
	g := globalOptions{Stdout: &out, Stderr: io.Discard}
	var es *exitStatus
	if err := runInit(initOptions{globalOptions: g, Dir: dir, Check: true}); !errors.As(err, &es) || es.code != exitTestsFailed {
		t.Fatalf("check before init: %v, want exit status 1", err)
	}
	if err := runInit(initOptions{globalOptions: g, Dir: dir}); err != nil || !strings.Contains(out.String(), "added the flaky profile to "+pom) {
		t.Fatalf("init: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := runInit(initOptions{globalOptions: g, Dir: dir, Check: true}); err != nil || out.String() != "the flaky profile in "+pom+" is present and current\n" {
		t.Fatalf("check after init: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := runInit(initOptions{globalOptions: g, Dir: dir, Remove: true}); err != nil || !strings.HasPrefix(out.String(), "removed the flaky profile from "+pom) {
		t.Fatalf("remove: %v\n%s", err, out.String())
	}
}

// installArtifacts writes the jars into the repository of its options.
func TestInstallArtifacts(t *testing.T) {
	repo := t.TempDir()
	var debug bytes.Buffer
	if err := installArtifacts(installArtifactsOptions{globalOptions: globalOptions{Debug: true, Stdout: io.Discard, Stderr: &debug}, Repo: repo}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(debug.String(), " in "+repo+"\n") {
		t.Errorf("debug note %q", debug.String())
	}
	if _, err := os.Stat(filepath.Join(repo, "dev", "flaky", "flaky-agent", "0.0.0-dev", "flaky-agent-0.0.0-dev.jar")); err != nil {
		t.Error(err)
	}
}
