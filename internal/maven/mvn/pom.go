package mvn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/vifraa/gopom"
)

// pomFile is one pom of a module's parent chain as found on disk.
type pomFile struct {
	path    string
	content []byte
	project *gopom.Project
	plugins pluginSections
	// subprojects are the model 4.1.0 <subprojects> (Maven 4's name for
	// <modules>), which gopom does not know.
	subprojects subprojectSections
	// active are the indexes of the profiles Maven would activate with
	// the command's MavenArgs (see activeProfiles).
	active []int
}

// pluginSections holds a pom's plugin declarations with their raw
// configuration. gopom flattens <configuration> to one level, which loses
// <includes>, <excludes> and <systemPropertyVariables>, so plugins are
// decoded a second time with these types.
type pluginSections struct {
	Plugins  []plugin         `xml:"build>plugins>plugin"`
	Managed  []plugin         `xml:"build>pluginManagement>plugins>plugin"`
	Profiles []profileSection `xml:"profiles>profile"`
}

// profileSection is a profile's plugin declarations, in the order of the
// pom's profiles.
// subprojectSections holds a pom's <subprojects> and its profiles'.
type subprojectSections struct {
	Subprojects []string `xml:"subprojects>subproject"`
	Profiles    []struct {
		Subprojects []string `xml:"subprojects>subproject"`
	} `xml:"profiles>profile"`
}

type profileSection struct {
	Plugins []plugin `xml:"build>plugins>plugin"`
	Managed []plugin `xml:"build>pluginManagement>plugins>plugin"`
}

type plugin struct {
	ArtifactID    string         `xml:"artifactId"`
	Configuration surefireConfig `xml:"configuration"`
}

// surefireConfig is the part of Surefire's configuration flaky honours.
type surefireConfig struct {
	Includes                *[]string         `xml:"includes>include"`
	Excludes                *[]string         `xml:"excludes>exclude"`
	ArgLine                 *string           `xml:"argLine"`
	RunOrder                *string           `xml:"runOrder"`
	SystemPropertyVariables *gopom.Properties `xml:"systemPropertyVariables"`
	SuiteXMLFiles           *[]string         `xml:"suiteXmlFiles>suiteXmlFile"`
	ForkCount               *string           `xml:"forkCount"`
	ReuseForks              *string           `xml:"reuseForks"`
}

// maxParentDepth bounds a chain of parent poms; real projects have a few.
const maxParentDepth = 32

// loadPomChain reads the module's pom and the parent poms reachable on disk
// through <relativePath> (default ../pom.xml) whose coordinates match.
// Missing parents are reported through warn; one that is there but refused
// (a FIFO, a device, beyond the bounds of readPomBytes) is an error. A chain
// that comes back to a pom it holds (a parent cycle), or is longer than
// maxParentDepth, is an error that names the chain.
func loadPomChain(moduleDir string, warn func(string, ...any)) ([]*pomFile, error) {
	path := filepath.Join(moduleDir, "pom.xml")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no pom.xml in %s", moduleDir)
	}
	var chain []*pomFile
	seen := map[string]bool{}
	for path != "" {
		p, err := readPom(path)
		if err != nil {
			return nil, err
		}
		chain = append(chain, p)
		if err := chainError(chain, seen[p.path]); err != nil {
			return nil, err
		}
		seen[p.path] = true
		path = ""
		parent := p.project.Parent
		if parent == nil {
			break
		}
		rel := "../pom.xml"
		if parent.RelativePath != nil {
			rel = strings.TrimSpace(*parent.RelativePath)
		}
		coords := str(parent.GroupID) + ":" + str(parent.ArtifactID)
		if rel == "" {
			warn("parent %s is not read from disk (empty relativePath); its properties and plugin configuration are ignored", coords)
			break
		}
		candidate := filepath.Join(filepath.Dir(p.path), rel)
		if fi, err := os.Stat(candidate); err == nil && fi.IsDir() {
			candidate = filepath.Join(candidate, "pom.xml")
		}
		pp, err := readPom(candidate)
		if errors.Is(err, saferead.ErrRefused) {
			// There, but hostile (a FIFO, a device, huge): not a missing parent.
			return nil, fmt.Errorf("parent %s: %w", coords, err)
		}
		if err != nil || !parentMatches(parent, pp.project) {
			warn("parent %s is not on disk; its properties and plugin configuration are ignored", coords)
			break
		}
		inferParent(parent, pp.project)
		path = candidate
	}
	return chain, nil
}

