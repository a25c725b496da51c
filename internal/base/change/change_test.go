package change

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo is a git repository in a temporary directory.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.write("pom.xml", "<project/>")
	r.write("mod/pom.xml", "<project/>")
	r.write("mod/src/main/java/com/x/Cache.java", "class Cache {}")
	r.write("mod/src/test/java/com/x/CacheTest.java", "class CacheTest {}")
	r.write("README.md", "hi")
	r.commit("base")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) {
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

func TestSince(t *testing.T) {
	r := newRepo(t)
	r.git("checkout", "-q", "-b", "topic")
	r.write("mod/src/test/java/com/x/NewTest.java", "class NewTest {}")
	r.write("mod/src/main/java/com/x/Cache.java", "class Cache { int x; }")
	r.commit("change")
	r.git("mv", "mod/src/test/java/com/x/CacheTest.java", "mod/src/test/java/com/x/CacheTests.java") // staged rename
	r.write("README.md", "more")                                                                     // unstaged
	r.write("mod/src/test/resources/data.txt", "x")                                                  // untracked
	r.write("mod/target/ignored.class", "x")
	r.write(".gitignore", "target/\n")
	r.git("checkout", "-q", "main")
	r.write("other.txt", "x") // untracked on main too: the working tree counts
	r.git("checkout", "-q", "topic")

	c, err := Since(filepath.Join(r.dir, "mod"), "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := r.git("rev-parse", "main"); c.Base != want {
		t.Errorf("base %s, want %s", c.Base, want)
	}
	if want := []string{"com.x.CacheTest", "com.x.CacheTests", "com.x.NewTest"}; !slices.Equal(c.TestClasses, want) {
		t.Errorf("test classes %v, want %v", c.TestClasses, want)
	}
	if want := []string{"com.x.Cache"}; !slices.Equal(c.Classes, want) {
		t.Errorf("classes %v, want %v", c.Classes, want)
	}
	if want := []string{"mod/src/test/resources/data.txt"}; !slices.Equal(c.Resources, want) {
		t.Errorf("resources %v, want %v", c.Resources, want)
	}
	if want := []string{".gitignore", "README.md", "other.txt"}; !slices.Equal(c.Other, want) {
		t.Errorf("other %v, want %v", c.Other, want)
	}
	if c.Module != "mod" || c.Head != r.git("rev-parse", "HEAD") || c.Seed() < 0 {
		t.Errorf("module %q head %s seed %d", c.Module, c.Head, c.Seed())
	}
	if again, err := Since(filepath.Join(r.dir, "mod"), "main", Options{}); err != nil || again.Seed() != c.Seed() {
		t.Errorf("the seed of the same commit changed: %d, then %d (%v)", c.Seed(), again.Seed(), err)
	}
	if len(c.Build) != 0 || !c.Everything() || c.Inert() {
		t.Errorf("build %v, everything %v, inert %v", c.Build, c.Everything(), c.Inert())
	}
}

func TestSinceKinds(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		files                []string
		everything, inert    bool
		testClasses, classes []string
	}{
		{name: "docs only", files: []string{"README.md", "docs/guide.txt", ".github/workflows/ci.yml", "mod/CHANGELOG"}, inert: true},
		{name: "parent pom", files: []string{"pom.xml"}, everything: true},
		{name: "module pom", files: []string{"mod/pom.xml"}, everything: true},
		{name: "sibling module's test and pom", files: []string{"lib/pom.xml", "lib/src/test/java/com/y/LibTest.java"}, inert: true},
		{name: "sibling module's class", files: []string{"lib/src/main/java/com/y/Lib.java"}, classes: []string{"com.y.Lib"}},
		{name: "package-info", files: []string{"mod/src/main/java/com/x/package-info.java"}, everything: true},
		{name: "test class", files: []string{"mod/src/test/java/com/x/CacheTest.java"}, testClasses: []string{"com.x.CacheTest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t)
			r.git("checkout", "-q", "-b", "topic")
			for _, f := range tc.files {
				r.write(f, "changed")
			}
			c, err := Since(filepath.Join(r.dir, "mod"), "main", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Everything() != tc.everything || c.Inert() != tc.inert || !slices.Equal(c.TestClasses, tc.testClasses) || !slices.Equal(c.Classes, tc.classes) {
				t.Errorf("everything %v inert %v tests %v classes %v; want %v %v %v %v (%+v)", c.Everything(), c.Inert(), c.TestClasses, c.Classes, tc.everything, tc.inert, tc.testClasses, tc.classes, c)
			}
		})
	}
}

func TestSinceRefuses(t *testing.T) {
	if _, err := Since(t.TempDir(), "main", Options{}); err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Errorf("outside a repository: %v", err)
	}
	r := newRepo(t)
	if _, err := Since(r.dir, "origin/nope", Options{}); err == nil || !strings.Contains(err.Error(), "git fetch origin nope)") {
		t.Errorf("unknown ref: %v", err)
	}
	// A ref the hint would run as more than one command, or whose newline
	// would start a line of its own (a workflow command on GitHub Actions),
	// is quoted (item 11 of #53).
	for ref, want := range map[string]string{
		"main; touch pwned":     `git fetch origin 'main; touch pwned')`,
		"main\n::error::forged": `git fetch origin "main\n::error::forged")`,
		"origin/a$(id)`b`":      "git fetch origin a\\$\\(id\\)\\`b\\`)",
	} {
		_, err := Since(r.dir, ref, Options{})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ref %q: %v, want a hint %q on one line", ref, err, want)
		}
	}
	// A shallow clone lacks the base: the error says to fetch the history.
	r.write("a.txt", "1")
	r.commit("second")
	base := r.git("rev-parse", "HEAD~1")
	r.write("b.txt", "2")
	r.commit("third")
	clone := t.TempDir()
	if out, err := exec.Command("git", "clone", "-q", "--depth", "1", "file://"+r.dir, clone).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	if _, err := Since(clone, base, Options{}); err == nil || !strings.Contains(err.Error(), "git fetch --unshallow") {
		t.Errorf("shallow clone: %v", err)
	}
}

func TestCIBase(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, ""},
		{map[string]string{"GITHUB_BASE_REF": "main"}, "origin/main"},
		{map[string]string{"CI_MERGE_REQUEST_DIFF_BASE_SHA": "abc123"}, "abc123"},
	} {
		if got := CIBase(env(tc.env)); got != tc.want {
			t.Errorf("CIBase(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}
