// Package mvn prepares a Maven module for flaky: it reads the pom's Surefire
// configuration, runs Maven to compile the tests and resolve the test
// classpath (cached per pom), and returns what the launcher needs.
package mvn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/flakydir"
	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/kballard/go-shellquote"
)

// PrepareOptions tune Prepare.
type PrepareOptions struct {
	// Mvn is the Maven command; empty means a ./mvnw of the build, else mvn.
	Mvn string
	// Log receives progress notes and warnings; nil discards them.
	Log io.Writer
	// Debug receives what only matters when looking into flaky's own
	// behaviour (such as parent poms not read from disk); nil discards it.
	Debug io.Writer
	// Maven are the profiles and properties passed to every Maven
	// invocation and applied to the Surefire configuration read from the poms.
	Maven MavenArgs
	// SharedCache is flaky's cache directory, where a module's resolved
	// test class path is also kept for the same build in another folder
	// (see sharedClasspathFile); empty keeps it in the module's target alone.
	SharedCache string
}

// TestSetup is what running a module's tests outside Maven needs.
type TestSetup struct {
	ModuleDir string
	// ReactorRoot is the directory of the topmost aggregator on disk whose
	// <modules> lead to the module; ModuleDir when there is none.
	ReactorRoot    string
	TestClassesDir string
	ClassesDir     string
	// Classpath is test classes, classes, then the test-scope dependencies
	// in Maven's order (plus the JUnit Platform launcher when missing).
	Classpath []string
	// ClasspathFiles are the files the dependency class path is kept in:
	// the module's cache file and, when the build shares its class path
	// with other folders, the shared one. Deleting them makes Maven
	// resolve it again.
	ClasspathFiles []string
	// Includes and Excludes are Surefire's patterns; empty means its defaults.
	Includes []string
	Excludes []string
	// ArgLine is Surefire's argLine split into JVM arguments.
	ArgLine []string
	// SysProps are Surefire's systemPropertyVariables plus basedir.
	SysProps map[string]string
	// RunOrder is Surefire's runOrder (its <runOrder>, else the
	// surefire.runOrder property, else filesystem).
	RunOrder string
	// Maven are the profiles and properties the module was prepared with,
	// which its findings' reproduce commands repeat.
	Maven MavenArgs
}

// Prepare reads moduleDir's pom, compiles the tests when target/test-classes
// is missing or older than the sources, and resolves the test classpath.
func Prepare(ctx context.Context, moduleDir string, opts PrepareOptions) (*TestSetup, error) {
	logf, debugf := printer(opts.Log), printer(opts.Debug)
	dir, err := filepath.Abs(moduleDir)
	if err != nil {
		return nil, fmt.Errorf("resolve module dir: %w", err)
	}
	chain, err := loadPomChain(dir, debugf)
	if err != nil {
		return nil, err
	}
	for _, p := range chain {
		p.active = activeProfiles(p.project, opts.Maven)
	}
	in := newInterpolator(properties(chain, opts.Maven.Properties))
	target, classes, testClasses := buildDirs(chain, in)
	setup, err := surefireSetup(chain, in, logf)
	if err != nil {
		return nil, err
	}
	if names := in.unknownNames(); len(names) > 0 {
		logf("pom: unknown properties left as they are: ${%s}", strings.Join(names, "}, ${"))
	}
	setup.ModuleDir, setup.ClassesDir, setup.TestClassesDir = dir, classes, testClasses
	setup.Maven = opts.Maven

	setup.ReactorRoot = reactorRoot(dir)

	cache := flakydir.InBuild(target).Cache()
	m := &maven{cmd: FindMaven(opts.Mvn, setup.ReactorRoot), dir: setup.ReactorRoot, log: logf, extra: opts.Maven.Args()}
	if setup.ReactorRoot != dir {
		// Build from the reactor root, so sibling modules the module
		// depends on are compiled and resolved from their target/classes
		// instead of being looked up in a repository.
		rel, err := filepath.Rel(setup.ReactorRoot, dir)
		if err != nil {
			return nil, fmt.Errorf("module path in the reactor: %w", err)
		}
		m.project = []string{"-pl", filepath.ToSlash(rel), "-am"}
	}
	deps, files, err := compileAndResolve(ctx, m, chain, cache, opts.SharedCache, testClasses)
	if err != nil {
		return nil, err
	}
	setup.ClasspathFiles = files
	if deps, err = withPlatformLauncher(ctx, m, deps, cache); err != nil {
		return nil, err
	}
	setup.Classpath = append([]string{testClasses, classes}, deps...)
	return setup, nil
}

