package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/report"
)

// mavenDists is where scripts/setup.sh unpacks the Maven versions the
// end-to-end tests build with besides the one on the PATH.
func mavenDists() string {
	if d := os.Getenv("FLAKY_MAVEN_DISTS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "flaky-e2e", "maven")
}

// otherMaven returns the mvn launcher of the unpacked distribution whose
// version starts with prefix (the last by name when there are several). It
// skips the test when there is none, and fails it when FLAKY_NEED_MAVENS is
// set, as CI does.
func otherMaven(t *testing.T, prefix string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(mavenDists(), "apache-maven-"+prefix+"*", "bin", "mvn"))
	if len(found) == 0 {
		msg := "no Maven " + prefix + "x in " + mavenDists() + " (FLAKY_MAVEN_DISTS): scripts/setup.sh fetches it"
		if os.Getenv("FLAKY_NEED_MAVENS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	slices.Sort(found)
	return found[len(found)-1]
}

// TestVerifyOnOtherMavens runs `flaky init` and `mvn -Pflaky verify` with
// Maven 3.9 on the testng6 fixture (exact findings, as
// TestVerifyRunsOrderDependenceAnalysis checks them on the PATH's Maven; the
// order generators alone, which keeps the build short; Surefire 2.22.2, the
// oldest the provider supports, with four findings of three kinds), and
// with Maven 4 on the reactor fixture rewritten to model 4.1.0: modules as
// <subprojects>, children whose <parent/> names no coordinates. One build per
// Maven version.
func TestVerifyOnOtherMavens(t *testing.T) {
	t.Parallel()
	t.Run("maven-3.9/testng6", func(t *testing.T) {
		t.Parallel()
		mvnBin := otherMaven(t, "3.9.")
		verifyFindsExpectedWith(t, mvnBin, copyFixture(t, "testng6"), "orders", false)
	})
	t.Run("maven-4/reactor-model-4.1.0", func(t *testing.T) {
		t.Parallel()
		mvnBin := otherMaven(t, "4.")
		needsTools(t)
		dir := copyFixture(t, "reactor")
		toModel410(t, dir)
		flakyInit(t, dir)
		out, code := mvnRunWith(t, mvnBin, dir, nil, "-Pflaky", "verify", "-Dflaky.gate=off")
		if code != 0 {
			t.Fatalf("mvn -Pflaky verify on Maven 4 failed:\n%s", tail(out))
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
		const flakyTest = "fixture.reactor.core.ExchangeRateTest#quoteServiceAnswers"
		if len(core.Findings) != 1 || core.Findings[0].Test != flakyTest || core.Findings[0].Kind != report.NOD || core.Stats.Tests != 3 {
			data, _ := json.MarshalIndent(core.Findings, "", " ")
			t.Errorf("core: %d tests, findings %s", core.Stats.Tests, data)
		}
		// Maven 4 prints the lines of the processes that plugins start with a prefix.
		if !strings.Contains(out, "[flaky] NEW   nod        "+flakyTest) {
			t.Errorf("the build output does not name the flaky test:\n%s", tail(out))
		}
	})
}

// toModel410 rewrites the poms under dir to Maven 4's model 4.1.0: the
// namespace and modelVersion, <modules> as <subprojects>, and each <parent>
// as <parent/> (Maven 4 infers it from the pom one directory up).
func toModel410(t *testing.T, dir string) {
	t.Helper()
	poms, _ := filepath.Glob(filepath.Join(dir, "*", "pom.xml"))
	poms = append(poms, filepath.Join(dir, "pom.xml"))
	parent := regexp.MustCompile(`(?s)<parent>.*?</parent>`)
	for _, pom := range poms {
		data, err := os.ReadFile(pom)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.NewReplacer("POM/4.0.0", "POM/4.1.0", "maven-4.0.0.xsd", "maven-4.1.0.xsd",
			"<modelVersion>4.0.0</modelVersion>", "<modelVersion>4.1.0</modelVersion>",
			"<modules>", "<subprojects>", "</modules>", "</subprojects>",
			"<module>", "<subproject>", "</module>", "</subproject>").Replace(string(data))
		s = parent.ReplaceAllString(s, "<parent/>")
		if err := os.WriteFile(pom, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
