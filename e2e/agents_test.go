package e2e

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// TestCoexistsWithBuildAgents runs flaky as a user would on the fixtures
// whose builds run other agents: jacoco (JaCoCo's prepare-agent through
// @{argLine}) and mockito-inline (Mockito's inline mock maker, which
// attaches ByteBuddy's agent). On each, one copy runs `mvn -Pflaky verify`,
// then `flaky detect` and `flaky chaos`, and each finds exactly the
// fixture's findings of its kinds. On jacoco, also: the fork record holds
// JaCoCo's agent (which verify's JVMs then start), and nothing after the
// Surefire run touched the build's target/jacoco.exec (see
// checkCoverageUntouched).
func TestCoexistsWithBuildAgents(t *testing.T) {
	t.Parallel()
	needsTools(t)
	for _, name := range []string{"jacoco", "mockito-inline"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := copyFixture(t, name)
			e := readExpected(t, dir)
			var plainCSV []string
			if name == "jacoco" {
				plainCSV = plainCoverage(t, dir)
			}
			flakyInit(t, dir)
			// No -Dflaky.budget: verify sizes it from the fork's run measured here.
			out, code := mvnRun(t, dir, "-Pflaky", "clean", "verify", "-Dflaky.gate=off")
			if code != 0 {
				t.Fatalf("mvn -Pflaky verify with the gate off failed:\n%s", tail(out))
			}
			r, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			checkODFindings(t, "verify", r.Findings, e)
			if name == "jacoco" {
				checkJacocoRecorded(t, dir)
				checkCoverageUntouched(t, dir, plainCSV)
			}

			var stdout, stderr bytes.Buffer
			cmd := exec.Command(flakyBin(t), "detect", "--module", dir, "--no-state", "--no-invariants", "--strategy", "orders")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if code := exitCode(cmd.Run()); code != 1 {
				t.Fatalf("flaky detect exited %d, want 1:\n%s%s", code, stdout.String(), stderr.String())
			}
			if r, err = report.Read(filepath.Join(dir, "target", "flaky", "report.json")); err != nil {
				t.Fatal(err)
			}
			checkODFindings(t, "detect", r.Findings, e)

			ce := readChaosExpected(t, dir)
			ce.Findings = slices.DeleteFunc(ce.Findings, func(f report.Finding) bool { return f.Kind != report.API })
			rep, chaosOut := chaosReport(t, flakyBin(t), dir, "chaos", "--module", dir)
			checkAPIFindings(t, rep.Findings, ce)
			if n := len(slices.DeleteFunc(slices.Clone(rep.Findings), func(f report.Finding) bool { return f.Kind != report.API })); n != len(ce.Findings) {
				t.Errorf("chaos: %d api findings, want %d:\n%s", n, len(ce.Findings), chaosOut)
			}
			if name == "jacoco" {
				checkCoverageUntouched(t, dir, nil)
			}
		})
	}
}

