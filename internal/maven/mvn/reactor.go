package mvn

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vifraa/gopom"
)

// reactor is what the poms on disk tell about a project: the root pom's
// parent chain and the chain of every module reachable through <modules>.
type reactor struct {
	root    []*pomFile   // the root pom, then its parents on disk
	modules [][]*pomFile // each module's pom, then its parents on disk
	skipped []string     // modules that could not be read, with why
}

// readReactor reads dir's pom.xml, its parents on disk and its modules,
// recursively (<modules> of the project and of its profiles).
func readReactor(dir string, logf func(string, ...any)) (*reactor, error) {
	quiet := func(string, ...any) {}
	root, err := loadPomChain(dir, quiet)
	if err != nil {
		return nil, err
	}
	r := &reactor{root: root}
	seen := map[string]bool{filepath.Dir(root[0].path): true}
	var visit func(p *pomFile)
	visit = func(p *pomFile) {
		for _, m := range moduleNames(p) {
			mdir := filepath.Join(filepath.Dir(p.path), m)
			if strings.HasSuffix(m, ".xml") {
				mdir = filepath.Dir(mdir) // a module named by its pom file
			}
			if seen[mdir] {
				continue
			}
			seen[mdir] = true
			chain, err := loadPomChain(mdir, quiet)
			if err != nil {
				r.skipped = append(r.skipped, "the flaky profile cannot reach module "+m+", whose pom cannot be read: "+err.Error())
				continue
			}
			r.modules = append(r.modules, chain)
			visit(chain[0])
		}
	}
	visit(root[0])
	return r, nil
}

// moduleNames lists the pom's modules: its <modules> and <subprojects> and
// those of its profiles; for a model 4.1.0 pom-packaged project that declares
// none, the subdirectories with a pom.xml, which Maven 4 then builds as its
// subprojects.
func moduleNames(p *pomFile) []string {
	var names []string
	add := func(list []string) {
		for _, m := range list {
			if m = strings.TrimSpace(m); m != "" {
				names = append(names, m)
			}
		}
	}
	if p.project.Modules != nil {
		add(*p.project.Modules)
	}
	add(p.subprojects.Subprojects)
	if p.project.Profiles != nil {
		for _, pr := range *p.project.Profiles {
			if pr.Modules != nil {
				add(*pr.Modules)
			}
		}
	}
	for _, pr := range p.subprojects.Profiles {
		add(pr.Subprojects)
	}
	if len(names) == 0 && discoversSubprojects(p.project) {
		names = discoveredSubprojects(filepath.Dir(p.path))
	}
	return names
}

// discoversSubprojects says whether Maven 4 looks for the project's
// subprojects itself: a pom-packaged project of model 4.1.0 or later.
func discoversSubprojects(p *gopom.Project) bool {
	return str(p.Packaging) == "pom" && modelAtLeast(str(p.ModelVersion), 4, 1)
}

// modelAtLeast says whether model version v ("4.1.0") is major.minor or later.
func modelAtLeast(v string, major, minor int) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	gotMajor, err1 := strconv.Atoi(parts[0])
	gotMinor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return gotMajor > major || gotMajor == major && gotMinor >= minor
}

// discoveredSubprojects lists dir's subdirectories that hold a pom.xml, by name.
func discoveredSubprojects(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "pom.xml")); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	return names
}

// chains returns the root chain followed by the modules' chains.
func (r *reactor) chains() [][]*pomFile {
	return append([][]*pomFile{r.root}, r.modules...)
}

// junitGroups are the groupIds of the JUnit Platform's artifacts.
var junitGroups = []string{"org.junit.jupiter", "org.junit.platform", "org.junit.vintage"}

// junitPlatform says whether a pom on disk depends on a JUnit Platform
// artifact, and the platform version the poms give: the first found, root
// chain first, of a junit-platform-* version, or the JUnit 5/6 version of a
// junit-jupiter*, junit-vintage-engine or junit-bom (import) declaration in
// <dependencyManagement> or <dependencies>; "" when unknown.
func (r *reactor) junitPlatform() (uses bool, version string) {
	for _, chain := range r.chains() {
		in := newInterpolator(properties(chain, nil))
		for _, p := range chain {
			var managed, deps []gopom.Dependency
			if dm := p.project.DependencyManagement; dm != nil && dm.Dependencies != nil {
				managed = *dm.Dependencies
			}
			if p.project.Dependencies != nil {
				deps = *p.project.Dependencies
			}
			for _, d := range deps {
				if slices.Contains(junitGroups, str(d.GroupID)) {
					uses = true
				}
			}
			for _, d := range append(managed, deps...) {
				if version == "" {
					version = platformVersion(d, in)
				}
			}
		}
	}
	return uses, version
}

// platformVersion is the JUnit Platform version a dependency declaration
// implies, "" if none.
func platformVersion(d gopom.Dependency, in *interpolator) string {
	v := in.expand(str(d.Version))
	if v == "" || strings.Contains(v, "${") {
		return ""
	}
	switch g, a := str(d.GroupID), str(d.ArtifactID); {
	case g == "org.junit.platform":
		return v
	case g == "org.junit.jupiter", g == "org.junit.vintage", g == "org.junit" && a == "junit-bom":
		return jupiterToPlatform(v)
	}
	return ""
}

// jupiterToPlatform maps a JUnit Jupiter version to its platform's: 5.M.P
// goes with platform 1.M.P; from JUnit 6 on the versions are the same.
func jupiterToPlatform(v string) string {
	major, rest, ok := strings.Cut(v, ".")
	if !ok {
		return ""
	}
	if major == "5" {
		return "1." + rest
	}
	if n, err := strconv.Atoi(major); err == nil && n >= 6 {
		return v
	}
	return ""
}

// warn reports what may keep the profile from working: modules configuring
// their own Surefire argLine (which replaces the profile's, agent included),
// modules that could not be read, and a root pom that is itself a module of
// an aggregator on disk.
func (r *reactor) warn(logf func(string, ...any)) {
	rootDir := filepath.Dir(r.root[0].path)
	for _, s := range r.skipped {
		logf("%s", s)
	}
	for _, chain := range r.modules {
		if p := chain[0]; ownArgLine(p) {
			rel, _ := filepath.Rel(rootDir, filepath.Dir(p.path))
			logf("module %s sets its own Surefire <argLine>, which replaces the flaky profile's: the flaky agent is not attached there (flaky verify reports it)", rel)
		}
	}
	if len(r.root) > 1 {
		parent := r.root[1]
		for _, m := range moduleNames(parent) {
			if filepath.Join(filepath.Dir(parent.path), m) == rootDir {
				logf("%s is a module of %s: the flaky profile belongs in the reactor's root pom", r.root[0].path, parent.path)
			}
		}
	}
}

// ownArgLine says whether the pom configures Surefire's argLine itself.
func ownArgLine(p *pomFile) bool {
	return slices.ContainsFunc(surefireConfigs(p.plugins.Plugins, p.plugins.Managed), func(c surefireConfig) bool { return c.ArgLine != nil })
}