// parentMatches says whether pom is the parent that ref names. Coordinates
// ref leaves out match anything: model 4.1.0 (Maven 4) infers them from the
// pom at the relative path (<parent/> alone means ../pom.xml).
func parentMatches(ref *gopom.Parent, pom *gopom.Project) bool {
	g, a := str(ref.GroupID), str(ref.ArtifactID)
	return (g == "" || g == groupID(pom)) && (a == "" || a == str(pom.ArtifactID))
}

// inferParent fills in the coordinates ref leaves out from pom, the parent
// found at its relative path, as Maven 4 does for model 4.1.0, so that the
// module's ${project.groupId} and ${project.version} are known.
func inferParent(ref *gopom.Parent, pom *gopom.Project) {
	fill := func(field **string, value string) {
		if str(*field) == "" && value != "" {
			*field = &value
		}
	}
	version := str(pom.Version)
	if version == "" && pom.Parent != nil {
		version = str(pom.Parent.Version)
	}
	fill(&ref.GroupID, groupID(pom))
	fill(&ref.ArtifactID, str(pom.ArtifactID))
	fill(&ref.Version, version)
}

// chainError is the error of a parent chain whose last pom is one it held
// before (cycle), or that is longer than maxParentDepth; nil otherwise.
func chainError(chain []*pomFile, cycle bool) error {
	switch {
	case cycle:
		return fmt.Errorf("the parent chain is a cycle: %s", chainNames(chain))
	case len(chain) > maxParentDepth:
		return fmt.Errorf("the parent chain is longer than %d poms: %s", maxParentDepth, chainNames(chain))
	}
	return nil
}

// chainNames lists a parent chain as "path (group:artifact) -> ...".
func chainNames(chain []*pomFile) string {
	names := make([]string, len(chain))
	for i, p := range chain {
		names[i] = fmt.Sprintf("%s (%s:%s)", p.path, groupID(p.project), str(p.project.ArtifactID))
	}
	return strings.Join(names, " -> ")
}

