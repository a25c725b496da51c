package e2e

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"

	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// mvnRun runs Maven in dir with flaky's binary for the profile and returns
// its combined output and exit status.
func mvnRun(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	return mvnRunEnv(t, dir, nil, args...)
}

// mvnRunEnv is mvnRun with variables added to Maven's environment.
func mvnRunEnv(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	return mvnRunWith(t, "mvn", dir, env, args...)
}

// mvnRunWith is mvnRunEnv with the Maven launcher mvnBin.
func mvnRunWith(t *testing.T, mvnBin, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	bin := flakyBin(t)
	cmd := exec.Command(mvnBin, append([]string{"-B", "-Dstyle.color=never", "-Dflaky.bin=" + bin}, args...)...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), exitCode(err)
}

func flakyInit(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command(flakyBin(t), "init", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("flaky init %s: %v\n%s", dir, err, out)
	}
}

// TestInitIsIdempotentOnFixtures adds the profile to real fixture poms: only the
// profile is added, a second run changes no byte, --check agrees, --remove restores.
func TestInitIsIdempotentOnFixtures(t *testing.T) {
	t.Parallel()
	needsTools(t)
	for _, name := range []string{"junit4", "jupiter5", "reactor"} {
		t.Run(name, func(t *testing.T) {
			dir := copyFixture(t, name)
			pom := filepath.Join(dir, "pom.xml")
			before, _ := os.ReadFile(pom)
			flakyInit(t, dir)
			once, _ := os.ReadFile(pom)
			if bytes.Equal(before, once) || !bytes.Contains(once, []byte("<id>flaky</id>")) {
				t.Fatal("init did not add the flaky profile")
			}
			if !onlyInserted(before, once) {
				t.Error("init changed more than it inserted")
			}
			flakyInit(t, dir)
			twice, _ := os.ReadFile(pom)
			if !bytes.Equal(once, twice) {
				t.Error("second init changed the pom")
			}
			if out, err := exec.Command(flakyBin(t), "init", "--check", dir).CombinedOutput(); err != nil {
				t.Errorf("init --check: %v\n%s", err, out)
			}
			if out, err := exec.Command(flakyBin(t), "init", "--remove", dir).CombinedOutput(); err != nil {
				t.Fatalf("init --remove: %v\n%s", err, out)
			}
			if after, _ := os.ReadFile(pom); !bytes.Equal(before, after) {
				t.Error("init --remove did not restore the pom")
			}
		})
	}
}

// TestReproduceOrderWithMaven runs a failing and a passing order under plain
// Maven through the flaky provider (-Dflaky.order) on both Surefire generations.
func TestReproduceOrderWithMaven(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"junit4", "jupiter5"} {
		for _, sf := range []string{"2.22.2", "3.5.4"} {
			t.Run(name+"/surefire-"+sf, func(t *testing.T) {
				needsTools(t)
				dir := copyFixture(t, name)
				e := readExpected(t, dir)
				flakyInit(t, dir)
				var v finding
				for _, f := range e.ofKind("od-victim") {
					if len(f.Cleaners) > 0 {
						v = f
					}
				}
				orderFile := filepath.Join(dir, "failing-order.txt")
				os.WriteFile(orderFile, []byte(strings.Join(join(v.Polluters[0], []string{v.Test}), "\n")+"\n"), 0o644)
				out, code := mvnRun(t, dir, "-Pflaky", "test", "-Dsurefire.version="+sf, "-Dflaky.order="+orderFile, "-Dflaky.testFailureIgnore=false")
				if code == 0 {
					t.Fatalf("the failing order passed under Maven:\n%s", tail(out))
				}
				cases, err := surefire.ReadReports(filepath.Join(dir, "target", "surefire-reports"))
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]surefire.Outcome{}
				for _, c := range cases {
					got[c.ID()] = c.Outcome
				}
				if len(got) != 2 || got[v.Test] != surefire.Fail || got[v.Polluters[0][0]] != surefire.Pass {
					t.Errorf("surefire reports %v; want only the polluter passing and the victim failing", got)
				}

				os.WriteFile(orderFile, []byte(strings.Join(join(v.Polluters[0], v.Cleaners[0], []string{v.Test}), "\n")+"\n"), 0o644)
				if out, code := mvnRun(t, dir, "-Pflaky", "test", "-Dsurefire.version="+sf, "-Dflaky.order="+orderFile, "-Dflaky.testFailureIgnore=false"); code != 0 {
					t.Errorf("the passing order failed under Maven:\n%s", tail(out))
				}
			})
		}
	}
}

