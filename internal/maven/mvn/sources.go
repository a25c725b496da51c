package mvn

import (
	"path/filepath"
	"strings"

	"github.com/vifraa/gopom"
)

// SourceRoots returns a module's test and main source directories: the first
// <testSourceDirectory> and <sourceDirectory> of its pom chain, else Maven's
// defaults src/test/java and src/main/java, as absolute paths.
func SourceRoots(moduleDir string) (test, main string, err error) {
	dir, err := filepath.Abs(moduleDir)
	if err != nil {
		return "", "", err
	}
	chain, err := loadPomChain(dir, func(string, ...any) {})
	if err != nil {
		return "", "", err
	}
	in := newInterpolator(properties(chain, nil))
	buildDirs(chain, in)
	test = buildPath(chain, in, func(b *gopom.Build) *string { return b.TestSourceDirectory }, "src/test/java")
	main = buildPath(chain, in, func(b *gopom.Build) *string { return b.SourceDirectory }, "src/main/java")
	return test, main, nil
}

// ReactorModule is a module of a reactor: its directory and build directory.
type ReactorModule struct {
	Dir      string // absolute
	BuildDir string // absolute; target unless its pom says otherwise
}

// ReactorModules lists the reactor rooted at root (the root itself first,
// then every module reachable through <modules>, profiles' included) as
// found on disk; modules whose poms cannot be read are left out.
func ReactorModules(root string) ([]ReactorModule, error) {
	dir, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	r, err := readReactor(dir, func(string, ...any) {})
	if err != nil {
		return nil, err
	}
	var out []ReactorModule
	for _, chain := range r.chains() {
		target, _, _ := buildDirs(chain, newInterpolator(properties(chain, nil)))
		out = append(out, ReactorModule{Dir: filepath.Dir(chain[0].path), BuildDir: target})
	}
	return out, nil
}

// ModulePath is the path of the module in moduleDir from the reactor root
// root, slash-separated ("." for the root itself), as -pl names it; the
// module directory's base name when it is not under root.
func ModulePath(root, moduleDir string) string {
	rel, err := filepath.Rel(root, moduleDir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.Base(moduleDir)
	}
	return filepath.ToSlash(rel)
}

// ArtifactID is the artifactId the pom in moduleDir declares, or "" when it
// cannot be read or names one through a property.
func ArtifactID(moduleDir string) string {
	p, err := readPom(filepath.Join(moduleDir, "pom.xml"))
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(str(p.project.ArtifactID))
	if strings.Contains(id, "${") {
		return ""
	}
	return id
}

// ReactorRoot returns the root of the reactor that builds the module in
// moduleDir (moduleDir itself when no pom above lists it as a module).
func ReactorRoot(moduleDir string) string {
	return reactorRoot(moduleDir)
}
