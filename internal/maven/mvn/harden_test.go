package mvn

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/testkit/testdeadline"
)

const junit4Pom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>fixture</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
PROFILES</project>
`

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// awaitBy is when a test stops waiting for something that must happen
// (testdeadline.AwaitBy).
func awaitBy(t *testing.T) time.Time { return testdeadline.AwaitBy(t) }

// A parent chain that comes back to itself ends with an error naming the
// chain, instead of looping forever.
func TestParentCycle(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"self", map[string]string{"pom.xml": `<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version>
  <parent><groupId>g</groupId><artifactId>a</artifactId><version>1</version><relativePath>pom.xml</relativePath></parent></project>`}},
		{"two poms", map[string]string{
			"m/pom.xml": `<project><artifactId>m</artifactId>
  <parent><groupId>g</groupId><artifactId>p</artifactId><version>1</version></parent></project>`,
			"pom.xml": `<project><groupId>g</groupId><artifactId>p</artifactId><version>1</version>
  <parent><groupId>g</groupId><artifactId>m</artifactId><version>1</version><relativePath>m</relativePath></parent></project>`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			module := dir
			if _, ok := tt.files["m/pom.xml"]; ok {
				module = filepath.Join(dir, "m")
			}
			done := make(chan error, 1)
			go func() {
				_, err := loadPomChain(module, func(string, ...any) {})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "the parent chain is a cycle: ") || !strings.Contains(err.Error(), "-> ") {
					t.Errorf("err = %v, want the cycle named", err)
				}
			case <-time.After(time.Until(awaitBy(t))):
				t.Fatal("loadPomChain did not return: a parent cycle loops")
			}
		})
	}
}

// An element whose text is split by many comments parses in linear time.
func TestManyCommentsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("<project><description>")
	for b.Len() < 1<<20 {
		b.WriteString("x<!--c-->")
	}
	b.WriteString("</description></project>")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	root, err := parseTree([]byte(b.String()))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(root.child("description").text); got < 100000 {
		t.Fatalf("text of %d bytes", got)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
		t.Errorf("parsing a 1 MiB pom allocated %d MiB: quadratic", alloc>>20)
	}
}

// A profile with id flaky that flaky did not write is refused, and kept
// with --force; backups are never overwritten.
func TestForeignProfileAndBackups(t *testing.T) {
	dir := t.TempDir()
	pom := filepath.Join(dir, "pom.xml")
	own := strings.Replace(junit4Pom, "PROFILES", "  <profiles>\n    <profile>\n      <id>flaky</id>\n      <properties><mine>yes</mine></properties>\n    </profile>\n  </profiles>\n", 1)
	writeFile(t, pom, own)
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion}); err == nil || !strings.Contains(err.Error(), "flaky did not write") {
		t.Fatalf("InitProfile over the user's profile: %v, want a refusal", err)
	}
	if _, err := RemoveProfile(dir, false); err == nil || !strings.Contains(err.Error(), "flaky did not write") {
		t.Fatalf("RemoveProfile of the user's profile: %v, want a refusal", err)
	}
	if got, _ := os.ReadFile(pom); string(got) != own {
		t.Fatal("the refused pom changed")
	}
	state, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveProfile(dir, false)
	if err != nil || len(removed) != 1 {
		t.Fatalf("RemoveProfile = %+v, %v", removed, err)
	}
	first, second := state.Poms[0].Backup, removed[0].Backup
	if first == second || first != BackupPath(dir, pom) || second != BackupPath(dir, pom)+".1" {
		t.Errorf("backups %q and %q, want two distinct files", first, second)
	}
	if got, _ := os.ReadFile(first); string(got) != own {
		t.Error("the first backup does not hold the user's profile")
	}
}

// A read-only pom is refused unless forced.
func TestReadOnlyPom(t *testing.T) {
	if os.Getuid() == 0 {
		// root writes anyway; the refusal must not depend on the write failing.
		t.Log("running as root")
	}
	dir := t.TempDir()
	pom := filepath.Join(dir, "pom.xml")
	content := strings.Replace(junit4Pom, "PROFILES", "", 1)
	writeFile(t, pom, content)
	os.Chmod(pom, 0o444)
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion}); err == nil || !strings.Contains(err.Error(), "is read-only (mode 0444)") {
		t.Fatalf("InitProfile of a read-only pom: %v, want a refusal", err)
	}
	if got, _ := os.ReadFile(pom); string(got) != content {
		t.Fatal("the read-only pom changed")
	}
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion, Force: true}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(pom); fi.Mode().Perm() != 0o444 {
		t.Errorf("mode %04o after a forced write, want 0444 kept", fi.Mode().Perm())
	}
}

// In a pom with mixed line endings the profile gets the line ending of the
// place where it is inserted.
func TestMixedLineEndings(t *testing.T) {
	dir := t.TempDir()
	lf := strings.Replace(junit4Pom, "PROFILES", "", 1)
	head, tail, _ := strings.Cut(lf, "  <dependencies>")
	// The first lines end in LF, the rest (where the profile goes) in CRLF.
	content := head + strings.ReplaceAll("  <dependencies>"+tail, "\n", "\r\n")
	writeFile(t, filepath.Join(dir, "pom.xml"), content)
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "pom.xml"))
	start := bytes.Index(got, []byte("<profiles>"))
	region := got[start:]
	if n := bytes.Count(region, []byte("\n")); n == 0 || bytes.Count(region, []byte("\r\n")) != n {
		t.Errorf("the inserted profile mixes line endings:\n%q", region)
	}
}

// In a project whose profile goes into several poms, a user's flaky profile
// or a read-only pom in any of them stops init and --remove before any pom
// is written; --force writes them all, each with its own backup.
func TestProtectionsEveryPom(t *testing.T) {
	const modules = "  <modules><module>lib</module><module>app</module></modules>\n"
	own := "  <profiles>\n    <profile>\n      <id>flaky</id>\n      <properties><mine>yes</mine></properties>\n    </profile>\n  </profiles>\n"
	files := map[string]string{
		"pom.xml":     testPom("", "root", "pom", modules+surefirePlugin("managed", "3.5.4")),
		"lib/pom.xml": testPom("org.sonatype.oss:oss-parent:7", "lib", "jar", surefirePlugin("plugins", "3.5.4")),
		"app/pom.xml": testPom("org.example:root:1.0", "app", "jar", ""),
	}
	unchanged := func(t *testing.T, dir string, files map[string]string) {
		t.Helper()
		for name, content := range files {
			if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != content {
				t.Errorf("%s changed", name)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, ".flaky")); err == nil {
			t.Errorf("backups written under %s", filepath.Join(dir, ".flaky"))
		}
	}
	opts := ProfileOptions{LocalRepo: noRepo, Version: testVersion}

	t.Run("foreign profile", func(t *testing.T) {
		files := map[string]string{"pom.xml": files["pom.xml"], "app/pom.xml": files["app/pom.xml"],
			"lib/pom.xml": strings.Replace(files["lib/pom.xml"], "</project>", own+"</project>", 1)}
		dir := writeTree(t, files)
		if _, err := InitProfile(dir, opts); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "lib", "pom.xml")+" has a profile") {
			t.Fatalf("InitProfile = %v, want the user's profile in lib/pom.xml refused", err)
		}
		if _, err := RemoveProfile(dir, false); err == nil || !strings.Contains(err.Error(), "flaky did not write") {
			t.Fatalf("RemoveProfile = %v, want a refusal", err)
		}
		unchanged(t, dir, files)
		forced := opts
		forced.Force = true
		state, err := InitProfile(dir, forced)
		if err != nil || len(state.Poms) != 2 {
			t.Fatalf("forced InitProfile = %+v, %v", state, err)
		}
		for _, c := range state.Poms {
			if c.Backup != BackupPath(dir, c.Pom) {
				t.Errorf("backup of %s: %q", c.Pom, c.Backup)
			}
		}
		if got, _ := os.ReadFile(filepath.Join(dir, ".flaky", "backups", "lib", "pom.xml")); string(got) != files["lib/pom.xml"] {
			t.Error("the backup of lib/pom.xml does not hold the user's profile")
		}
	})

	t.Run("read-only pom", func(t *testing.T) {
		// init writes lib/pom.xml before pom.xml, --remove the other way
		// round: the read-only pom is the one written last.
		dir := writeTree(t, files)
		root, lib := filepath.Join(dir, "pom.xml"), filepath.Join(dir, "lib", "pom.xml")
		if err := os.Chmod(root, 0o444); err != nil {
			t.Fatal(err)
		}
		if _, err := InitProfile(dir, opts); err == nil || !strings.Contains(err.Error(), root+" is read-only") {
			t.Fatalf("InitProfile = %v, want pom.xml refused as read-only", err)
		}
		unchanged(t, dir, files)
		forced := opts
		forced.Force = true
		if _, err := InitProfile(dir, forced); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(root); fi.Mode().Perm() != 0o444 {
			t.Errorf("pom.xml mode %04o, want 0444 kept", fi.Mode().Perm())
		}
		if err := os.Chmod(root, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(lib, 0o444); err != nil {
			t.Fatal(err)
		}
		if _, err := RemoveProfile(dir, false); err == nil || !strings.Contains(err.Error(), lib+" is read-only") {
			t.Fatalf("RemoveProfile = %v, want lib/pom.xml refused as read-only", err)
		}
		if got, _ := os.ReadFile(root); !bytes.Contains(got, []byte("<id>flaky</id>")) {
			t.Error("the refused --remove took the profile out of the root pom")
		}
		removed, err := RemoveProfile(dir, true)
		if err != nil || len(removed) != 2 {
			t.Fatalf("forced RemoveProfile = %+v, %v", removed, err)
		}
		for _, r := range removed {
			if r.Backup != BackupPath(dir, r.Pom)+".1" {
				t.Errorf("backup of %s: %q, want the next numbered one", r.Pom, r.Backup)
			}
		}
		for name, content := range files {
			if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != content {
				t.Errorf("%s differs after the forced remove", name)
			}
		}
		if fi, _ := os.Stat(lib); fi.Mode().Perm() != 0o444 {
			t.Errorf("lib/pom.xml mode %04o, want 0444 kept", fi.Mode().Perm())
		}
	})
}

// A parent cycle through the local repository (parents with an empty
// relativePath naming each other) and a chain of repository parents longer
// than maxParentDepth end init with an error naming the chain.
func TestRepoParentCycle(t *testing.T) {
	parent := func(a string) string {
		return "<parent><groupId>g</groupId><artifactId>" + a + "</artifactId><version>1</version><relativePath/></parent>"
	}
	repoPom := func(a, p string) (string, string) {
		return "g/" + a + "/1/" + a + "-1.pom", "<project><modelVersion>4.0.0</modelVersion><artifactId>" + a + "</artifactId>" + p + "</project>"
	}
	cycle := map[string]string{}
	for a, p := range map[string]string{"a": "b", "b": "a"} {
		path, content := repoPom(a, parent(p))
		cycle[path] = content
	}
	long := map[string]string{}
	for i := 0; i < 40; i++ {
		path, content := repoPom(fmt.Sprintf("p%d", i), parent(fmt.Sprintf("p%d", i+1)))
		long[path] = content
	}
	for _, tt := range []struct {
		name, first, want string
		repo              map[string]string
	}{
		{"cycle", "a", "the parent chain is a cycle: ", cycle},
		{"long", "p0", "the parent chain is longer than 32 poms: ", long},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo := writeTree(t, tt.repo)
			dir := writeTree(t, map[string]string{"pom.xml": "<project><modelVersion>4.0.0</modelVersion><artifactId>m</artifactId>" + parent(tt.first) + "</project>"})
			done := make(chan error, 1)
			go func() {
				_, err := InitProfile(dir, ProfileOptions{LocalRepo: repo, Version: testVersion})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("err = %v, want %q", err, tt.want)
				}
			case <-time.After(time.Until(awaitBy(t))):
				t.Fatal("InitProfile did not return")
			}
		})
	}
}

// Poms that are not regular files, too large, too deep or too many
// elements are refused with an error that says so.
func TestReadPomBounds(t *testing.T) {
	dir := t.TempDir()
	pom := func(name, body string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, "<project><description>"+body+"</description></project>")
		return p
	}
	fifo := filepath.Join(dir, "fifo.xml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.xml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := pom("big.xml", "")
	if err := os.Truncate(big, maxPomSize+1); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{fifo, "not a regular file (a FIFO)"},
		{zero, "not a regular file (a character device)"},
		{dir, "not a regular file (a directory)"},
		{big, "more than the 4 MiB"},
		{pom("deep.xml", strings.Repeat("<a>", maxPomDepth)+strings.Repeat("</a>", maxPomDepth)), "nest more than 1000 deep"},
		{pom("wide.xml", strings.Repeat("<a/>", maxPomNodes)), "more than 100000 elements and attributes"},
		{pom("attrs.xml", "<a "+strings.Repeat(`x="" `, maxPomNodes)+"/>"), "more than 100000 elements and attributes"},
		{pom("ok.xml", strings.Repeat("<a>", maxPomDepth-2)+strings.Repeat("</a>", maxPomDepth-2)), ""},
	} {
		_, err := readPomBytes(tt.path)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", filepath.Base(tt.path), err, tt.want)
		}
	}
}
