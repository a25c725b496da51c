package mvn

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/safewrite"
)

// sharedClasspathEnv are the environment variables that can change what
// Maven resolves: its options and arguments (user properties, settings
// files) and the JDK it runs on (JDK-activated profiles).
var sharedClasspathEnv = []string{"MAVEN_OPTS", "MAVEN_ARGS", "MAVEN_CONFIG", "M2_HOME", "MAVEN_HOME", "JAVA_HOME"}

// sharedClasspathFile names the file in flaky's cache directory dir that
// keeps the test class path Maven resolved for a build, so that the same
// build in another folder (a second clone or worktree, a CI checkout that
// keeps flaky's cache as it keeps the local repository) takes it without
// running Maven, as the module's own cache (target/flaky/cache) does in its
// folder. The name hashes everything that decides what Maven resolves
// besides the repositories' contents, which the module's cache does not
// watch either: the poms of the chain by their path from the build's root
// and their content, the command's profiles and properties, the Maven
// installation (a wrapper's properties, else the mvn executable and its
// global settings), the user's settings, the build's .mvn configuration,
// the JDK on PATH and sharedClasspathEnv. It returns "" when the class path
// may depend on the folder: dir is "", the module is built within a reactor
// (its siblings' classes are on the class path), or a profile of the chain
// is activated by a file's presence.
func sharedClasspathFile(dir string, chain []*pomFile, m *maven) string {
	if dir == "" || len(m.project) > 0 {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "flaky test class path 1\x00")
	for _, a := range m.extra {
		fmt.Fprintf(h, "arg %s\x00", a)
	}
	for _, p := range chain {
		if activatedByFile(p) {
			return ""
		}
		rel, err := filepath.Rel(m.dir, p.path)
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "pom %s\x00%d\x00", filepath.ToSlash(rel), len(p.content))
		h.Write(p.content)
	}
	if filepath.Base(m.cmd) == "mvnw" {
		hashFile(h, "wrapper", filepath.Join(filepath.Dir(m.cmd), ".mvn", "wrapper", "maven-wrapper.properties"))
	} else {
		mvn := resolvedCommand(m.cmd)
		fmt.Fprintf(h, "mvn %s\x00", mvn)
		hashFile(h, "global settings", filepath.Join(filepath.Dir(filepath.Dir(mvn)), "conf", "settings.xml"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		hashFile(h, "user settings", filepath.Join(home, ".m2", "settings.xml"))
	}
	for _, f := range []string{"maven.config", "extensions.xml", "jvm.config"} {
		hashFile(h, f, filepath.Join(m.dir, ".mvn", f))
	}
	fmt.Fprintf(h, "java %s\x00", resolvedCommand("java"))
	for _, v := range sharedClasspathEnv {
		fmt.Fprintf(h, "env %s=%s\x00", v, os.Getenv(v))
	}
	return filepath.Join(dir, "classpath", hex.EncodeToString(h.Sum(nil))[:24]+".txt")
}

// activatedByFile reports whether a profile of the pom is activated by a
// file's presence or absence, which is relative to the folder.
func activatedByFile(p *pomFile) bool {
	if p.project.Profiles == nil {
		return false
	}
	for _, pr := range *p.project.Profiles {
		if pr.Activation != nil && pr.Activation.File != nil {
			return true
		}
	}
	return false
}

// resolvedCommand is the executable a command name runs, with symbolic
// links resolved; the name itself when it is not found.
func resolvedCommand(name string) string {
	path, err := exec.LookPath(name)
	if err != nil {
		return name
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// hashFile adds what a file is (label) and its content to h; a missing or
// unreadable file (not a regular file, more than maxPomSize) adds its label
// alone.
func hashFile(h hash.Hash, label, path string) {
	fmt.Fprintf(h, "file %s\x00", label)
	if data, err := saferead.ReadFile(path, maxPomSize, "a Maven configuration file"); err == nil {
		fmt.Fprintf(h, "%d\x00", len(data))
		h.Write(data)
	}
}

// shareable reports whether a class path may serve the same build in
// another folder: every entry, cleaned and with its links followed, lies
// under the local Maven repository repo (also with its links followed) and
// not in root, the folder of the build, and none is a snapshot, whose own
// dependencies may have changed since (Maven resolving in a new folder
// would see the change). An entry anywhere else (a system-scoped jar of the
// project, a systemPath under ${basedir} or beside it, a jar reached
// through a linked module folder) names the folder it was resolved in, so
// another checkout of the same poms would run this checkout's file.
func shareable(entries []string, root, repo string) bool {
	if !filepath.IsAbs(repo) {
		return false // relative to a folder Maven's own settings choose
	}
	repo, err := realPath(repo)
	if err != nil {
		return false
	}
	realRoot, err := realPath(root)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if strings.Contains(filepath.Base(e), "-SNAPSHOT") {
			return false
		}
		real, err := realPath(e)
		if err != nil || !within(repo, real) || within(realRoot, real) {
			return false
		}
	}
	return true
}

// realPath is path made absolute and cleaned, with every link followed; an
// error when it does not exist.
func realPath(path string) (string, error) {
	if path == "" {
		return "", errors.New("no path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// sharedRepository is the local Maven repository the shared class path's
// entries must lie in: the maven.repo.local property among the command's
// arguments, relative to the build's folder as Maven takes it, else the
// user's (see LocalRepository).
func sharedRepository(m *maven) string {
	for _, a := range m.extra {
		if v, ok := strings.CutPrefix(a, "-Dmaven.repo.local="); ok {
			if !filepath.IsAbs(v) {
				v = filepath.Join(m.dir, v)
			}
			return v
		}
	}
	return LocalRepository()
}

// shareClasspath keeps a class path Maven resolved in the shared file
// (see sharedClasspathFile) when it is shareable.
// Failing to keep it only costs another folder a Maven run.
func shareClasspath(file string, entries []string, m *maven) {
	if file == "" || len(entries) == 0 || !shareable(entries, m.dir, sharedRepository(m)) {
		return
	}
	if err := writeClasspath(file, entries); err != nil {
		m.log("could not keep the test class path for other folders of this build: %v", err)
	}
}

// writeClasspath writes a class path file atomically, creating its
// directory when needed.
func writeClasspath(path string, entries []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safewrite.Atomic(path, []byte(strings.Join(entries, string(os.PathListSeparator))), 0o644)
}

// takeShared copies the shared class path (see sharedClasspathFile) into
// the module's cache file cpFile when there is one that is shareable and
// passes checkClasspath, and reports whether it did.
func takeShared(shared, cpFile, cache, testClasses string, m *maven) (bool, error) {
	if shared == "" {
		return false, nil
	}
	deps, err := readClasspath(shared)
	if err != nil || len(deps) == 0 || !shareable(deps, m.dir, sharedRepository(m)) || checkClasspath(deps, m.dir, testClasses) != nil {
		return false, nil
	}
	if err := writeClasspath(cpFile, deps); err != nil {
		return false, fmt.Errorf("cache classpath: %w", err)
	}
	removeStale(cache, "classpath-*.txt", cpFile)
	m.log("test class path as Maven resolved it for the same build in another folder (%s; delete it to resolve again)", shared)
	return true, nil
}

// backfillShared keeps the module's cached class path cpFile in the shared
// file when there is none yet: a class path resolved before flaky shared
// them.
func backfillShared(shared, cpFile string, m *maven) {
	if shared == "" {
		return
	}
	if _, err := os.Stat(shared); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if deps, err := readClasspath(cpFile); err == nil {
		shareClasspath(shared, deps, m)
	}
}