// printer returns a printf to w of lines starting with "flaky: "; nil
// discards them.
func printer(w io.Writer) func(string, ...any) {
	return func(format string, args ...any) {
		if w != nil {
			fmt.Fprintf(w, "flaky: "+format+"\n", args...)
		}
	}
}

// surefireSetup turns the chain's Surefire configuration into the patterns,
// JVM arguments and system properties of a TestSetup.
func surefireSetup(chain []*pomFile, in *interpolator, logf func(string, ...any)) (*TestSetup, error) {
	cfg := surefire(chain)
	setup := &TestSetup{
		Includes: patterns(cfg.Includes, in),
		Excludes: patterns(cfg.Excludes, in),
		SysProps: map[string]string{"basedir": filepath.Dir(chain[0].path)},
	}
	if suites := patterns(cfg.SuiteXMLFiles, in); len(suites) > 0 {
		// Surefire runs the classes the TestNG suites name instead of its
		// includes (nested classes stay excluded, as by default).
		classes, err := suiteClasses(filepath.Dir(chain[0].path), suites)
		if err != nil {
			return nil, err
		}
		setup.Includes, setup.Excludes = nil, nil
		for _, c := range classes {
			setup.Includes = append(setup.Includes, classFilePattern(c))
		}
	}
	argLine, ok := in.props["argLine"]
	if cfg.ArgLine != nil {
		argLine, ok = *cfg.ArgLine, true
	}
	if ok {
		argLine = lateReplace(in.expand(argLine), in.props, logf)
		args, err := shellquote.Split(argLine)
		if err != nil {
			return nil, fmt.Errorf("split Surefire argLine %q: %w", argLine, err)
		}
		setup.ArgLine = withoutUnresolved(args, logf)
	}
	setup.RunOrder = "filesystem"
	if v, ok := in.props["surefire.runOrder"]; ok {
		setup.RunOrder = in.expand(v)
	}
	if cfg.RunOrder != nil {
		setup.RunOrder = in.expand(strings.TrimSpace(*cfg.RunOrder))
	}
	if spv := cfg.SystemPropertyVariables; spv != nil {
		for k, v := range spv.Entries {
			setup.SysProps[k] = in.expand(strings.TrimSpace(v))
		}
	}
	return setup, nil
}

