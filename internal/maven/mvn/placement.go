package mvn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/vifraa/gopom"
)

// PinnedSurefire is the maven-surefire-plugin version the flaky profile
// sets when the project's own is missing or one flaky does not support.
const PinnedSurefire = "3.5.4"

// SupportedSurefire describes the Surefire versions the flaky provider runs on.
const SupportedSurefire = "2.22.x, or 3.0.0-M6 and later"

// profileTarget is a pom the flaky profile must be in, and the reactor
// modules whose builds inherit it from there.
type profileTarget struct {
	pom     string       // absolute path
	modules [][]*pomFile // the chains of the modules it reaches
}

// profileTargets finds the poms the flaky profile has to be in for every
// module of the reactor r rooted at root to get it: for each module that
// builds code (packaging other than pom), the topmost pom of its parent
// chain that lies under root, as Maven reads parents from disk. An
// aggregator none of whose modules inherits from it gets no profile. When no
// module builds code, the root pom is the target.
func profileTargets(r *reactor) []*profileTarget {
	root := filepath.Dir(r.root[0].path)
	var targets []*profileTarget
	byPom := map[string]*profileTarget{}
	for _, chain := range r.chains() {
		if str(chain[0].project.Packaging) == "pom" {
			continue
		}
		top := chain[0].path
		for _, p := range chain[1:] {
			if !within(root, p.path) {
				break
			}
			top = p.path
		}
		t := byPom[top]
		if t == nil {
			t = &profileTarget{pom: top}
			byPom[top] = t
			targets = append(targets, t)
		}
		t.modules = append(t.modules, chain)
	}
	if len(targets) == 0 {
		return []*profileTarget{{pom: r.root[0].path}}
	}
	return targets
}

// setsForks says whether t's pom or a parent of it on disk sets Surefire's
// forkCount or reuseForks (in a Surefire configuration or as a property):
// the profile then sets Surefire's defaults, one reused fork, again, as it
// overrides what those poms set; elsewhere they are the defaults already.
// Poms below t's keep their own settings (see docs/commands.md).
func (t *profileTarget) setsForks() bool {
	for _, chain := range t.modules {
		i := slices.IndexFunc(chain, func(p *pomFile) bool { return p.path == t.pom })
		if i < 0 {
			continue
		}
		if slices.ContainsFunc(chain[i:], (*pomFile).setsForks) {
			return true
		}
	}
	return false
}

// forkSettings are Surefire's parameters (and user properties) that decide
// how many forks run and whether they are reused.
var forkSettings = []string{"forkCount", "reuseForks"}

// setsForks says whether the pom sets one of forkSettings: in a Surefire
// configuration of its build, plugin management or any profile, or as a
// property of the project or of any profile.
func (p *pomFile) setsForks() bool {
	sections := [][]plugin{p.plugins.Plugins, p.plugins.Managed}
	for _, prof := range p.plugins.Profiles {
		sections = append(sections, prof.Plugins, prof.Managed)
	}
	if slices.ContainsFunc(surefireConfigs(sections...), func(c surefireConfig) bool { return c.ForkCount != nil || c.ReuseForks != nil }) {
		return true
	}
	props := []*gopom.Properties{p.project.Properties}
	if p.project.Profiles != nil {
		for _, prof := range *p.project.Profiles {
			props = append(props, prof.Properties)
		}
	}
	for _, pp := range props {
		if pp == nil {
			continue
		}
		for _, name := range forkSettings {
			if _, ok := pp.Entries[name]; ok {
				return true
			}
		}
	}
	return false
}

// within says whether path lies in dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// surefireUse is how one module gets its maven-surefire-plugin version.
type surefireUse struct {
	module  string // the module's pom
	version string // the version found, interpolated; "" when no pom on disk or in the local repository sets one
	from    string // the pom that sets it
	// below says the version is set in build plugins of a pom under the
	// profile's pom, where the profile cannot change it.
	below bool
	// complete says every parent of the module was read, so an empty
	// version is Maven's built-in default.
	complete bool
}

// surefireUses works out each module's Surefire version the way Maven
// merges it: a version in <build><plugins> of the module or its nearest
// parent wins, else the nearest <pluginManagement>. Parents missing on disk
// are read from the local repository repo when they are there.
func (t *profileTarget) surefireUses(repo string) ([]surefireUse, error) {
	uses := make([]surefireUse, 0, len(t.modules))
	for _, chain := range t.modules {
		full, complete, err := withRepoParents(chain, repo)
		if err != nil {
			return nil, err
		}
		in := newInterpolator(properties(full, nil))
		u := surefireUse{module: chain[0].path, complete: complete}
		below := true
		for _, section := range []func(*gopom.Build) *[]gopom.Plugin{
			func(b *gopom.Build) *[]gopom.Plugin { return b.Plugins },
			func(b *gopom.Build) *[]gopom.Plugin {
				if b.PluginManagement == nil {
					return nil
				}
				return b.PluginManagement.Plugins
			},
		} {
			for _, p := range full {
				if p.path == t.pom {
					below = false
				}
				if v := pluginVersion(p.project, section); v != "" {
					u.version, u.from = in.expand(v), p.path
					u.below = below && p.path != t.pom
					break
				}
			}
			if u.version != "" {
				break
			}
			below = false // pluginManagement never wins over the profile's plugin
		}
		uses = append(uses, u)
	}
	return uses, nil
}

