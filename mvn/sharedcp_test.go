package mvn

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestPrepareSharesClasspathAcrossFolders prepares a build in one folder,
// then a second folder, and checks whether the second ran Maven to resolve
// its class path or took the one the first resolved.
func TestPrepareSharesClasspathAcrossFolders(t *testing.T) {
	fileProfile := strings.Replace(simplePom, "</project>",
		"<profiles><profile><id>local</id><activation><file><exists>local.properties</exists></file></activation></profile></profiles></project>", 1)
	tests := []struct {
		name       string
		first      string // the first folder's pom
		second     string // the second folder's pom
		inFolder   bool   // the class path names a jar in the first folder (a systemPath under ${basedir})
		snapshot   bool   // the class path names a snapshot
		noCache    bool   // flaky has no cache directory
		removeJar  bool   // the shared class path's jar is gone by the second run
		cachedOnly bool   // the first folder resolved before flaky had a cache directory, then ran again
		wantShared bool
	}{
		{name: "same build", first: simplePom, second: simplePom, wantShared: true},
		{name: "another pom", first: simplePom, second: strings.Replace(simplePom, "<version>1</version>", "<version>2</version>", 1)},
		{name: "a jar in the folder", first: simplePom, second: simplePom, inFolder: true},
		{name: "a snapshot", first: simplePom, second: simplePom, snapshot: true},
		{name: "a profile activated by a file", first: fileProfile, second: fileProfile},
		{name: "no cache directory", first: simplePom, second: simplePom, noCache: true},
		{name: "a jar gone", first: simplePom, second: simplePom, removeJar: true},
		{name: "cached in the folder alone before", first: simplePom, second: simplePom, cachedOnly: true, wantShared: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cacheDir := t.TempDir()
			if tt.noCache {
				cacheDir = ""
			}
			folder := func(pom string) string {
				dir := t.TempDir()
				writeFiles(t, dir, map[string]string{
					"pom.xml":                           pom,
					"src/test/java/p/ATest.java":        "class ATest {}",
					"lib/vendor.jar":                    "",
					"target/test-classes/p/ATest.class": "x",
				})
				later := time.Now().Add(2 * time.Second) // compiled after the last edit
				os.Chtimes(filepath.Join(dir, "target/test-classes/p/ATest.class"), later, later)
				return dir
			}
			first, second := folder(tt.first), folder(tt.second)
			hamcrest := "hamcrest-core-1.3.jar"
			if tt.snapshot {
				hamcrest = "hamcrest-core-1.4-SNAPSHOT.jar"
			}
			jars := fakeJars(t, "junit-4.13.2.jar", hamcrest)
			cp := jars[0] + ":" + jars[1]
			if tt.inFolder {
				cp += ":" + filepath.Join(first, "lib/vendor.jar")
			}
			fake := newFakeMvn(t, cp)
			prepare := func(dir string) *TestSetup {
				t.Helper()
				s, err := Prepare(context.Background(), dir, PrepareOptions{Mvn: fake.path, SharedCache: cacheDir})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			if tt.cachedOnly {
				if _, err := Prepare(context.Background(), first, PrepareOptions{Mvn: fake.path}); err != nil {
					t.Fatal(err)
				}
			}
			want := prepare(first).Classpath[2:]
			if calls := fake.calls(t); len(calls) != 1 || !strings.Contains(calls[0], "dependency:build-classpath") {
				t.Fatalf("first folder: Maven ran %q, want build-classpath once", calls)
			}
			if tt.removeJar {
				os.Remove(jars[1])
				want = []string{jars[0]}
			}
			if tt.inFolder {
				want[2] = filepath.Join(second, "lib/vendor.jar")
			}
			t.Setenv("FAKE_CP", strings.Join(want, ":"))
			got := prepare(second).Classpath[2:]
			calls := fake.calls(t)
			if shared := len(calls) == 0; shared != tt.wantShared {
				t.Errorf("second folder took the first's class path: %v, want %v (Maven ran %q)", shared, tt.wantShared, calls)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("second folder's class path %q, want %q", got, want)
			}
			if cached, _ := filepath.Glob(filepath.Join(second, "target/flaky/cache/classpath-*.txt")); len(cached) != 1 {
				t.Errorf("second folder's own cache: %q, want one class path", cached)
			}
		})
	}
}
