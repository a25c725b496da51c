package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// Test JVMs on the Java versions projects run: the fixtures are built with
// the default JDK (17, --release 8) and their tests run on Java 11, 21 and
// 25, each JVM started with the options flaky chooses for its version.

// testJDK returns the java executable of a Java major version: the
// default one for 17, else a runtime scripts/setup.sh installs into
// FLAKY_TEST_JDKS (default: flaky-test-jdks in the user's cache directory),
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
		if cache, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(cache, "flaky-test-jdks")
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

// TestJDKMatrix runs the OD victims' orders of a JUnit 4 and a Jupiter
// fixture on Java 11, 21 and 25 with class-data sharing as detect uses it:
// a first launcher records the classes and dumps the archive, a second
// one's JVMs map it (JUnit's classes come from the archive); each victim
// fails after its polluter and passes alone in both.
func TestJDKMatrix(t *testing.T) {
	for _, major := range []int{11, 21, 25} {
		t.Run(fmt.Sprintf("java%d", major), func(t *testing.T) {
			java := testJDK(t, major)
			cache := t.TempDir()
			for _, name := range []string{"junit4", "jupiter5"} {
				t.Run(name, func(t *testing.T) {
					p := fixture(t, name)
					var orders [][]string
					for _, v := range p.expected.ofKind("od-victim") {
						orders = append(orders, join(v.Polluters[0], []string{v.Test}), []string{v.Test})
					}
					setup := *p.setup
					for i, what := range []string{"recording", "sharing"} {
						if i == 1 {
							setup.ArgLine = append(slices.Clone(setup.ArgLine), "-Xlog:class+load=info")
						}
						l, err := newLauncher(&setup, java, launcher.Options{RunTimeout: 2 * time.Minute, Workers: 1, CDSDir: cache})
						if err != nil {
							t.Fatal(err)
						}
						rs := runOrders(t, l, orders...)
						if err := l.Close(); err != nil { // waits for the archive's dump
							t.Fatal(err)
						}
						for j := 0; j < len(rs); j += 2 {
							victim := orders[j+1][0]
							if polluted, alone := outcomeOf(rs[j], victim), outcomeOf(rs[j+1], victim); !failed(polluted) || alone != launcher.Pass {
								t.Errorf("Java %d, %s: %s polluted %s, alone %s\n%s", major, what, victim, polluted, alone, describe(rs[j]))
							}
						}
						if i == 1 && !junitShared.MatchString(rs[0].Output) {
							t.Errorf("Java %d: no JUnit class from the class-data archive; output:\n%s", major, tail(rs[0].Output))
						}
					}
				})
			}
		})
	}
}

// TestJDK11Detect runs `flaky --java <Java 11> detect` on the JUnit 4
// fixture: exactly its expected findings.
func TestJDK11Detect(t *testing.T) {
	needsTools(t)
	java := testJDK(t, 11)
	bin := flakyBin(t)
	dir := copyFixture(t, "junit4")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--java", java, "detect", "--module", dir, "--no-state", "--no-invariants", "--strategy", "orders")
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
	t.Logf("flaky detect on Java 11: %s, %d orders", d.elapsed.Round(100*time.Millisecond), d.report.Stats.Orders)
	checkExactFindings(t, d)
}
