package mvn

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/testkit/hostile"
)

// TestPrepareSharesClasspathAcrossFolders prepares a build in one folder,
// then a second folder, and checks whether the second ran Maven to resolve
// its class path or took the one the first resolved. The folders are two
// checkouts, <base>/ciA/repo/app and <base>/ciB/repo/app, and the user's
// local repository is <home>/.m2/repository.
func TestPrepareSharesClasspathAcrossFolders(t *testing.T) {
	fileProfile := strings.Replace(simplePom, "</project>",
		"<profiles><profile><id>local</id><activation><file><exists>local.properties</exists></file></activation></profile></profiles></project>", 1)
	tests := []struct {
		name   string
		first  string // the first folder's pom
		second string // the second folder's pom
		// own is a jar of the checkout that the class path names (a
		// systemPath under ${basedir}), as Maven writes it relative to
		// the module folder: "lib/vendor.jar" in it, "../lib/util.jar"
		// beside it.
		own        string
		linked     bool // the first folder is opened through a symbolic link
		elsewhere  bool // the jars lie outside the local repository
		linkedRepo bool // ~/.m2/repository is a link to the repository's folder
		repoLocal  bool // the repository is the one -Dmaven.repo.local names, not ~/.m2/repository
		repoInside bool // -Dmaven.repo.local=.m2/repository, in the checkout
		snapshot   bool // the class path names a snapshot
		noCache    bool // flaky has no cache directory
		removeJar  bool // the shared class path's jar is gone by the second run
		cachedOnly bool // the first folder resolved before flaky had a cache directory, then ran again
		wantShared bool
		wantKept   bool // the first folder keeps its class path for other folders
	}{
		{name: "same build", first: simplePom, second: simplePom, wantShared: true, wantKept: true},
		{name: "another pom", first: simplePom, second: strings.Replace(simplePom, "<version>1</version>", "<version>2</version>", 1), wantKept: true},
		{name: "a jar in the folder", first: simplePom, second: simplePom, own: "lib/vendor.jar"},
		{name: "a jar beside the folder", first: simplePom, second: simplePom, own: "../lib/util.jar"},
		{name: "a jar in the folder opened through a link", first: simplePom, second: simplePom, own: "lib/vendor.jar", linked: true},
		{name: "jars outside the local repository", first: simplePom, second: simplePom, elsewhere: true},
		{name: "the local repository through a link", first: simplePom, second: simplePom, linkedRepo: true, wantShared: true, wantKept: true},
		{name: "the local repository of maven.repo.local", first: simplePom, second: simplePom, repoLocal: true, wantShared: true, wantKept: true},
		{name: "a local repository in the checkout", first: simplePom, second: simplePom, repoInside: true},
		{name: "a snapshot", first: simplePom, second: simplePom, snapshot: true},
		{name: "a profile activated by a file", first: fileProfile, second: fileProfile},
		{name: "no cache directory", first: simplePom, second: simplePom, noCache: true},
		{name: "a jar gone", first: simplePom, second: simplePom, removeJar: true, wantKept: true},
		{name: "cached in the folder alone before", first: simplePom, second: simplePom, cachedOnly: true, wantShared: true, wantKept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cacheDir := t.TempDir()
			if tt.noCache {
				cacheDir = ""
			}
			home := t.TempDir()
			t.Setenv("HOME", home)
			repo := filepath.Join(home, ".m2", "repository")
			var maven MavenArgs
			base := t.TempDir()
			switch {
			case tt.elsewhere:
				repo = t.TempDir()
			case tt.linkedRepo:
				os.MkdirAll(filepath.Join(home, ".m2"), 0o755)
				real := t.TempDir()
				if err := os.Symlink(real, repo); err != nil {
					t.Fatal(err)
				}
			case tt.repoLocal:
				repo = t.TempDir()
				maven.Properties = map[string]string{"maven.repo.local": repo}
			case tt.repoInside:
				repo = filepath.Join(base, "ciA", "repo", "app", ".m2", "repository")
				maven.Properties = map[string]string{"maven.repo.local": ".m2/repository"}
			}
			folder := func(checkout, pom string) string {
				dir := filepath.Join(base, checkout, "repo", "app")
				writeFiles(t, dir, map[string]string{
					"pom.xml":                           pom,
					"src/test/java/p/ATest.java":        "class ATest {}",
					"lib/vendor.jar":                    "",
					"../lib/util.jar":                   "",
					"target/test-classes/p/ATest.class": "x",
				})
				later := time.Now().Add(2 * time.Second) // compiled after the last edit
				os.Chtimes(filepath.Join(dir, "target/test-classes/p/ATest.class"), later, later)
				return dir
			}
			first, second := folder("ciA", tt.first), folder("ciB", tt.second)
			opened := first
			if tt.linked {
				opened = filepath.Join(base, "link")
				if err := os.Symlink(first, opened); err != nil {
					t.Fatal(err)
				}
			}
			hamcrest := "hamcrest-core-1.3.jar"
			if tt.snapshot {
				hamcrest = "hamcrest-core-1.4-SNAPSHOT.jar"
			}
			jars := repoJars(t, repo, "junit-4.13.2.jar", hamcrest)
			cp := jars[0] + ":" + jars[1]
			if tt.own != "" {
				cp += ":" + first + "/" + tt.own // Maven keeps the ".." and names the folder as the JVM sees it
			}
			fake := newFakeMvn(t, cp)
			prepare := func(dir string) *TestSetup {
				t.Helper()
				s, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path, SharedCache: cacheDir, Maven: maven})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			if tt.cachedOnly {
				if _, err := Prepare(context.Background(), opened, PrepareOptions{Mvn: fake.path, Maven: maven}); err != nil {
					t.Fatal(err)
				}
			}
			want := prepare(opened).Classpath[2:]
			if calls := fake.calls(t); len(calls) != 1 || !strings.Contains(calls[0], "dependency:build-classpath") {
				t.Fatalf("first folder: Maven ran %q, want build-classpath once", calls)
			}
			if kept, _ := filepath.Glob(filepath.Join(cacheDir, "classpath", "*.txt")); (len(kept) == 1) != tt.wantKept && cacheDir != "" {
				t.Errorf("first folder kept %q for other folders, want one file: %v", kept, tt.wantKept)
			}
			if tt.removeJar {
				os.Remove(jars[1])
				want = []string{jars[0]}
			}
			if tt.own != "" {
				want[2] = second + "/" + tt.own
			}
			t.Setenv("FAKE_CP", strings.Join(want, ":"))
			secondSetup := prepare(second)
			got := secondSetup.Classpath[2:]
			calls := fake.calls(t)
			if shared := len(calls) == 0; shared != tt.wantShared {
				t.Errorf("second folder took the first's class path: %v, want %v (Maven ran %q)", shared, tt.wantShared, calls)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("second folder's class path %q, want %q", got, want)
			}
			cached, _ := filepath.Glob(filepath.Join(second, "target/flaky/cache/classpath-*.txt"))
			if len(cached) != 1 {
				t.Fatalf("second folder's own cache: %q, want one class path", cached)
			}
			// The files to delete to resolve again: the build's shared one
			// too when it keeps one, as the first folder does (item 7 of
			// #53: the class path may have come from there).
			files := secondSetup.ClasspathFiles
			switch {
			case len(files) == 0 || files[0] != cached[0]:
				t.Errorf("second folder's class path files %q, want its own cache %s first", files, cached[0])
			case tt.wantKept && (len(files) != 2 || filepath.Dir(files[1]) != filepath.Join(cacheDir, "classpath")):
				t.Errorf("second folder's class path files %q, want the shared one in %s too", files, cacheDir)
			case !tt.wantKept && len(files) != 1:
				t.Errorf("second folder's class path files %q, want its own cache alone", files)
			}
		})
	}
}

// repoJars creates empty jars of these names in repo, standing in for the
// local repository, and returns their paths.
func repoJars(t *testing.T, repo string, names ...string) []string {
	t.Helper()
	dir := filepath.Join(repo, "g", "a", "1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestReadClasspathRefusesHostileFiles reads a cached class path file (the
// module's, the shared one) that is a FIFO, a device, a directory or over
// maxClasspathFile: each is refused at once, so Maven resolves again.
func TestReadClasspathRefusesHostileFiles(t *testing.T) {
	for _, f := range hostile.Files(maxClasspathFile) {
		t.Run(f.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "classpath.txt")
			if err := f.Make(path); err != nil {
				t.Fatal(err)
			}
			var err error
			if !hostile.Returns(path, func() { _, err = readClasspath(path) }) {
				t.Fatalf("readClasspath still reading after %v", hostile.ReadBound)
			}
			if err == nil || !strings.Contains(err.Error(), f.Want) {
				t.Errorf("readClasspath: %v, want an error saying %q", err, f.Want)
			}
		})
	}
}