func readPom(path string) (*pomFile, error) {
	content, err := readPomBytes(path)
	if err != nil {
		return nil, err
	}
	project := &gopom.Project{}
	if err := decodePom(content, project); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	var plugins pluginSections
	if err := decodePom(content, &plugins); err != nil {
		return nil, fmt.Errorf("parse plugins of %s: %w", path, err)
	}
	var subprojects subprojectSections
	if err := decodePom(content, &subprojects); err != nil {
		return nil, fmt.Errorf("parse subprojects of %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	return &pomFile{path: abs, content: content, project: project, plugins: plugins, subprojects: subprojects}, nil
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// groupID returns the project's groupId, inherited from its parent when absent.
func groupID(p *gopom.Project) string {
	if g := str(p.GroupID); g != "" || p.Parent == nil {
		return g
	}
	return str(p.Parent.GroupID)
}

// properties collects the chain's <properties> (children override parents,
// active profiles the pom they are in, user properties everything) and the
// project.* values flaky can know without Maven; buildDirs adds the
// project.build.* ones.
func properties(chain []*pomFile, user map[string]string) map[string]string {
	props := map[string]string{}
	for i := len(chain) - 1; i >= 0; i-- {
		if pp := chain[i].project.Properties; pp != nil {
			for k, v := range pp.Entries {
				props[k] = strings.TrimSpace(v)
			}
		}
		for _, j := range chain[i].active {
			if pp := (*chain[i].project.Profiles)[j].Properties; pp != nil {
				for k, v := range pp.Entries {
					props[k] = strings.TrimSpace(v)
				}
			}
		}
	}
	module := chain[0].project
	dir := filepath.Dir(chain[0].path)
	version := str(module.Version)
	if version == "" && module.Parent != nil {
		version = str(module.Parent.Version)
	}
	builtins := map[string]string{
		"basedir":            dir,
		"project.basedir":    dir,
		"project.groupId":    groupID(module),
		"project.artifactId": str(module.ArtifactID),
		"project.version":    version,
	}
	if module.Parent != nil {
		builtins["project.parent.groupId"] = str(module.Parent.GroupID)
		builtins["project.parent.artifactId"] = str(module.Parent.ArtifactID)
		builtins["project.parent.version"] = str(module.Parent.Version)
	}
	for k, v := range builtins {
		props[k] = v
	}
	for k, v := range user { // user properties win over the poms'
		props[k] = v
	}
	return props
}

// buildDirs resolves the module's build directory, classes and test classes
// directories (the first of the chain's <build> settings, else Maven's
// defaults) and records them as project.build.* properties.
func buildDirs(chain []*pomFile, in *interpolator) (target, classes, testClasses string) {
	setting := func(get func(*gopom.Build) *string, def string) string { return buildPath(chain, in, get, def) }
	target = setting(func(b *gopom.Build) *string { return b.Directory }, "target")
	in.props["project.build.directory"] = target
	classes = setting(func(b *gopom.Build) *string { return b.OutputDirectory }, "${project.build.directory}/classes")
	in.props["project.build.outputDirectory"] = classes
	testClasses = setting(func(b *gopom.Build) *string { return b.TestOutputDirectory }, "${project.build.directory}/test-classes")
	in.props["project.build.testOutputDirectory"] = testClasses
	return target, classes, testClasses
}

// buildPath resolves a directory of the chain's <build> (the first pom
// that sets it, else def), interpolated, against the module's directory.
func buildPath(chain []*pomFile, in *interpolator, get func(*gopom.Build) *string, def string) string {
	v := def
	for _, p := range chain {
		if b := p.project.Build; b != nil && str(get(b)) != "" {
			v = str(get(b))
			break
		}
	}
	v = in.expand(v)
	if !filepath.IsAbs(v) {
		v = filepath.Join(filepath.Dir(chain[0].path), v)
	}
	return filepath.Clean(v)
}

var propertyRef = regexp.MustCompile(`\$\{([^}]+)\}`)

// interpolator expands ${name} from pom properties and ${env.NAME} from the
// environment, and remembers the names it could not expand.
type interpolator struct {
	props   map[string]string
	unknown map[string]bool
}

func newInterpolator(props map[string]string) *interpolator {
	return &interpolator{props: props, unknown: map[string]bool{}}
}

// expand replaces known references in s, recursively up to a fixed depth;
// unknown references stay as they are.
func (in *interpolator) expand(s string) string {
	for depth := 0; depth < 10 && strings.Contains(s, "${"); depth++ {
		next := propertyRef.ReplaceAllStringFunc(s, func(ref string) string {
			name := ref[2 : len(ref)-1]
			if v, ok := in.lookup(name); ok {
				return v
			}
			in.unknown[name] = true
			return ref
		})
		if next == s {
			break
		}
		s = next
	}
	return s
}

func (in *interpolator) lookup(name string) (string, bool) {
	if v, ok := in.props[name]; ok {
		return v, true
	}
	if env, ok := strings.CutPrefix(name, "env."); ok {
		return os.LookupEnv(env)
	}
	return "", false
}

// unknownNames returns the references expand could not resolve, sorted.
func (in *interpolator) unknownNames() []string {
	names := make([]string, 0, len(in.unknown))
	for n := range in.unknown {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// surefire merges the Surefire configuration of the chain: for each setting
// the module's <plugins> win over its <pluginManagement>, and both over the
// parents'; within a pom, its active profiles' sections win over its own.
func surefire(chain []*pomFile) surefireConfig {
	var merged surefireConfig
	for _, p := range chain {
		var sections [][]plugin
		for _, j := range p.active {
			if j < len(p.plugins.Profiles) {
				sections = append(sections, p.plugins.Profiles[j].Plugins)
			}
		}
		sections = append(sections, p.plugins.Plugins)
		for _, j := range p.active {
			if j < len(p.plugins.Profiles) {
				sections = append(sections, p.plugins.Profiles[j].Managed)
			}
		}
		sections = append(sections, p.plugins.Managed)
		for _, c := range surefireConfigs(sections...) {
			if merged.Includes == nil {
				merged.Includes = c.Includes
			}
			if merged.Excludes == nil {
				merged.Excludes = c.Excludes
			}
			if merged.ArgLine == nil {
				merged.ArgLine = c.ArgLine
			}
			if merged.RunOrder == nil {
				merged.RunOrder = c.RunOrder
			}
			if merged.SystemPropertyVariables == nil {
				merged.SystemPropertyVariables = c.SystemPropertyVariables
			}
			if merged.SuiteXMLFiles == nil {
				merged.SuiteXMLFiles = c.SuiteXMLFiles
			}
		}
	}
	return merged
}

// surefireConfigs are the configurations of the maven-surefire-plugin
// declarations in sections, in their order.
func surefireConfigs(sections ...[]plugin) []surefireConfig {
	var out []surefireConfig
	for _, section := range sections {
		for _, pl := range section {
			if strings.TrimSpace(pl.ArtifactID) == "maven-surefire-plugin" {
				out = append(out, pl.Configuration)
			}
		}
	}
	return out
}