// TestVerifyGatesReactor runs the whole flow on the reactor fixture: init,
// mvn -Pflaky verify finds the new flaky test and fails, baseline accept, passes.
func TestVerifyGatesReactor(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "reactor")
	if out, code := mvnRun(t, dir, "clean", "verify"); code != 0 {
		t.Fatalf("plain mvn verify fails without the profile:\n%s", tail(out))
	}
	flakyInit(t, dir)
	if out, code := mvnRun(t, dir, "clean", "verify"); code != 0 {
		t.Fatalf("mvn verify without -Pflaky fails after flaky init:\n%s", tail(out))
	}
	if _, err := os.Stat(filepath.Join(dir, "core", "target", "flaky")); err == nil {
		t.Error("flaky ran without -Pflaky")
	}

	stepSummary := filepath.Join(t.TempDir(), "step-summary.md")
	out, code := mvnRunEnv(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + stepSummary}, "-Pflaky", "clean", "verify")
	if code == 0 {
		t.Fatalf("mvn -Pflaky verify passed with a new flaky test:\n%s", tail(out))
	}
	const flakyTest = "fixture.reactor.core.ExchangeRateTest#quoteServiceAnswers"
	if !strings.Contains(out, "NEW") || !strings.Contains(out, flakyTest) {
		t.Errorf("the build output does not name the new flaky test:\n%s", tail(out))
	}
	// The gate fails the build with flaky's message, no stack trace; the
	// error itself, after BUILD FAILURE, names the new test and how to
	// reproduce it (whatever the build printed since verify's lines).
	_, failure, _ := strings.Cut(out, "BUILD FAILURE")
	for _, want := range []string{
		":verify (default) on project reactor-core: flaky: the flaky gate failed in module core: 1 new flaky test(s) not in .flaky/baseline.json\n",
		"[ERROR]   NEW   nod        " + flakyTest + "\n",
		"[ERROR]         reproduce: mvn -Pflaky test ",
		"[ERROR] fix the new flaky tests, or accept them with `flaky baseline accept`; report: " + filepath.Join(dir, "core", "target", "flaky", "report.json") + "\n",
	} {
		if !strings.Contains(failure, want) {
			t.Errorf("the build's error lacks %q:\n%s", want, tail(out))
		}
	}
	if strings.Contains(out, "ExecuteException") || strings.Contains(out, "Command execution failed") || strings.Contains(out, "\tat ") || strings.Contains(out, "    at ") {
		t.Errorf("the gate's failure is not flaky's short message:\n%s", tail(out))
	}
	web, err := report.Read(filepath.Join(dir, "web", "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(web.Findings) != 0 || web.Stats.Tests != 2 {
		t.Errorf("web report: %d findings, %d tests; want 0 and 2", len(web.Findings), web.Stats.Tests)
	}
	core, err := report.Read(filepath.Join(dir, "core", "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(core.Findings) != 1 || core.Findings[0].Test != flakyTest || core.Findings[0].Kind != report.NOD {
		data, _ := json.MarshalIndent(core.Findings, "", " ")
		t.Fatalf("core findings: %s", data)
	}
	if r := core.Findings[0].Reproduce; !strings.Contains(r, "-Dflaky.order=") || !strings.Contains(r, "-pl core") {
		t.Errorf("reproduce command %q", r)
	}

	// The Surefire-compatible report parses with a JUnit XML reader and has the flaky entries.
	xmlDir := filepath.Join(dir, "core", "target", "flaky", "surefire")
	if _, err := junit.IngestDir(xmlDir); err != nil {
		t.Fatalf("JUnit XML reader: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(xmlDir, "TEST-fixture.reactor.core.ExchangeRateTest.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Cases []struct {
			Name  string `xml:"name,attr"`
			Flaky []struct {
				Message string `xml:"message,attr"`
			} `xml:"flakyFailure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(data, &suite); err != nil {
		t.Fatal(err)
	}
	if len(suite.Cases) != 1 || suite.Cases[0].Name != "quoteServiceAnswers" || len(suite.Cases[0].Flaky) == 0 {
		t.Errorf("surefire XML: %s", data)
	}

	checkPublished(t, dir, out, stepSummary, flakyTest)

	if out, code := mvnRun(t, dir, "-Pflaky", "clean", "verify", "-Dflaky.gate=off"); code != 0 {
		t.Errorf("gate off fails:\n%s", tail(out))
	}
	if out, err := exec.Command(flakyBin(t), "baseline", "accept", dir).CombinedOutput(); err != nil {
		t.Fatalf("baseline accept: %v\n%s", err, out)
	}
	// flaky run: the same build, with live progress from the forks' agents.
	cmd := exec.Command(flakyBin(t), "run", dir, "--", "-B", "clean")
	out2, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("flaky run fails after baseline accept: %v\n%s", err, tail(string(out2)))
	}
	for _, want := range []string{"[flaky] fork 1: running 2 tests", "[flaky] fork 2: running 3 tests", "[flaky] known"} {
		if !strings.Contains(string(out2), want) {
			t.Errorf("flaky run output lacks %q:\n%s", want, tail(string(out2)))
		}
	}
}

// onlyInserted reports whether after is before with one run of bytes inserted.
func onlyInserted(before, after []byte) bool {
	p := 0
	for p < len(before) && before[p] == after[p] {
		p++
	}
	return bytes.HasSuffix(after, before[p:])
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	return strings.Join(lines, "\n")
}