func patterns(list *[]string, in *interpolator) []string {
	if list == nil {
		return nil
	}
	var out []string
	for _, p := range *list {
		if p = strings.TrimSpace(in.expand(p)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var lateRef = regexp.MustCompile(`@\{([^}]+)\}`)

// lateReplace expands Surefire's late references @{name} from the pom's
// properties and drops the ones only other plugins (such as JaCoCo) would set.
func lateReplace(argLine string, props map[string]string, logf func(string, ...any)) string {
	return lateRef.ReplaceAllStringFunc(argLine, func(ref string) string {
		name := ref[2 : len(ref)-1]
		if v, ok := props[name]; ok {
			return v
		}
		logf("argLine: @{%s} is set by another plugin at build time; left out", name)
		return ""
	})
}

// pluginArgLine is the word of an argLine that refers to the argLine
// property when no property of the pom set it: JaCoCo's prepare-agent (and
// other plugins) set it at build time, and Maven resolves ${argLine} when
// Surefire runs, from what they set by then.
const pluginArgLine = "${argLine}"

// withoutUnresolved drops the words of args that are an unresolved
// ${argLine} (see pluginArgLine), as lateReplace drops a late @{argLine}:
// as written it would end the JVM's start.
func withoutUnresolved(args []string, logf func(string, ...any)) []string {
	var out []string
	for _, a := range args {
		if a == pluginArgLine {
			logf("argLine: %s is set by another plugin at build time; left out", a)
			continue
		}
		out = append(out, a)
	}
	return out
}

// reactorRoot walks up from moduleDir to the nearest directory above with
// a pom.xml and, when that pom's <modules> (or a profile's) name the
// directory it came from, goes on from there. It returns the last directory
// reached: the root of the reactor that builds the module, or moduleDir.
func reactorRoot(moduleDir string) string {
	root := moduleDir
	for up := filepath.Dir(root); up != filepath.Dir(up); up = filepath.Dir(up) {
		if _, err := os.Stat(filepath.Join(up, "pom.xml")); err != nil {
			continue
		}
		p, err := readPom(filepath.Join(up, "pom.xml"))
		if err != nil {
			return root
		}
		listed := false
		for _, m := range moduleNames(p) {
			dir := filepath.Join(up, m)
			if strings.HasSuffix(m, ".xml") {
				dir = filepath.Dir(dir)
			}
			listed = listed || dir == root
		}
		if !listed {
			return root
		}
		root = up
	}
	return root
}

// compileAndResolve runs test-compile when needed and
// dependency:build-classpath when the classpath of this pom is not cached
// in the module's cache nor in sharedDir (see sharedClasspathFile), in one
// Maven invocation, and returns the dependency classpath and the files it
// is kept in (see TestSetup.ClasspathFiles). In a
// reactor (m.project set) resolving always compiles too: Maven resolves a
// sibling module from its target/classes only when it was compiled in the
// same invocation; and a sibling whose sources changed since its classes
// were built makes the module compile again.
func compileAndResolve(ctx context.Context, m *maven, chain []*pomFile, cache, sharedDir, testClasses string) ([]string, []string, error) {
	cpFile := filepath.Join(cache, "classpath-"+pomKey(chain, m.extra...)+".txt")
	shared := sharedClasspathFile(sharedDir, chain, m)
	deps, err := resolveClasspath(ctx, m, chain, cache, cpFile, shared, testClasses)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	for _, f := range []string{cpFile, shared} {
		if _, err := os.Stat(f); f != "" && err == nil {
			files = append(files, f)
		}
	}
	return deps, files, nil
}

// resolveClasspath is compileAndResolve with the module's cache file cpFile
// and the shared file shared ("" for none).
func resolveClasspath(ctx context.Context, m *maven, chain []*pomFile, cache, cpFile, shared, testClasses string) ([]string, error) {
	stamp := filepath.Join(cache, "test-compile.stamp")
	compile, err := needsCompile(filepath.Dir(chain[0].path), testClasses, stamp)
	if err != nil {
		return nil, err
	}
	resolve := true
	if cached, err := readClasspath(cpFile); err == nil {
		if len(cached) == 0 {
			// Never cached so: a failed write left it.
			err = errors.New("empty")
		} else {
			err = checkClasspath(cached, m.dir, testClasses)
		}
		if err != nil {
			m.log("cached test class path %s not usable, resolving it again: %v", cpFile, err)
			os.Remove(cpFile)
		} else {
			resolve = false
		}
	}
	if !resolve {
		backfillShared(shared, cpFile, m)
	} else {
		took, err := takeShared(shared, cpFile, cache, testClasses, m)
		if err != nil {
			return nil, err
		}
		resolve = !took
	}
	if !compile && !resolve && len(m.project) > 0 {
		if compile, err = siblingsChanged(cpFile, m.dir); err != nil {
			return nil, err
		}
	}
	if !compile && !resolve {
		return readClasspath(cpFile)
	}
	compile = compile || len(m.project) > 0
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, fmt.Errorf("create cache dir: %w", err)
	}
	var goals []string
	if compile {
		goals = append(goals, "test-compile")
	}
	tmp := cpFile + ".tmp"
	if resolve {
		goals = append(goals, "dependency:build-classpath", "-Dmdep.outputFile="+tmp, "-Dmdep.includeScope=test")
	}
	if err := m.exec(ctx, !compile, goals); err != nil {
		return nil, err
	}
	if compile {
		if err := os.WriteFile(stamp, nil, 0o644); err != nil {
			return nil, fmt.Errorf("write compile stamp: %w", err)
		}
	}
	if !resolve {
		return readClasspath(cpFile)
	}
	deps, err := readClasspath(tmp)
	if err == nil {
		err = checkClasspath(deps, m.dir, testClasses)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("maven dependency:build-classpath: %w (is the disk full?)", err)
	}
	if len(deps) == 0 {
		// Nothing to cache: an empty class path is resolved again next
		// time, so that a failed write is never taken for it.
		os.Remove(tmp)
		return deps, nil
	}
	if err := os.Rename(tmp, cpFile); err != nil {
		return nil, fmt.Errorf("cache classpath: %w", err)
	}
	removeStale(cache, "classpath-*.txt", cpFile)
	shareClasspath(shared, deps, m)
	return deps, nil
}

// checkClasspath checks the dependency class path Maven resolved: empty
// only when the module has no compiled tests (which need a test framework),
// and every entry present except directories under the reactor root (a
// sibling module's classes, absent when it has no sources). A class path
// that a full disk truncated or emptied fails here.
func checkClasspath(deps []string, root, testClasses string) error {
	if len(deps) == 0 {
		if hasClassFile(testClasses) {
			return fmt.Errorf("the test class path is empty, yet %s holds compiled tests", testClasses)
		}
		return nil
	}
	var missing []string
	for _, e := range deps {
		if _, err := os.Stat(e); err != nil && !(within(root, e) && !strings.HasSuffix(e, ".jar")) {
			missing = append(missing, e)
		}
	}
	switch {
	case len(missing) > 3:
		return fmt.Errorf("the test class path names %d missing entries: %s, ...", len(missing), strings.Join(missing[:3], ", "))
	case len(missing) > 0:
		return fmt.Errorf("the test class path names missing entries: %s", strings.Join(missing, ", "))
	}
	return nil
}

// hasClassFile says whether dir or a directory below holds a .class file.
func hasClassFile(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".class") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// siblingsChanged says whether a directory of the cached classpath that
// lies under root (a sibling module's target/classes) is older than that
// module's sources.
func siblingsChanged(cpFile, root string) (bool, error) {
	entries, err := readClasspath(cpFile)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if fi, err := os.Stat(e); err != nil || !fi.IsDir() || !within(root, e) {
			continue
		}
		module := filepath.Dir(filepath.Dir(e)) // <module>/target/classes
		if _, err := os.Stat(filepath.Join(module, "pom.xml")); err != nil {
			continue
		}
		if changed, err := needsCompile(module, e, ""); err != nil || changed {
			return changed, err
		}
	}
	return false, nil
}

// removeStale deletes the files matching pattern in dir except keep:
// classpaths cached for earlier versions of the pom.
func removeStale(dir, pattern, keep string) {
	matches, _ := filepath.Glob(filepath.Join(dir, pattern))
	for _, m := range matches {
		if m != keep {
			os.Remove(m)
		}
	}
}

// needsCompile reports whether the module's tests must be compiled: nothing
// was compiled yet, or a file under src/ or the pom is newer than both the
// newest compiled test file and flaky's last test-compile (stamp; "" for
// none).
func needsCompile(moduleDir, testClasses, stamp string) (bool, error) {
	built, err := newest(testClasses)
	if err != nil {
		return false, err
	}
	if fi, err := os.Stat(stamp); stamp != "" && err == nil && fi.ModTime().After(built) {
		built = fi.ModTime()
	}
	if built.IsZero() {
		return true, nil
	}
	src, err := newest(filepath.Join(moduleDir, "src"))
	if err != nil {
		return false, err
	}
	pom, err := newest(filepath.Join(moduleDir, "pom.xml"))
	if err != nil {
		return false, err
	}
	return src.After(built) || pom.After(built), nil
}

// newest returns the latest modification time of path or anything below
// it; zero when path does not exist.
func newest(path string) (time.Time, error) {
	var latest time.Time
	err := filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.ModTime().After(latest) {
			latest = info.ModTime()
		}
		return nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("scan %s: %w", path, err)
	}
	return latest, nil
}

