package mvn

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

// writeTree writes files (relative path to content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testPom is a minimal pom: coordinates, then extra elements.
func testPom(parent, artifactID, packaging, extra string) string {
	p := ""
	if parent != "" {
		g, rest, _ := strings.Cut(parent, ":")
		a, v, _ := strings.Cut(rest, ":")
		p = "  <parent><groupId>" + g + "</groupId><artifactId>" + a + "</artifactId><version>" + v + "</version></parent>\n"
	}
	return "<project>\n  <modelVersion>4.0.0</modelVersion>\n" + p +
		"  <groupId>org.example</groupId>\n  <artifactId>" + artifactID + "</artifactId>\n  <version>1.0</version>\n" +
		"  <packaging>" + packaging + "</packaging>\n" + extra + "</project>\n"
}

func surefirePlugin(section, version string) string {
	plugin := "<plugin><artifactId>maven-surefire-plugin</artifactId><version>" + version + "</version></plugin>"
	if section == "managed" {
		return "  <build><pluginManagement><plugins>" + plugin + "</plugins></pluginManagement></build>\n"
	}
	return "  <build><plugins>" + plugin + "</plugins></build>\n"
}

// TestInitProfilePlacement checks which poms get the profile: the poms the
// reactor's modules inherit from, not an aggregator nobody inherits from.
func TestInitProfilePlacement(t *testing.T) {
	const modules = "  <modules><module>lib</module><module>app</module></modules>\n"
	tests := []struct {
		name     string
		files    map[string]string
		wantPoms []string // relative; in this order
		wantMods [][]string
		notPoms  []string // must stay unchanged
	}{
		{
			name: "modules inherit from the root",
			files: map[string]string{
				"pom.xml":     testPom("", "root", "pom", modules+surefirePlugin("managed", "3.5.4")),
				"lib/pom.xml": testPom("org.example:root:1.0", "lib", "jar", ""),
				"app/pom.xml": testPom("org.example:root:1.0", "app", "jar", ""),
			},
			wantPoms: []string{"pom.xml"},
			wantMods: [][]string{{"lib", "app"}},
			notPoms:  []string{"lib/pom.xml", "app/pom.xml"},
		},
		{
			name: "aggregator with a module that has another parent",
			files: map[string]string{
				"pom.xml":     testPom("", "root", "pom", modules+surefirePlugin("managed", "3.5.4")),
				"lib/pom.xml": testPom("org.sonatype.oss:oss-parent:7", "lib", "jar", surefirePlugin("plugins", "2.22.2")),
				"app/pom.xml": testPom("org.example:root:1.0", "app", "jar", ""),
			},
			wantPoms: []string{"lib/pom.xml", "pom.xml"},
			wantMods: [][]string{{"lib"}, {"app"}},
			notPoms:  []string{"app/pom.xml"},
		},
		{
			name: "aggregator nobody inherits from",
			files: map[string]string{
				"pom.xml":     testPom("", "root", "pom", "  <modules><module>lib</module></modules>\n"),
				"lib/pom.xml": testPom("org.sonatype.oss:oss-parent:7", "lib", "jar", surefirePlugin("plugins", "3.5.4")),
			},
			wantPoms: []string{"lib/pom.xml"},
			wantMods: [][]string{{"lib"}},
			notPoms:  []string{"pom.xml"},
		},
		{
			name: "modules share a parent that is not the aggregator",
			files: map[string]string{
				"pom.xml":        testPom("", "root", "pom", modules),
				"parent/pom.xml": testPom("", "parent", "pom", surefirePlugin("managed", "3.5.4")),
				"lib/pom.xml":    strings.Replace(testPom("org.example:parent:1.0", "lib", "jar", ""), "</parent>", "<relativePath>../parent</relativePath></parent>", 1),
				"app/pom.xml":    strings.Replace(testPom("org.example:parent:1.0", "app", "jar", ""), "</parent>", "<relativePath>../parent/pom.xml</relativePath></parent>", 1),
			},
			wantPoms: []string{"parent/pom.xml"},
			wantMods: [][]string{{"lib", "app"}},
			notPoms:  []string{"pom.xml", "lib/pom.xml", "app/pom.xml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			opts := ProfileOptions{LocalRepo: noRepo, Version: testVersion}
			state, err := InitProfile(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var mods [][]string
			for _, c := range state.Poms {
				rel, _ := filepath.Rel(dir, c.Pom)
				got = append(got, filepath.ToSlash(rel))
				mods = append(mods, c.Modules)
				content, _ := os.ReadFile(c.Pom)
				if !bytes.Contains(content, []byte("<id>flaky</id>")) {
					t.Errorf("%s lacks the profile", rel)
				}
				if want := filepath.Join(dir, ".flaky", "backups", rel); c.Backup != want {
					t.Errorf("backup of %s: %q, want %s", rel, c.Backup, want)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.wantPoms, " ") {
				t.Errorf("profile poms %v, want %v", got, tt.wantPoms)
			}
			if len(mods) != len(tt.wantMods) {
				t.Fatalf("modules %v, want %v", mods, tt.wantMods)
			}
			for i := range mods {
				if strings.Join(mods[i], " ") != strings.Join(tt.wantMods[i], " ") {
					t.Errorf("modules of %s: %v, want %v", got[i], mods[i], tt.wantMods[i])
				}
			}
			for _, name := range tt.notPoms {
				if content, _ := os.ReadFile(filepath.Join(dir, name)); string(content) != tt.files[name] {
					t.Errorf("%s changed", name)
				}
			}
			if c, err := CheckProfile(dir, opts); err != nil || c.Status() != ProfileCurrent {
				t.Errorf("CheckProfile = %+v, %v; want current", c, err)
			}
			removed, err := RemoveProfile(dir, false)
			if err != nil || len(removed) != len(tt.wantPoms) {
				t.Errorf("RemoveProfile = %+v, %v", removed, err)
			}
			for _, r := range removed {
				if r.Backup != BackupPath(dir, r.Pom)+".1" {
					t.Errorf("backup of %s after remove: %q, want the next numbered one", r.Pom, r.Backup)
				}
			}
			for name, content := range tt.files {
				if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != content {
					t.Errorf("%s differs after --remove", name)
				}
			}
		})
	}
}

// TestInitProfileSurefirePin checks that the profile pins a supported
// Surefire exactly when a module would otherwise run an unsupported or
// unknown one, and refuses what it cannot override.
func TestInitProfileSurefirePin(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"org/example/corp/1/corp-1.pom":   testPom("", "corp", "pom", surefirePlugin("managed", "3.2.5")),
		"org/example/old/1/old-1.pom":     testPom("", "old", "pom", surefirePlugin("managed", "2.18.1")),
		"org/example/bare/1/bare-1.pom":   testPom("", "bare", "pom", ""),
		"org/example/child/1/child-1.pom": testPom("org.example:corp:1", "child", "pom", ""),
	})
	tests := []struct {
		name     string
		files    map[string]string
		wantPin  bool
		wantNote string
		wantErr  string
	}{
		{name: "no pin anywhere", files: map[string]string{"pom.xml": testPom("", "app", "jar", "")},
			wantPin: true, wantNote: "module . sets no maven-surefire-plugin version, so Maven uses its built-in default"},
		{name: "supported pin", files: map[string]string{"pom.xml": testPom("", "app", "jar", surefirePlugin("plugins", "2.22.2"))}},
		{name: "supported managed pin", files: map[string]string{"pom.xml": testPom("", "app", "jar", surefirePlugin("managed", "3.0.0-M7"))}},
		{name: "property pin", files: map[string]string{"pom.xml": testPom("", "app", "jar",
			"  <properties><sf>3.5.4</sf></properties>\n"+surefirePlugin("plugins", "${sf}"))}},
		{name: "unsupported pin in the root", files: map[string]string{"pom.xml": testPom("", "app", "jar", surefirePlugin("plugins", "2.12.4"))},
			wantPin: true, wantNote: "module . uses maven-surefire-plugin 2.12.4 (set in pom.xml)"},
		{name: "early 3.0.0 milestone", files: map[string]string{"pom.xml": testPom("", "app", "jar", surefirePlugin("managed", "3.0.0-M5"))},
			wantPin: true, wantNote: "uses maven-surefire-plugin 3.0.0-M5"},
		{name: "parent in the local repository pins", files: map[string]string{"pom.xml": testPom("org.example:corp:1", "app", "jar", "")}},
		{name: "grandparent in the local repository pins", files: map[string]string{"pom.xml": testPom("org.example:child:1", "app", "jar", "")}},
		{name: "parent in the local repository pins an old one", files: map[string]string{"pom.xml": testPom("org.example:old:1", "app", "jar", "")},
			wantPin: true, wantNote: "uses maven-surefire-plugin 2.18.1 (set in " + repo},
		{name: "parent in the local repository pins nothing", files: map[string]string{"pom.xml": testPom("org.example:bare:1", "app", "jar", "")},
			wantPin: true, wantNote: "Maven uses its built-in default"},
		{name: "parent nowhere", files: map[string]string{"pom.xml": testPom("org.example:gone:1", "app", "jar", "")},
			wantPin: true, wantNote: "a parent pom is neither on disk nor in the local repository"},
		{
			name: "a module pins an old one itself",
			files: map[string]string{
				"pom.xml":     testPom("", "root", "pom", "  <modules><module>lib</module></modules>\n"),
				"lib/pom.xml": testPom("org.example:root:1.0", "lib", "jar", surefirePlugin("plugins", "2.12.4")),
			},
			wantErr: "module lib: lib/pom.xml sets maven-surefire-plugin 2.12.4 in its <build><plugins>, which the flaky profile cannot override",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			state, err := InitProfile(dir, ProfileOptions{LocalRepo: repo, Version: testVersion})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				for name, content := range tt.files {
					if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != content {
						t.Errorf("%s changed", name)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			content, _ := os.ReadFile(state.Poms[0].Pom)
			pinned := bytes.Contains(content, []byte("<artifactId>maven-surefire-plugin</artifactId>\n            <version>"+PinnedSurefire+"</version>"))
			if pinned != tt.wantPin {
				t.Errorf("pinned = %v, want %v:\n%s", pinned, tt.wantPin, content)
			}
			if note := state.Poms[0].Note; !strings.Contains(note, tt.wantNote) || (note == "") == tt.wantPin {
				t.Errorf("note %q, want %q", note, tt.wantNote)
			}
		})
	}
}

func TestSurefireSupported(t *testing.T) {
	for v, want := range map[string]bool{
		"2.12.4": false, "2.21.0": false, "2.22.0": true, "2.22.2": true, "3.0.0-M5": false, "3.0.0-M6": true,
		"3.0.0-M9": true, "3.0.0": true, "3.5.4": true, "3.6.1": true, "4.0.0-beta-1": true, "x": false, "": false,
	} {
		if got := surefireSupported(v); got != want {
			t.Errorf("surefireSupported(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestInitRefusesHostileParents runs init on a module whose parent pom is
// a FIFO, a device, a directory or larger than the pom cap, on disk (at
// its relativePath) or in the local repository (item 8 of #53: such a
// parent was called "neither on disk nor in the local repository" and init
// succeeded): init refuses, saying which parent and what it is.
func TestInitRefusesHostileParents(t *testing.T) {
	for _, f := range hostile.Files(maxPomSize) {
		t.Run("on disk: "+f.Name, func(t *testing.T) {
			if f.Name == "a directory" {
				t.Skip("a relativePath that is a directory names the pom.xml in it, as in Maven")
			}
			dir := writeTree(t, map[string]string{"app/pom.xml": testPom("org.example:root:1.0", "app", "jar", "")})
			parent := filepath.Join(dir, "pom.xml")
			if err := f.Make(parent); err != nil {
				t.Fatal(err)
			}
			var err error
			if !hostile.Returns(parent, func() {
				_, err = InitProfile(filepath.Join(dir, "app"), ProfileOptions{LocalRepo: t.TempDir(), Version: testVersion})
			}) {
				t.Fatalf("init still reading after %v", hostile.ReadBound)
			}
			if err == nil || !strings.Contains(err.Error(), "parent org.example:root") || !strings.Contains(err.Error(), f.Want) {
				t.Errorf("init: %v, want it to refuse parent org.example:root: %s", err, f.Want)
			}
		})
		t.Run("in the local repository: "+f.Name, func(t *testing.T) {
			repo := t.TempDir()
			pom := filepath.Join(repo, "org", "example", "corp", "1", "corp-1.pom")
			os.MkdirAll(filepath.Dir(pom), 0o755)
			if err := f.Make(pom); err != nil {
				t.Fatal(err)
			}
			dir := writeTree(t, map[string]string{"pom.xml": testPom("org.example:corp:1", "app", "jar", "")})
			var err error
			if !hostile.Returns(pom, func() { _, err = InitProfile(dir, ProfileOptions{LocalRepo: repo, Version: testVersion}) }) {
				t.Fatalf("init still reading after %v", hostile.ReadBound)
			}
			if err == nil || !strings.Contains(err.Error(), "parent org.example:corp:1 in the local repository") || !strings.Contains(err.Error(), f.Want) {
				t.Errorf("init: %v, want it to refuse parent org.example:corp:1 in the local repository: %s", err, f.Want)
			}
		})
	}
}
