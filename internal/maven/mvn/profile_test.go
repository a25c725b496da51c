package mvn

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cp "github.com/otiai10/copy"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/init")

const testVersion = "1.2.3"

// noRepo is a local repository that does not exist, so tests do not depend
// on the machine's.
const noRepo = "/nonexistent/flaky-test-repository"

// copyFixture copies testdata/init/name to a temporary directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := cp.Copy(filepath.Join("testdata", "init", name), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readTree returns every file under dir by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// insertion returns what was inserted into before to give after, failing
// the test unless after is before with one run of bytes inserted.
func insertion(t *testing.T, before, after []byte) []byte {
	t.Helper()
	p := 0
	for p < len(before) && before[p] == after[p] {
		p++
	}
	s := 0
	for s < len(before)-p && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	if p+s != len(before) {
		t.Fatalf("the edit is not a pure insertion: %d bytes kept at the start, %d at the end, of %d", p, s, len(before))
	}
	return after[p : len(after)-s]
}

func TestInitProfile(t *testing.T) {
	tests := []struct {
		name     string
		platform string   // ProfileOptions.JUnitPlatformVersion
		want     []string // in the inserted text
		notWant  []string // not in the inserted text
		wantLog  []string
	}{
		{
			name:    "comments",
			want:    []string{"\n  <profiles>\n    <profile>\n      <id>flaky</id>\n", "<argLine>@{argLine} \"-Dflaky.buildDir=${project.build.directory}\" -javaagent:"},
			notWant: []string{"junit-platform-launcher", "<properties>"},
		},
		{
			name: "crlf",
			want: []string{"\r\n    <profiles>\r\n        <profile>\r\n            <id>flaky</id>\r\n"},
		},
		{
			name:    "profiles",
			want:    []string{"\n    <profile>\n      <id>flaky</id>\n"},
			notWant: []string{"<profiles>"},
		},
		{
			name: "tabs",
			want: []string{"\n\t<profiles>\n\t\t<profile>\n\t\t\t<id>flaky</id>\n\t\t\t<build>\n\t\t\t\t<plugins>",
				"<artifactId>junit-platform-launcher</artifactId>\n\t\t\t\t\t\t\t\t<version>1.14.4</version>"},
		},
		{
			name: "latin1",
			// The project's argLine is copied as it is written, in the file's encoding.
			want: []string{"<argLine>@{argLine} -Dauthor=J\xf6rg -Dfile.encoding=ISO-8859-1 \"-Dflaky.buildDir=${project.build.directory}\" -javaagent:"},
		},
		{
			name:    "reactor",
			want:    []string{"<artifactId>junit-platform-launcher</artifactId>\n                <version>1.13.1</version>", "<argLine>@{argLine} \"-Dflaky.buildDir=${project.build.directory}\" -javaagent:"},
			wantLog: []string{"module core sets its own Surefire <argLine>"},
		},
		{
			name:    "argline-property",
			want:    []string{"<argLine>@{argLine} \"-Dflaky.buildDir=${project.build.directory}\" -javaagent:"},
			notWant: []string{"<argLine></argLine>", "<properties>"},
		},
		{
			name: "argline-surefire",
			want: []string{`<argLine>@{argLine} -Xmx512m -Dgreeting="a &amp; b" "-Dflaky.buildDir=${project.build.directory}" -javaagent:`},
		},
		{
			name: "argline-late",
			want: []string{"<argLine>-Xmx512m @{argLine} -ea \"-Dflaky.buildDir=${project.build.directory}\" -javaagent:"},
		},
		{
			// Maven would put the argLine property's value in place of
			// ${argLine} before JaCoCo's prepare-agent sets it.
			name:    "argline-dollar",
			want:    []string{"<argLine>@{argLine} -ea \"-Dflaky.buildDir=${project.build.directory}\" -javaagent:"},
			notWant: []string{"${argLine}"},
		},
		{
			name:    "argline-managed",
			want:    []string{"<argLine>@{argLine} -Dmanaged=yes \"-Dflaky.buildDir=${project.build.directory}\" -javaagent:"},
			notWant: []string{"junit-platform-launcher"},
		},
		{
			name:    "junit4",
			notWant: []string{"junit-platform-launcher", "<properties>", "<forkCount>", "<reuseForks>"},
		},
		{
			// The root pom sets a fork count: the profile sets Surefire's
			// default again (one reused fork), as it overrides the root's.
			name: "forkcount",
			want: []string{"<forkCount>1</forkCount>", "<reuseForks>true</reuseForks>"},
		},
		{
			name: "jupiter-bom",
			want: []string{"<groupId>org.junit.platform</groupId>\n                <artifactId>junit-platform-launcher</artifactId>\n                <version>1.14.4</version>"},
		},
		{
			name: "jupiter6",
			want: []string{"<artifactId>junit-platform-launcher</artifactId>\n                <version>6.1.3</version>"},
		},
		{
			name:     "external-parent",
			platform: "1.12.2",
			want:     []string{"<artifactId>junit-platform-launcher</artifactId>\n                <version>1.12.2</version>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t, tt.name)
			pom := filepath.Join(dir, "pom.xml")
			if err := os.Chmod(pom, 0o640); err != nil {
				t.Fatal(err)
			}
			before := readTree(t, dir)
			var log bytes.Buffer
			opts := ProfileOptions{LocalRepo: noRepo, Version: testVersion, JUnitPlatformVersion: tt.platform, Log: &log}

			state, err := InitProfile(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			if state.Status() != ProfileAbsent {
				t.Errorf("status before = %v, want absent", state.Status())
			}
			after := readTree(t, dir)
			for name, content := range before {
				if name != "pom.xml" && name != "pom.xml.want" && !bytes.Equal(after[name], content) {
					t.Errorf("%s changed", name)
				}
			}
			if !bytes.Equal(after[filepath.Join(".flaky", "backups", "pom.xml")], before["pom.xml"]) || state.Poms[0].Backup != BackupPath(dir, pom) {
				t.Errorf("the backup %q is not the pom as it was", state.Poms[0].Backup)
			}
			if fi, err := os.Stat(pom); err != nil || fi.Mode().Perm() != 0o640 {
				t.Errorf("pom mode after init: %v, %v; want 0640", fi.Mode(), err)
			}
			inserted := string(insertion(t, before["pom.xml"], after["pom.xml"]))
			added := func(s string) int {
				return bytes.Count(after["pom.xml"], []byte(s)) - bytes.Count(before["pom.xml"], []byte(s))
			}
			for _, w := range tt.want {
				if added(w) != 1 {
					t.Errorf("init did not add %q once:\n%s", w, inserted)
				}
			}
			for _, w := range tt.notWant {
				if added(w) != 0 {
					t.Errorf("init added %q:\n%s", w, inserted)
				}
			}
			for _, w := range tt.wantLog {
				if !strings.Contains(log.String(), w) {
					t.Errorf("log lacks %q:\n%s", w, log.String())
				}
			}
			if _, err := parseTree(after["pom.xml"]); err != nil {
				t.Errorf("result does not parse: %v", err)
			}
			golden := filepath.Join("testdata", "init", tt.name, "pom.xml.want")
			if *update {
				if err := os.WriteFile(golden, after["pom.xml"], 0o644); err != nil {
					t.Fatal(err)
				}
			} else if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(after["pom.xml"], want) {
				t.Errorf("pom differs from %s (go test ./mvn -run TestInitProfile -update rewrites it): %v", golden, err)
			}

			// A second run changes no byte.
			again, err := InitProfile(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			if again.Status() != ProfileCurrent || again.Poms[0].WrittenBy != testVersion {
				t.Errorf("second run found %+v, want current, written by %s", again, testVersion)
			}
			if got, _ := os.ReadFile(pom); !bytes.Equal(got, after["pom.xml"]) {
				t.Error("second run changed the pom")
			}
			if c, err := CheckProfile(dir, opts); err != nil || c.Status() != ProfileCurrent {
				t.Errorf("CheckProfile = %+v, %v; want current", c, err)
			}

			// Removing gives the original bytes back.
			// Backups are numbered: removing keeps the init's backup.
			removed, err := RemoveProfile(dir, false)
			if err != nil || len(removed) != 1 || removed[0].Pom != pom || removed[0].Backup != BackupPath(dir, pom)+".1" {
				t.Fatalf("RemoveProfile = %+v, %v; want %s with backup %s.1", removed, err, pom, BackupPath(dir, pom))
			}
			if got, _ := os.ReadFile(pom); !bytes.Equal(got, before["pom.xml"]) {
				t.Errorf("after remove the pom differs from the original:\n%s", got)
			}
			if c, err := CheckProfile(dir, opts); err != nil || c.Status() != ProfileAbsent {
				t.Errorf("CheckProfile after remove = %+v, %v; want absent", c, err)
			}
			if got, _ := os.ReadFile(removed[0].Backup); !bytes.Equal(got, after["pom.xml"]) {
				t.Error("the remove's backup is not the pom with the profile")
			}
			if removed, err := RemoveProfile(dir, false); err != nil || len(removed) != 0 {
				t.Errorf("second RemoveProfile = %+v, %v; want none, nil", removed, err)
			}
		})
	}
}

// maxProfileLines is how many lines init may add to a pom, so that a
// reviewer reads them in a pull request (#51: at most 40), whatever the
// project: with the JUnit Platform launcher, a pinned Surefire, the
// forkCount and reuseForks it sets again, and the <profiles> element around
// the profile when the pom has none.
const maxProfileLines = 40

// TestInitProfileIsShort counts the lines init added to every golden pom.
func TestInitProfileIsShort(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("testdata", "init", "*", "pom.xml.want"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden poms: %v", err)
	}
	for _, golden := range goldens {
		before, err := os.ReadFile(strings.TrimSuffix(golden, ".want"))
		if err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		added := bytes.Count(after, []byte("\n")) - bytes.Count(before, []byte("\n"))
		if added > maxProfileLines {
			t.Errorf("%s: init added %d lines, more than %d", golden, added, maxProfileLines)
		}
	}
}

func TestInitProfileStale(t *testing.T) {
	dir := copyFixture(t, "jupiter-bom")
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	opts := ProfileOptions{LocalRepo: noRepo, Version: "1.1.0"}
	check, err := CheckProfile(dir, opts)
	if err != nil || check.Status() != ProfileStale || check.Poms[0].WrittenBy != "1.0.0" {
		t.Fatalf("CheckProfile = %+v, %v; want stale, written by 1.0.0", check, err)
	}
	if check, err = InitProfile(dir, opts); err != nil || check.Status() != ProfileStale {
		t.Fatalf("InitProfile = %+v, %v; want stale before", check, err)
	}
	updated, _ := os.ReadFile(filepath.Join(dir, "pom.xml"))

	fresh := copyFixture(t, "jupiter-bom")
	if _, err := InitProfile(fresh, opts); err != nil {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile(filepath.Join(fresh, "pom.xml")); !bytes.Equal(updated, want) {
		t.Errorf("updating a stale profile differs from a fresh init:\n%s", updated)
	}
	if check, err := CheckProfile(dir, opts); err != nil || check.Status() != ProfileCurrent {
		t.Errorf("after update: %+v, %v; want current", check, err)
	}
}

func TestInitProfilePlatformVersionUnknown(t *testing.T) {
	dir := copyFixture(t, "external-parent")
	pom := filepath.Join(dir, "pom.xml")
	before, _ := os.ReadFile(pom)
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion}); !errors.Is(err, ErrPlatformVersionUnknown) {
		t.Fatalf("err = %v, want ErrPlatformVersionUnknown", err)
	}
	if got, _ := os.ReadFile(pom); !bytes.Equal(got, before) {
		t.Error("pom changed")
	}
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion, JUnitPlatformVersion: "1.12.2"}); err != nil {
		t.Fatal(err)
	}
	// Later runs keep the version the profile names.
	check, err := CheckProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion})
	if err != nil || check.Status() != ProfileCurrent {
		t.Errorf("CheckProfile without the version = %+v, %v; want current", check, err)
	}
}