// pomKey hashes the poms of the chain and the Maven arguments (profiles
// and properties can change the dependencies), naming one cached classpath.
func pomKey(chain []*pomFile, args ...string) string {
	h := sha256.New()
	for _, a := range args {
		fmt.Fprintf(h, "%s\x00", a)
	}
	for _, p := range chain {
		fmt.Fprintf(h, "%s\x00%d\x00", p.path, len(p.content))
		h.Write(p.content)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// maxClasspathFile bounds a class path file flaky reads (its own cache, the
// shared one, Maven's output): some 50,000 entries of 300 bytes.
const maxClasspathFile = 16 << 20

// readClasspath reads a class path file: entries separated by the path list
// separator.
func readClasspath(path string) ([]string, error) {
	data, err := saferead.ReadFile(path, maxClasspathFile, "a class path file")
	if err != nil {
		return nil, fmt.Errorf("read class path: %w", err)
	}
	var entries []string
	for _, e := range strings.Split(strings.TrimSpace(string(data)), string(os.PathListSeparator)) {
		if e = strings.TrimSpace(e); e != "" {
			entries = append(entries, e)
		}
	}
	return entries, nil
}

var platformEngineJar = regexp.MustCompile(`^junit-platform-engine-(.+)\.jar$`)

// withPlatformLauncher adds junit-platform-launcher-<V>.jar when the
// classpath has the JUnit Platform engine <V> but no launcher, as Surefire
// does. It takes the jar from the local repository next to the engine jar,
// else fetches it once into cache with Maven.
func withPlatformLauncher(ctx context.Context, m *maven, deps []string, cache string) ([]string, error) {
	var engine, version string
	for _, p := range deps {
		base := filepath.Base(p)
		if strings.HasPrefix(base, "junit-platform-launcher-") && strings.HasSuffix(base, ".jar") {
			return deps, nil
		}
		if g := platformEngineJar.FindStringSubmatch(base); g != nil && engine == "" {
			engine, version = p, g[1]
		}
	}
	if engine == "" {
		return deps, nil
	}
	name := "junit-platform-launcher-" + version + ".jar"
	// <repo>/org/junit/platform/junit-platform-engine/<V>/junit-platform-engine-<V>.jar
	sibling := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(engine))), "junit-platform-launcher", version, name)
	cached := filepath.Join(cache, name)
	for _, candidate := range []string{sibling, cached} {
		if _, err := os.Stat(candidate); err == nil {
			return append(deps, candidate), nil
		}
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, fmt.Errorf("create cache dir: %w", err)
	}
	if err := m.resolve(ctx, "dependency:copy", "-Dartifact=org.junit.platform:junit-platform-launcher:"+version, "-DoutputDirectory="+cache); err != nil {
		return nil, fmt.Errorf("fetch the JUnit Platform launcher: %w", err)
	}
	if _, err := os.Stat(cached); err != nil {
		return nil, fmt.Errorf("fetch the JUnit Platform launcher: %s missing after dependency:copy", cached)
	}
	return append(deps, cached), nil
}

// LaunchEnv is the environment in which flaky's launcher starts the
// module's test JVMs as Surefire would: the test class path, Surefire's
// argLine and system properties, the module directory; java is the java
// executable.
func (s *TestSetup) LaunchEnv(java string) launcher.Env {
	return launcher.Env{Java: java, Classpath: s.Classpath, JVMArgs: s.ArgLine, SysProps: s.SysProps, Dir: s.ModuleDir}
}
