package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// Test JVMs on the Java versions projects run: the fixtures are built with
// the default JDK (17, --release 8) and their tests run on Java 11, 21 and
// 25, each JVM started with the options flaky chooses for its version.

// testJDK returns the java executable of a Java major version: the
// default one for 17, else a runtime scripts/setup.sh installs into
// FLAKY_TEST_JDKS (default: ~/.cache/flaky-e2e/jdks),
// else a JDK of that version under /usr/lib/jvm. When there is none the
// test is skipped, or fails where FLAKY_NEED_JDKS is set (CI, whose
// .ci/run installs them).
func testJDK(t *testing.T, major int) string {
	t.Helper()
	if major == 17 {
		return javaBin()
	}
	dir := os.Getenv("FLAKY_TEST_JDKS")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".cache", "flaky-e2e", "jdks")
		}
	}
	candidates := []string{filepath.Join(dir, fmt.Sprint(major), "bin", "java")}
	for _, pattern := range []string{"/usr/lib/jvm/*-%d-*/bin/java", "/usr/lib/jvm/*-%d/bin/java"} {
		m, _ := filepath.Glob(fmt.Sprintf(pattern, major))
		candidates = append(candidates, m...)
	}
	for _, java := range candidates {
		if _, err := os.Stat(java); err != nil {
			continue
		}
		jvm, err := launcher.ProbeJVM(context.Background(), java)
		if err != nil {
			t.Fatalf("Java %d at %s: %v", major, java, err)
		}
		if jvm.Major != major {
			t.Fatalf("%s is Java %d (%s), not %d", java, jvm.Major, jvm.Version, major)
		}
		return java
	}
	msg := fmt.Sprintf("no Java %d runtime (looked at %v): run scripts/setup.sh to install the test runtimes", major, candidates)
	if os.Getenv("FLAKY_NEED_JDKS") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestJDKMatrix runs an OD victim's orders of a JUnit 4, a Jupiter and a
// TestNG 7 fixture on Java 11, 21 and 25 with class-data sharing as detect uses it:
// a first launcher records the classes and dumps the archive, a second
// one's JVMs map it (their class-load logs have the module's classes from
// the archive); the victim fails after its polluter and passes alone in both.
func TestJDKMatrix(t *testing.T) {
	t.Parallel()
	for _, major := range []int{11, 21, 25} {
		t.Run(fmt.Sprintf("java%d", major), func(t *testing.T) {
			java := testJDK(t, major)
			cache := t.TempDir()
			for _, name := range []string{"junit4", "jupiter5", "testng7"} {
				t.Run(name, func(t *testing.T) {
					p := fixture(t, name)
					v := p.expected.ofKind("od-victim")[0]
					orders := [][]string{join(v.Polluters[0], []string{v.Test}), {v.Test}}
					logs := t.TempDir()
					setup := *p.setup
					for i, what := range []string{"recording", "sharing"} {
						if i == 1 {
							// To a file: the log is longer than the output a result keeps.
							setup.ArgLine = append(slices.Clone(setup.ArgLine), "-Xlog:class+load=info:file="+filepath.Join(logs, "load-%p.log"))
						}
						l, err := newLauncher(&setup, java, launcher.Options{RunTimeout: jvmSafetyNet, CDSDir: cache})
						if err != nil {
							t.Fatal(err)
						}
						rs := runOrders(t, l, orders...)
						if err := l.Close(); err != nil { // waits for the archive's dump
							t.Fatal(err)
						}
						if polluted, alone := outcomeOf(rs[0], v.Test), outcomeOf(rs[1], v.Test); !failed(polluted) || alone != launcher.Pass {
							t.Errorf("Java %d, %s: %s polluted %s, alone %s\n%s", major, what, v.Test, polluted, alone, describe(rs[0]))
						}
					}
					files, _ := filepath.Glob(filepath.Join(logs, "load-*.log"))
					var loaded []byte
					for _, f := range files {
						data, err := os.ReadFile(f)
						if err != nil {
							t.Fatal(err)
						}
						loaded = append(loaded, data...)
					}
					if !moduleShared.Match(loaded) {
						t.Errorf("Java %d: no class of the module's jars from the class-data archive in the class-load logs %v; JUnit's classes came from:\n%s",
							major, files, strings.Join(junitLoaded.FindAllString(string(loaded), 5), "\n"))
					}
				})
			}
		})
	}
}

// moduleShared matches, in a class-load log, a class of the module's jars
// (JUnit's or flaky's runner's) from a class-data archive: the JDK's own
// archive has none of them. Before Java 17 the JVM archives no class file
// older than Java 6, as JUnit 4's are: the runner's classes are then the
// module's archived ones.
var moduleShared = regexp.MustCompile(`(org\.junit|dev\.flaky\.runner)\.\S+ source: shared objects file`)

// junitLoaded matches a JUnit class in a class-load log.
var junitLoaded = regexp.MustCompile(`org\.junit\.\S+ source: .*`)

// TestJDK11Detect runs `flaky --java <Java 11> detect` on the JUnit 4
// fixture as TestDetectFindsExactlyTheExpectedFindings does on the default
// JDK (warm JVMs too): exactly its expected findings.
func TestJDK11Detect(t *testing.T) {
	t.Parallel()
	needsTools(t)
	java := testJDK(t, 11)
	bin := flakyBin(t)
	dir := copyFixture(t, "junit4")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--java", java, "detect", "--module", dir, "--no-state", "--no-invariants", "--strategy", "orders", "--warm")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := &detection{p: &prepared{name: "junit4", dir: dir, expected: readExpected(t, dir)}, stdout: stdout.String(), stderr: stderr.String(), code: exitCode(err), elapsed: time.Since(start)}
	if d.code != 0 && d.code != 1 {
		t.Fatalf("flaky --java %s detect exited %d: %v\n%s%s", java, d.code, err, d.stdout, d.stderr)
	}
	if d.report, err = report.Read(filepath.Join(dir, "target", "flaky", "report.json")); err != nil {
		t.Fatal(err)
	}
	checkDetection(t, "junit4", d)
}