func TestInitProfileRefuses(t *testing.T) {
	tests := []struct {
		name        string
		content     []byte // nil: the malformed fixture
		wantErr     string
		checkPasses bool // CheckProfile reports absent
	}{
		{name: "malformed", wantErr: "cannot be parsed, so flaky leaves it alone: XML syntax error on line 13"},
		{name: "utf-16", content: []byte("\xff\xfe<\x00?\x00x\x00m\x00l\x00"), wantErr: "UTF-16"},
		{name: "utf-16 declared", content: []byte(`<?xml version="1.0" encoding="UTF-16"?><project/>`), wantErr: `declares encoding "UTF-16"`},
		{name: "unknown encoding", content: []byte(`<?xml version="1.0" encoding="Shift_JIS"?><project></project>`), wantErr: `"Shift_JIS", which flaky cannot edit safely`},
		{name: "not a pom", content: []byte(`<settings></settings>`), wantErr: "root element is <settings>"},
		{name: "two roots", content: []byte("<project></project>\n<project></project>"), wantErr: "a second root element"},
		{name: "unclosed", content: []byte("<project>\n  <build>\n</project>"), wantErr: "XML syntax error on line 3"},
		{name: "empty profiles", content: []byte("<project>\n  <modelVersion>4.0.0</modelVersion>\n  <profiles/>\n</project>\n"), wantErr: "empty <profiles/> element", checkPasses: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t, "malformed")
			pom := filepath.Join(dir, "pom.xml")
			if tt.content != nil {
				if err := os.WriteFile(pom, tt.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadFile(pom)
			_, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("InitProfile error = %v, want one containing %q", err, tt.wantErr)
			}
			if c, err := CheckProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion}); (err == nil) != tt.checkPasses || err == nil && c.Status() != ProfileAbsent {
				t.Errorf("CheckProfile = %+v, %v", c, err)
			}
			if _, err := RemoveProfile(dir, false); err == nil && tt.content == nil {
				t.Error("RemoveProfile accepted it")
			}
			if got, _ := os.ReadFile(pom); !bytes.Equal(got, before) {
				t.Error("pom changed")
			}
			if _, err := os.Stat(filepath.Join(dir, ".flaky")); err == nil {
				t.Error("backup written")
			}
		})
	}
}

