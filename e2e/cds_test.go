package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otiai10/copy"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// Class-data sharing: the first run of a module records its classes and
// the launcher dumps an archive from them; later launchers' JVMs map the
// archive (the JVM's class-load log has JUnit's classes from a "shared objects file") and get the
// same outcomes as without it; an archive corrupted in the cache, or one a
// changed jar made stale, is detected and made again.
var junitShared = regexp.MustCompile(`org\.junit\.\S+ source: shared objects file`)

// sharedLambda matches a lambda class of the runner or JUnit mapped from an
// archive.
var sharedLambda = regexp.MustCompile(`(dev\.flaky\.runner|org\.junit)\.\S+\$\$Lambda\S* source: shared objects file`)

func TestClassDataSharing(t *testing.T) {
	t.Parallel()
	p := fixture(t, "junit4")
	// The jars are copied so that the test may make one stale.
	jarDir := t.TempDir()
	setup := *p.setup
	setup.Classpath = nil
	for _, e := range p.setup.Classpath {
		if fi, err := os.Stat(e); err == nil && !fi.IsDir() {
			dst := filepath.Join(jarDir, filepath.Base(filepath.Dir(e))+"-"+filepath.Base(e))
			if err := copy.Copy(e, dst); err != nil {
				t.Fatal(err)
			}
			e = dst
		}
		setup.Classpath = append(setup.Classpath, e)
	}
	setup.ArgLine = append(slices.Clone(setup.ArgLine), "-Xlog:class+load=info")
	cache := t.TempDir()
	var order []string
	for _, ti := range list(t, p)[:4] {
		order = append(order, ti.ID)
	}
	run := func(what string) (*launcher.Result, string) {
		t.Helper()
		start := time.Now()
		r := runSharing(t, &setup, cache, order)
		archives, _ := filepath.Glob(filepath.Join(cache, "*.jsa"))
		if len(archives) != 1 {
			t.Fatalf("%s: want one archive in the cache, got %v", what, archives)
		}
		t.Logf("%s: %s, JVM CPU %s", what, time.Since(start).Round(time.Millisecond), r.CPU.Round(time.Millisecond))
		return r, archives[0]
	}
	// The JDK's own archive holds JDK classes only: a JUnit class from one is
	// from the module's archive.
	shared := func(r *launcher.Result) bool { return junitShared.MatchString(r.Output) }
	nod := map[string]bool{}
	for _, f := range p.expected.ofKind("nod") {
		nod[f.Test] = true
	}
	outcomes := func(r *launcher.Result) string {
		var b strings.Builder
		for _, tr := range r.Tests {
			if nod[tr.Test] {
				continue
			}
			b.WriteString(tr.Test + "=" + string(tr.Outcome) + " ")
		}
		return b.String()
	}

	first, archive := run("recording run")
	if shared(first) {
		t.Fatalf("the recording run mapped an archive")
	}
	second, _ := run("run with the archive")
	if !shared(second) {
		t.Fatalf("the second run did not map the archive; output:\n%s", describe(second))
	}
	// The archive holds the lambda classes of the jars' classes too (the
	// runner's, JUnit's), which the JVM would otherwise spin at every start.
	if !sharedLambda.MatchString(second.Output) {
		t.Errorf("the archive holds no lambda class of the runner or JUnit; output:\n%s", describe(second))
	}
	if outcomes(first) != outcomes(second) {
		t.Fatalf("outcomes differ with the archive:\nwithout %s\nwith    %s", outcomes(first), outcomes(second))
	}

	// Corrupt: bytes overwritten in the middle.
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(archive, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := len(data) / 2; i < len(data)/2+4096; i++ {
		data[i] ^= 0xff
	}
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	third, _ := run("run after corrupting the archive")
	if shared(third) {
		t.Fatalf("a run mapped the corrupted archive")
	}
	fourth, _ := run("run with the rebuilt archive")
	if !shared(fourth) {
		t.Fatalf("the archive was not rebuilt after corruption")
	}

	// Stale: a jar of the class path touched since the archive was made
	// (same content, so the same cache key; the JVM refuses the archive).
	var jar string
	for _, e := range setup.Classpath {
		if strings.HasPrefix(e, jarDir) {
			jar = e
		}
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(jar, later, later); err != nil {
		t.Fatal(err)
	}
	fifth, _ := run("run after a jar changed")
	if shared(fifth) {
		t.Fatalf("a run mapped the stale archive")
	}
	sixth, _ := run("run with the archive rebuilt for the changed jar")
	if !shared(sixth) {
		t.Fatalf("the archive was not rebuilt after a jar changed")
	}
	if outcomes(sixth) != outcomes(first) {
		t.Fatalf("outcomes differ with the rebuilt archive:\nwithout %s\nwith    %s", outcomes(first), outcomes(sixth))
	}
}

// A module whose directories hold a file that is also in flaky's agent jar
// (META-INF/licenses/ASM here; META-INF/LICENSE in a real one) still shares
// classes: the archive then leaves the agent's jar out, which keeps its
// place after the directories.
func TestClassDataSharingBesideAgentFile(t *testing.T) {
	t.Parallel()
	p := fixture(t, "junit4")
	extra := t.TempDir()
	if err := os.MkdirAll(filepath.Join(extra, "META-INF", "licenses"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(extra, "META-INF", "licenses", "ASM"), []byte("not the agent's"), 0o644); err != nil {
		t.Fatal(err)
	}
	setup := *p.setup
	setup.Classpath = append(slices.Clone(p.setup.Classpath), extra)
	setup.ArgLine = append(slices.Clone(setup.ArgLine), "-Xlog:class+load=info")
	cache := t.TempDir()
	order := []string{list(t, p)[0].ID}
	for _, what := range []string{"recording run", "run with the archive"} {
		r := runSharing(t, &setup, cache, order)
		if got, want := junitShared.MatchString(r.Output), what != "recording run"; got != want {
			t.Fatalf("%s: JUnit's classes from the archive: %v, want %v\n%s", what, got, want, describe(r))
		}
		if r.Tests[0].Outcome != launcher.Pass {
			t.Fatalf("%s: %s", what, describe(r))
		}
	}
}

// runSharing runs order in one JVM of a new launcher with class-data
// sharing in cache, and closes the launcher, which waits for a dump.
func runSharing(t *testing.T, setup *mvn.TestSetup, cache string, order []string) *launcher.Result {
	t.Helper()
	l, err := newLauncher(setup, javaBin(), launcher.Options{Workers: 1, CDSDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Run(context.Background(), order)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return r
}