// pluginVersion is the maven-surefire-plugin version in one section of p's
// build, "" if none.
func pluginVersion(p *gopom.Project, section func(*gopom.Build) *[]gopom.Plugin) string {
	if p.Build == nil {
		return ""
	}
	list := section(p.Build)
	if list == nil {
		return ""
	}
	for _, pl := range *list {
		if isSurefire(str(pl.GroupID), str(pl.ArtifactID)) && str(pl.Version) != "" {
			return str(pl.Version)
		}
	}
	return ""
}

// withRepoParents extends a chain read from disk with the parents Maven
// would take from the local repository repo, and says whether the chain is
// complete (ends in a pom without a parent). A chain that comes back to a
// pom it holds, or grows longer than maxParentDepth, is an error naming it,
// and so is a parent that is there but refused (saferead.ErrRefused).
func withRepoParents(chain []*pomFile, repo string) ([]*pomFile, bool, error) {
	seen := map[string]bool{}
	for _, p := range chain {
		seen[p.path] = true
	}
	for {
		parent := chain[len(chain)-1].project.Parent
		if parent == nil {
			return chain, true, nil
		}
		if repo == "" {
			return chain, false, nil
		}
		g, a, v := str(parent.GroupID), str(parent.ArtifactID), str(parent.Version)
		if g == "" || a == "" || v == "" || strings.Contains(v, "${") {
			return chain, false, nil
		}
		path := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(g, ".", "/")), a, v, a+"-"+v+".pom")
		p, err := readPom(path)
		if errors.Is(err, saferead.ErrRefused) {
			// There, but hostile (a FIFO, a link to /dev/zero, huge): not a missing parent.
			return nil, false, fmt.Errorf("parent %s:%s:%s in the local repository: %w", g, a, v, err)
		}
		if err != nil {
			return chain, false, nil
		}
		chain = append(chain[:len(chain):len(chain)], p)
		if err := chainError(chain, seen[p.path]); err != nil {
			return nil, false, err
		}
		seen[p.path] = true
	}
}

// LocalRepository is the local Maven repository: the localRepository of
// ~/.m2/settings.xml, else ~/.m2/repository; "" when there is no home.
func LocalRepository() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	if data, err := saferead.ReadFile(filepath.Join(home, ".m2", "settings.xml"), maxPomSize, "Maven settings"); err == nil {
		var s struct {
			LocalRepository string `xml:"localRepository"`
		}
		if decodePom(data, &s) == nil {
			if l := strings.TrimSpace(s.LocalRepository); l != "" && !strings.Contains(l, "${") {
				return l
			}
		}
	}
	return filepath.Join(home, ".m2", "repository")
}

// surefireSupported says whether the flaky provider runs on Surefire v:
// 2.22.x, 3.0.0-M6 and later.
func surefireSupported(v string) bool {
	base, qualifier, _ := strings.Cut(v, "-")
	parts := strings.Split(base, ".")
	nums := make([]int, 3)
	for i := range nums {
		if i >= len(parts) {
			break
		}
		n, err := strconv.Atoi(parts[i])
		if err != nil {
			return false
		}
		nums[i] = n
	}
	switch {
	case nums[0] == 2:
		return nums[1] == 22
	case nums[0] == 3 && nums[1] == 0 && nums[2] == 0 && strings.HasPrefix(qualifier, "M"):
		m, err := strconv.Atoi(qualifier[1:])
		return err == nil && m >= 6
	}
	return nums[0] >= 3
}

// surefirePin decides whether the profile of t pins PinnedSurefire: it
// does when a module it reaches would otherwise run a Surefire flaky does
// not support or whose version the poms do not tell. It returns the note
// that says why, and an error naming the modules whose own poms set an
// unsupported version the profile cannot override.
func (t *profileTarget) surefirePin(repo, root string) (pin bool, note string, err error) {
	var why, refused []string
	uses, err := t.surefireUses(repo)
	if err != nil {
		return false, "", err
	}
	for _, u := range uses {
		rel := relPath(root, filepath.Dir(u.module))
		switch {
		case u.version != "" && strings.Contains(u.version, "${"):
			// A version the project chooses at build time: keep it.
		case u.version != "" && surefireSupported(u.version):
		case u.version != "" && u.below:
			refused = append(refused, fmt.Sprintf("module %s: %s sets maven-surefire-plugin %s in its <build><plugins>, which the flaky profile cannot override; raise it to %s", rel, relPath(root, u.from), u.version, SupportedSurefire))
		case u.version != "":
			why = append(why, fmt.Sprintf("module %s uses maven-surefire-plugin %s (set in %s)", rel, u.version, relPath(root, u.from)))
		case u.complete:
			why = append(why, fmt.Sprintf("module %s sets no maven-surefire-plugin version, so Maven uses its built-in default (2.12.4 up to Maven 3.8)", rel))
		default:
			why = append(why, fmt.Sprintf("module %s sets no maven-surefire-plugin version on disk and a parent pom is neither on disk nor in the local repository", rel))
		}
	}
	if len(refused) > 0 {
		return false, "", fmt.Errorf("flaky supports maven-surefire-plugin %s:\n  %s", SupportedSurefire, strings.Join(refused, "\n  "))
	}
	if len(why) == 0 {
		return false, "", nil
	}
	return true, fmt.Sprintf("the profile pins maven-surefire-plugin %s (flaky supports %s): %s", PinnedSurefire, SupportedSurefire, strings.Join(why, "; ")), nil
}

// relPath is path relative to root for messages ("." for root itself), or
// path when it is not under root.
func relPath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}