func TestInitProfileNoPom(t *testing.T) {
	dir := t.TempDir()
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion}); err == nil || !strings.Contains(err.Error(), "no pom.xml in "+dir) {
		t.Errorf("err = %v", err)
	}
}

func TestInitProfileSymlinkedPom(t *testing.T) {
	dir := copyFixture(t, "junit4")
	real := filepath.Join(dir, "real-pom.xml")
	if err := os.Rename(filepath.Join(dir, "pom.xml"), real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real-pom.xml", filepath.Join(dir, "pom.xml")); err != nil {
		t.Fatal(err)
	}
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "pom.xml")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("pom.xml is no longer a symbolic link")
	}
	if content, _ := os.ReadFile(real); !bytes.Contains(content, []byte("<id>flaky</id>")) {
		t.Error("the link's target lacks the profile")
	}
}

func TestRemoveProfileKeepsOtherContent(t *testing.T) {
	// A profile added by hand after flaky's stays, and so does <profiles>.
	dir := copyFixture(t, "junit4")
	if _, err := InitProfile(dir, ProfileOptions{LocalRepo: noRepo, Version: testVersion}); err != nil {
		t.Fatal(err)
	}
	pom := filepath.Join(dir, "pom.xml")
	content, _ := os.ReadFile(pom)
	content = bytes.Replace(content, []byte("    </profile>\n  </profiles>"), []byte("    </profile>\n    <profile><id>mine</id></profile>\n  </profiles>"), 1)
	if err := os.WriteFile(pom, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveProfile(dir, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(pom)
	if !bytes.Contains(got, []byte("</build>\n  <profiles>\n    <profile><id>mine</id></profile>\n  </profiles>\n</project>")) || bytes.Contains(got, []byte("flaky")) {
		t.Errorf("unexpected result:\n%s", got)
	}
}

func TestDetectStyle(t *testing.T) {
	tests := []struct {
		name, content string
		want          pomStyle
	}{
		{"two spaces", "<project>\n  <a/>\n</project>", pomStyle{"\n", "  "}},
		{"four spaces CRLF", "<project>\r\n    <a>\r\n        <b/>\r\n    </a>\r\n</project>", pomStyle{"\r\n", "    "}},
		{"tabs", "<project>\n\t<a/>\n</project>", pomStyle{"\n", "\t"}},
		{"indented project", "<x>\n  <project>\n      <a/>\n  </project>\n</x>", pomStyle{"\n", "  "}},
		{"children on one line, deeper lines", "<project><a>\n  <b>\n     <c/>\n  </b>\n</a></project>", pomStyle{"\n", "   "}},
		{"one line", "<project><a/></project>", pomStyle{"\n", "  "}},
		{"CR only", "<project>\r\t<a/>\r</project>", pomStyle{"\r", "\t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := parseTree([]byte(tt.content))
			if err != nil {
				t.Fatal(err)
			}
			if got := detectStyle([]byte(tt.content), root); got != tt.want {
				t.Errorf("detectStyle = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJupiterToPlatform(t *testing.T) {
	tests := []struct{ in, want string }{
		{"5.14.4", "1.14.4"},
		{"5.10.0-M1", "1.10.0-M1"},
		{"6.1.3", "6.1.3"},
		{"10.0.0", "10.0.0"},
		{"4.13.2", ""},
		{"latest", ""},
	}
	for _, tt := range tests {
		if got := jupiterToPlatform(tt.in); got != tt.want {
			t.Errorf("jupiterToPlatform(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
