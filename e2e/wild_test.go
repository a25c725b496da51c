package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/maven/surefire"
	"github.com/flakyhq/flaky/internal/report"
)

// TestDetectModuleWithSiblingDependency analyses one module of a reactor
// whose sibling it depends on was never installed: flaky builds it from
// the reactor root, finds the expected victim, and its reproduce command
// (which first adds the missing profile) fails the victim under plain
// Maven.
func TestDetectModuleWithSiblingDependency(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "reactor-deps")
	e := readExpected(t, dir)
	bin := flakyBin(t)
	cmd := exec.Command(bin, "detect", "--module", filepath.Join(dir, "service"))
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 1 {
		t.Fatalf("detect exit %d, want 1 (findings):\n%s", code, out)
	}
	if !strings.Contains(string(out), "-pl service -am test-compile") {
		t.Errorf("detect did not build the module from the reactor root:\n%s", out)
	}
	rep, err := report.Read(filepath.Join(dir, "service", "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Module != e.Module || len(rep.Findings) != len(e.Findings) {
		t.Fatalf("report: module %q, %d findings; want %q and %d", rep.Module, len(rep.Findings), e.Module, len(e.Findings))
	}
	f, want := rep.Findings[0], e.Findings[0]
	if f.Test != want.Test || string(f.Kind) != want.Kind || len(f.Polluters) != 1 || !slices.Equal(f.Polluters[0], want.Polluters[0]) {
		t.Fatalf("finding %s %s polluters %v; want %s %s %v", f.Kind, f.Test, f.Polluters, want.Kind, want.Test, want.Polluters)
	}
	// The polluted state, in the dependency's static list, is named, confirmed and printed.
	if !slices.Equal(f.PollutedState, want.PollutedState) {
		t.Errorf("pollutedState %+v, want %+v", f.PollutedState, want.PollutedState)
	}
	if line := want.Test + "  polluters [" + want.Polluters[0][0] + "]; state " + want.PollutedState[0].Root; !strings.Contains(string(out), line) {
		t.Errorf("detect did not print %q:\n%s", line, out)
	}
	prefix := "cd " + dir + " && flaky init && mvn -Pflaky test -pl service -am "
	if !strings.HasPrefix(f.Reproduce, prefix) {
		t.Fatalf("reproduce %q, want it to start with %q", f.Reproduce, prefix)
	}

	// The printed command, as a user would paste it (flaky on PATH).
	run := exec.Command("sh", "-c", f.Reproduce+" -B -Dstyle.color=never")
	run.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	rout, err := run.CombinedOutput()
	if exitCode(err) == 0 {
		t.Fatalf("the reproduce command passed:\n%s", tail(string(rout)))
	}
	cases, err := surefire.ReadReports(filepath.Join(dir, "service", "target", "surefire-reports"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]surefire.Outcome{}
	for _, c := range cases {
		got[c.ID()] = c.Outcome
	}
	if got[want.Test] != surefire.Fail || got[want.Polluters[0][0]] != surefire.Pass {
		t.Errorf("surefire reports %v; want the polluter passing and the victim failing\n%s", got, tail(string(rout)))
	}
}

// TestInitAggregatorWithoutSurefirePin runs flaky init at an aggregator its
// modules do not inherit from, in a project that leaves Surefire to Maven's
// default: the profile goes where it takes effect, pins a supported
// Surefire and says so, and mvn -Pflaky verify runs flaky in every module.
func TestInitAggregatorWithoutSurefirePin(t *testing.T) {
	t.Parallel()
	needsTools(t)
	dir := copyFixture(t, "aggregator")
	root, _ := os.ReadFile(filepath.Join(dir, "pom.xml"))
	out, err := exec.Command(flakyBin(t), "init", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("flaky init: %v\n%s", err, out)
	}
	for _, pom := range []string{"build/pom.xml", "app/pom.xml"} {
		path := filepath.Join(dir, pom)
		for _, want := range []string{
			"added the flaky profile to " + path,
			path + ": the profile pins maven-surefire-plugin 3.5.4 (flaky supports 2.22.x, or 3.0.0-M6 and later)",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("init output lacks %q:\n%s", want, out)
			}
		}
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "pom.xml")); !bytes.Equal(now, root) {
		t.Error("init changed the aggregator, which no module inherits from")
	}
	if lib, _ := os.ReadFile(filepath.Join(dir, "lib", "pom.xml")); bytes.Contains(lib, []byte("<id>flaky</id>")) {
		t.Error("init put the profile into lib, which gets it from build/pom.xml")
	}

	mout, code := mvnRun(t, dir, "-Pflaky", "verify")
	if code != 0 {
		t.Fatalf("mvn -Pflaky verify failed:\n%s", tail(mout))
	}
	for _, module := range []string{"lib", "app"} {
		if !strings.Contains(mout, "maven-surefire-plugin:3.5.4:test (default-test) @ aggregator-"+module) {
			t.Errorf("%s did not run the pinned Surefire:\n%s", module, tail(mout))
		}
		rep, err := report.Read(filepath.Join(dir, module, "target", "flaky", "report.json"))
		if err != nil {
			t.Errorf("%s: %v", module, err)
			continue
		}
		if len(rep.Findings) != 0 || rep.Stats.Tests == 0 {
			t.Errorf("%s: %d findings, %d tests; want none and some", module, len(rep.Findings), rep.Stats.Tests)
		}
	}
	if strings.Contains(mout, "flaky: installed") {
		t.Error("install-artifacts reported its work outside --debug")
	}
}
