package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/maven/mvn"
	"github.com/flakyhq/flaky/internal/report"
)

// TestDistInstallsThroughMaven installs flaky as a team with only a JDK and
// Maven would: `make dist` for this platform, its Maven artifacts deployed
// into a file repository; then a fresh HOME whose settings.xml names that
// repository (and the local repository of this machine, so that Maven
// needs no network), no flaky on the PATH, `flaky init` from the unpacked
// archive, the plugin it installed taken out of the local repository
// again (a CI machine never ran init), and `mvn -Pflaky verify`, which gets
// the plugin and the binary through Maven and finds junit4's flaky tests.
func TestDistInstallsThroughMaven(t *testing.T) {
	t.Parallel()
	needsTools(t)
	localRepo := mvn.LocalRepository()
	// A version of its own, so that what Maven and install-artifacts put in
	// the shared local repository is this test's alone, and removed after.
	version := fmt.Sprintf("0.0.0-e2e-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		dirs, _ := filepath.Glob(filepath.Join(localRepo, "dev", "flaky", "*", version))
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	})
	tmp := t.TempDir()
	dist, fileRepo := filepath.Join(tmp, "dist"), filepath.Join(tmp, "repo")
	make := exec.Command("make", "--no-print-directory", "dist", "PLATFORMS=host", "VERSION="+version, "DIST="+dist, "REPO="+fileRepo)
	make.Dir = repoRoot(t)
	if out, err := make.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, tail(string(out)))
	}
	name := "flaky-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH
	checkSum(t, dist, name+".tar.gz")
	// Maven resolves the profile's plugin before the build runs: the file
	// repository has it, with the provider and agent it installs.
	for _, a := range []string{mvn.PluginArtifactID, "flaky-surefire-provider", "flaky-agent"} {
		if _, err := os.Stat(filepath.Join(fileRepo, "dev", "flaky", a, version, a+"-"+version+".jar")); err != nil {
			t.Errorf("make dist did not deploy %s: %v", a, err)
		}
	}
	unpacked := filepath.Join(tmp, "unpacked")
	if err := os.Mkdir(unpacked, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xzf", filepath.Join(dist, name+".tar.gz"), "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	bin := filepath.Join(unpacked, name, "flaky")

	home := filepath.Join(tmp, "home")
	writeSettings(t, filepath.Join(home, ".m2", "settings.xml"), localRepo, fileRepo)
	// Java takes user.home from the password database, not HOME: Maven
	// gets the fresh one as a JVM option.
	env := append(os.Environ(), "HOME="+home, "PATH="+pathWithoutFlaky(),
		"MAVEN_OPTS="+strings.TrimSpace(os.Getenv("MAVEN_OPTS")+" -Duser.home="+home))

	dir := copyFixture(t, "junit4")
	e := readExpected(t, dir)
	initCmd := exec.Command(bin, "init", dir)
	initCmd.Env = env
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("flaky init: %v\n%s", err, out)
	}
	// init installed the plugin into the local repository; a CI machine
	// that did not run init gets it from the build's plugin repositories.
	if err := os.RemoveAll(filepath.Join(localRepo, "dev", "flaky", mvn.PluginArtifactID, version)); err != nil {
		t.Fatal(err)
	}
	verify := exec.Command("mvn", "-B", "-Dstyle.color=never", "-Pflaky", "verify", "-Dflaky.gate=off", "-Dflaky.seed="+pipelineSeed)
	verify.Dir, verify.Env = dir, env
	out, err := verify.CombinedOutput()
	if err != nil {
		t.Fatalf("mvn -Pflaky verify: %v\n%s", err, tail(string(out)))
	}
	// The binary the profile ran is the one Maven resolved from the file
	// repository, of the version init pinned.
	fetched := filepath.Join(dir, "target", filepath.FromSlash(mvn.FetchedBinary))
	if got, err := exec.Command(fetched, "version", "--maven").Output(); err != nil || strings.TrimSpace(string(got)) != version {
		t.Fatalf("%s version --maven: %q, %v; want %s", fetched, got, err, version)
	}
	if !strings.Contains(string(out), "dev.flaky:flaky:"+version) && !strings.Contains(string(out), "flaky-"+version+"-") {
		t.Errorf("the build does not show Maven getting dev.flaky:flaky:%s:\n%s", version, tail(string(out)))
	}
	r, err := report.Read(filepath.Join(dir, "target", "flaky", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkVerifyFindings(t, r, e)
}

// checkSum checks that dist's SHA256SUMS has the archive's SHA-256.
func checkSum(t *testing.T, dist, archive string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dist, archive))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	sums, err := os.Open(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	want := hex.EncodeToString(h.Sum(nil)) + "  " + archive
	for s := bufio.NewScanner(sums); s.Scan(); {
		if s.Text() == want {
			return
		}
	}
	t.Errorf("SHA256SUMS lacks %q", want)
}

// pathWithoutFlaky is PATH without the directories that hold a flaky.
func pathWithoutFlaky() string {
	var path []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "flaky")); err != nil {
			path = append(path, d)
		}
	}
	return strings.Join(path, string(os.PathListSeparator))
}

// mavenSettings is the part of Maven's settings.xml the test writes.
type mavenSettings struct {
	XMLName         xml.Name       `xml:"settings"`
	LocalRepository string         `xml:"localRepository"`
	Profiles        []mavenProfile `xml:"profiles>profile"`
	ActiveProfiles  []string       `xml:"activeProfiles>activeProfile"`
}

type mavenProfile struct {
	ID                 string            `xml:"id"`
	Repositories       []mavenRepository `xml:"repositories>repository"`
	PluginRepositories []mavenRepository `xml:"pluginRepositories>pluginRepository"`
}

type mavenRepository struct {
	ID  string `xml:"id"`
	URL string `xml:"url"`
}

// writeSettings writes a settings.xml with the local repository localRepo
// and the file repository fileRepo as a repository and plugin repository of
// every build.
func writeSettings(t *testing.T, path, localRepo, fileRepo string) {
	t.Helper()
	s := mavenSettings{
		LocalRepository: localRepo,
		Profiles: []mavenProfile{{ID: "flaky-dist", Repositories: []mavenRepository{{ID: "flaky-dist", URL: "file://" + filepath.ToSlash(fileRepo)}},
			PluginRepositories: []mavenRepository{{ID: "flaky-dist", URL: "file://" + filepath.ToSlash(fileRepo)}}}},
		ActiveProfiles: []string{"flaky-dist"},
	}
	data, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append([]byte(xml.Header), data...), 0o644); err != nil {
		t.Fatal(err)
	}
}