// checkODFindings compares the order-dependence findings (every kind but
// api) with expected.json's: kinds, tests, polluters, setters, cleaners,
// and the confirmed roots of the polluted state where verify names it.
func checkODFindings(t *testing.T, command string, findings []report.Finding, e expected) {
	t.Helper()
	var got, want []string
	for _, f := range findings {
		if f.Kind != report.API {
			got = append(got, fmt.Sprintf("%s %s polluters=%s setters=%s cleaners=%s", f.Kind, f.Test, groupSet(f.Polluters), groupSet(f.Setters), groupSet(f.Cleaners)))
		}
	}
	for _, f := range e.Findings {
		if f.Kind != string(report.API) {
			want = append(want, fmt.Sprintf("%s %s polluters=%s setters=%s cleaners=%s", f.Kind, f.Test, groupSet(f.Polluters), groupSet(f.Setters), groupSet(f.Cleaners)))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s findings\n got %q\nwant %q", command, got, want)
	}
	if command != "verify" {
		return
	}
	for _, w := range e.Findings {
		i := slices.IndexFunc(findings, func(f report.Finding) bool { return f.Test == w.Test && string(f.Kind) == w.Kind })
		if len(w.PollutedState) == 0 || i < 0 {
			continue
		}
		if got, want := confirmedRoots(findings[i].PollutedState), confirmedRoots(w.PollutedState); !slices.Equal(got, want) {
			t.Errorf("verify: %s %s: confirmed polluted roots %q, want %q", w.Kind, w.Test, got, want)
		}
	}
}

// checkJacocoRecorded checks that the fork record holds JaCoCo's agent, so
// that verify's JVMs ran with it: else the jacoco fixture tests nothing.
func checkJacocoRecorded(t *testing.T, dir string) {
	t.Helper()
	records, err := surefire.ReadForkRecords(filepath.Join(dir, "target"))
	if err != nil || len(records) != 1 {
		t.Fatalf("fork records %v, %v", records, err)
	}
	if !slices.ContainsFunc(records[0].JVMArgs, func(a string) bool {
		return strings.HasPrefix(a, "-javaagent:") && strings.Contains(a, "org.jacoco.agent") && strings.Contains(a, "jacoco.exec")
	}) {
		t.Fatalf("the fork record's JVM arguments %q lack JaCoCo's agent", records[0].JVMArgs)
	}
}

// plainCoverage runs a plain `mvn verify` (no flaky profile) in dir and
// returns the lines of its JaCoCo CSV report, sorted.
func plainCoverage(t *testing.T, dir string) []string {
	t.Helper()
	out, code := mvnRun(t, dir, "verify")
	if code != 0 {
		t.Fatalf("plain mvn verify failed:\n%s", tail(out))
	}
	return coverageCSV(t, dir)
}

// coverageCSV returns the lines of dir's JaCoCo CSV report, sorted.
func coverageCSV(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "target", "site", "jacoco", "jacoco.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	slices.Sort(lines)
	return lines
}

// checkCoverageUntouched checks the build's coverage: target/jacoco.exec
// is byte for byte what the Surefire run left (the copy the fixture keeps
// in target/after-surefire): neither verify's JVMs nor detect's nor chaos's
// wrote to it. And, when plainCSV is given, the JaCoCo report on the
// project's classes is the one a plain `mvn verify` writes. The exec file
// itself cannot equal a plain build's: it starts with a session of its own
// (a host name, a random number, start and dump times), and it also holds
// the tooling classes the fork ran, which the flaky profile's Surefire
// provider changes.
func checkCoverageUntouched(t *testing.T, dir string, plainCSV []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "target", "jacoco.exec"))
	if err != nil {
		t.Fatal(err)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "target", "after-surefire", "jacoco.exec"))
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) == 0 || !bytes.Equal(data, kept) {
		t.Errorf("target/jacoco.exec (%d bytes) is not what the Surefire run left (%d bytes): flaky's JVMs wrote to it", len(data), len(kept))
	}
	if plainCSV == nil {
		return
	}
	if got := coverageCSV(t, dir); !slices.Equal(got, plainCSV) {
		t.Errorf("JaCoCo's report under -Pflaky\n%s\ndiffers from the plain build's\n%s", strings.Join(got, "\n"), strings.Join(plainCSV, "\n"))
	}
}

// slowAgentSource is an agent that stands for one that instruments every
// class on a busy machine: it delays the loading of the flaky agent's frame
// codec, which the handshake needs, by the milliseconds of its options.
// The flaky agent loads the codec before it connects, so the delay comes
// before the driver's clock (3 s for the hello) and the agent's own start.
const slowAgentSource = `import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

public final class SlowAgent {
    public static void premain(String args, Instrumentation inst) {
        inst.addTransformer(new ClassFileTransformer() {
            @Override
            public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
                if ("dev/flaky/agent/Frames".equals(name)) {
                    try {
                        Thread.sleep(Long.parseLong(args));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return null;
            }
        });
    }
}
`

// TestSlowAgentBeforeFlakys runs a test in a JVM that starts the build's
// agent first, one that holds up the loading of the flaky agent's classes
// by 12 s (see slowAgentSource), more than the agent once allowed for its
// whole handshake (10 s from before it connected, the hello sent after the
// codec loaded): the JVM still connects, and the test passes.
func TestSlowAgentBeforeFlakys(t *testing.T) {
	t.Parallel()
	p := fixture(t, "junit4")
	setup := *p.setup
	setup.ArgLine = append(slices.Clone(setup.ArgLine), "-javaagent:"+slowAgentJar(t)+"=12000")
	l, err := newLauncher(&setup, javaBin(), launcher.Options{RunTimeout: jvmSafetyNet})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	test := p.expected.Fixture.Stable[0]
	r := runOrders(t, l, []string{test})[0]
	relaunched := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "did not connect") })
	if len(r.Tests) != 1 || r.Tests[0].Outcome != launcher.Pass || relaunched {
		t.Fatalf("%s beside a slow agent: %s, notes %q\n%s", test, describe(r), r.Notes, r.Output)
	}
}

// slowAgentJar compiles slowAgentSource into an agent jar and returns its path.
func slowAgentJar(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "SlowAgent.java"), []byte(slowAgentSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("javac", "--release", "8", "-d", dir, filepath.Join(dir, "SlowAgent.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	jar := filepath.Join(dir, "slow-agent.jar")
	f, err := os.Create(jar)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	files := map[string]string{"META-INF/MANIFEST.MF": "Manifest-Version: 1.0\nPremain-Class: SlowAgent\n"}
	classes, _ := filepath.Glob(filepath.Join(dir, "SlowAgent*.class"))
	for _, c := range classes {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(c)] = string(data)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return jar
}
