package mvn

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// GateFile is the file, relative to a module's build directory, that
// `flaky verify` writes when the module fails the gate; the verify goal of
// flaky's Maven plugin fails the build on it, with the file's text as the
// error.
const GateFile = "flaky/gate-failed"

// ProfileID is the id of the Maven profile `flaky init` adds.
const ProfileID = "flaky"

// ErrPlatformVersionUnknown means the project uses the JUnit Platform but its
// version cannot be told from the poms on disk; ProfileOptions.JUnitPlatformVersion
// must name it.
var ErrPlatformVersionUnknown = errors.New("the project uses the JUnit Platform, but its version cannot be told from the poms on disk (is it managed by a parent pom or BOM that is not on disk?)")

// ProfileOptions say what the flaky profile contains beyond what the poms tell.
type ProfileOptions struct {
	// Version is the flaky version the profile names (flaky.version): the
	// version of the dev.flaky artifacts install-artifacts writes.
	Version string
	// JUnitPlatformVersion, when set, is the version of the
	// junit-platform-launcher the profile adds to Surefire; it overrides the
	// version found in the poms and adds the launcher even when the poms on
	// disk show no JUnit Platform dependency.
	JUnitPlatformVersion string
	// Log receives warnings about the project; nil discards them.
	Log io.Writer
	// LocalRepo is the local Maven repository, where parent poms that are
	// not on disk are looked up; "" means the one of ~/.m2/settings.xml,
	// else ~/.m2/repository.
	LocalRepo string
	// Force replaces or removes a profile with id flaky that flaky did not
	// write, and writes read-only poms.
	Force bool
}

// ProfileStatus says how a pom's flaky profile compares with what
// InitProfile writes.
type ProfileStatus int

// The profile statuses.
const (
	ProfileAbsent  ProfileStatus = iota // no flaky profile
	ProfileStale                        // a flaky profile that differs from what InitProfile writes now
	ProfileCurrent                      // exactly what InitProfile writes
)

func (s ProfileStatus) String() string {
	switch s {
	case ProfileAbsent:
		return "absent"
	case ProfileStale:
		return "stale"
	case ProfileCurrent:
		return "current"
	}
	return "ProfileStatus(" + strconv.Itoa(int(s)) + ")"
}

// ProfileCheck describes the flaky profile of one pom it belongs in.
type ProfileCheck struct {
	Pom    string        // the pom.xml
	Status ProfileStatus // before any change
	// WrittenBy is the flaky.version of the profile found, if any.
	WrittenBy string
	// Modules are the directories, relative to the project root, of the
	// modules that get the profile from this pom ("." for the root).
	Modules []string
	// Note says what the profile does beyond the usual, such as pinning
	// the Surefire version; "" if nothing.
	Note string
	// Backup is the copy of the pom's previous content, when InitProfile
	// rewrote it; "" otherwise.
	Backup string
}

// ProfileState is the flaky profile in every pom of a project it belongs
// in: the poms the reactor's modules inherit from (see InitProfile).
type ProfileState struct {
	Poms []ProfileCheck
}

// Status is absent when the profile is absent from a pom it belongs in,
// else stale when one has a stale profile, else current.
func (s ProfileState) Status() ProfileStatus {
	status := ProfileCurrent
	for _, p := range s.Poms {
		status = min(status, p.Status)
	}
	return status
}

// foreignProfile refuses a profile with id flaky that flaky did not write
// (see flakyWrote): the user's own, which flaky must not replace or remove
// unless forced.
func (p *pomDoc) foreignProfile(force bool) error {
	_, profile := p.flakyProfile()
	if profile == nil || force || flakyWrote(profile) {
		return nil
	}
	return fmt.Errorf("%s has a profile with id %q that flaky did not write (it runs no %s:%s and has no flaky.profile property); rename it, or pass --force to let flaky replace or remove it", p.path, ProfileID, ArtifactGroupID, PluginArtifactID)
}

// flakyWrote says whether flaky wrote the profile: it runs flaky's Maven
// plugin, or, as the profiles of flaky before the plugin did, has a
// flaky.profile property.
func flakyWrote(profile *xmlNode) bool {
	return profilePlugin(profile) != nil || profile.path("properties", "flaky.profile") != nil
}

// profilePlugin is the profile's <plugin> of flaky's Maven plugin, or nil.
func profilePlugin(profile *xmlNode) *xmlNode {
	for _, pl := range profile.path("build", "plugins").all("plugin") {
		if pl.value("groupId") == ArtifactGroupID && pl.value("artifactId") == PluginArtifactID {
			return pl
		}
	}
	return nil
}

// writtenBy is the flaky version that wrote the profile: its plugin's, or
// the flaky.version property of an older profile.
func writtenBy(profile *xmlNode) string {
	if pl := profilePlugin(profile); pl != nil {
		return pl.value("version")
	}
	return profile.path("properties").value("flaky.version")
}

// BuildDirArg is the JVM argument of the profile's Surefire argLine that
// tells flaky's provider the module's build directory (the flaky.buildDir
// system property), quoted: Surefire splits the argLine as a shell would.
const BuildDirArg = `"-Dflaky.buildDir=${project.build.directory}"`

// AgentArgLine is the JVM argument of the profile's Surefire argLine that
// attaches the agent from the local repository: it connects to the driver
// that flaky.port and flaky.token name, and with both empty stays
// unconnected. A flaky.token value that starts with a comma adds agent
// options (see chaos.MavenCommand).
const AgentArgLine = "-javaagent:${settings.localRepository}/dev/flaky/flaky-agent/${flaky.version}/flaky-agent-${flaky.version}.jar=port=${flaky.port},token=${flaky.token}"

// ProfileReaches says whether the module in moduleDir gets a flaky profile
// from its own pom or a parent pom on disk.
func ProfileReaches(moduleDir string) (bool, error) {
	chain, err := loadPomChain(moduleDir, func(string, ...any) {})
	if err != nil {
		return false, err
	}
	for _, p := range chain {
		if p.project.Profiles == nil {
			continue
		}
		for _, pr := range *p.project.Profiles {
			if str(pr.ID) == ProfileID {
				return true, nil
			}
		}
	}
	return false, nil
}

// CheckProfile reports whether the poms of the project in dir that need the
// flaky profile have the one InitProfile would write now.
func CheckProfile(dir string, opts ProfileOptions) (ProfileState, error) {
	plans, err := planProfiles(dir, opts)
	if err != nil {
		return ProfileState{}, err
	}
	var state ProfileState
	for _, pl := range plans {
		state.Poms = append(state.Poms, pl.check)
	}
	return state, nil
}

// InitProfile adds the flaky profile to the poms of the project in dir that
// the reactor's modules inherit it from: for each module that builds code,
// the topmost pom of its parent chain under dir (the root pom when the
// modules inherit from it; a module's own pom when its parent is elsewhere).
// In each, the profile goes into <profiles>, after the last profile, or in a
// new <profiles> at the end of <project>; a stale flaky profile is
// rewritten in place. Everything else in the file stays byte for byte; the
// indentation of the file and the line ending of the place the profile goes
// are used. It returns the state found before, with the backup of each pom
// it wrote; current profiles are left alone. A flaky profile that flaky did
// not write, and a read-only pom, are refused unless opts.Force. No pom is
// written unless every one can be.
func InitProfile(dir string, opts ProfileOptions) (ProfileState, error) {
	plans, err := planProfiles(dir, opts)
	if err != nil {
		return ProfileState{}, err
	}
	var state ProfileState
	var edits []pomEdit
	for _, pl := range plans {
		state.Poms = append(state.Poms, pl.check)
		if pl.check.Status == ProfileCurrent {
			continue
		}
		if err := pl.doc.foreignProfile(opts.Force); err != nil {
			return ProfileState{}, err
		}
		updated, err := pl.doc.withProfile(pl.text)
		if err != nil {
			return ProfileState{}, err
		}
		// The edit must give a pom that parses and has exactly this profile.
		q := &pomDoc{path: pl.doc.path, content: updated}
		if q.root, err = parseTree(updated); err != nil {
			return ProfileState{}, fmt.Errorf("internal error: the edited %s does not parse: %w", pl.doc.path, err)
		}
		if again, _ := q.check(pl.spec); again.Status != ProfileCurrent {
			return ProfileState{}, fmt.Errorf("internal error: the edited %s lacks the profile", pl.doc.path)
		}
		edits = append(edits, pomEdit{path: pl.doc.path, old: pl.doc.content, content: updated})
	}
	backups, err := writePoms(dir, edits, opts.Force)
	for i := range state.Poms {
		state.Poms[i].Backup = backups[state.Poms[i].Pom]
	}
	return state, err
}

// RemovedProfile is a pom RemoveProfile took the flaky profile out of.
type RemovedProfile struct {
	Pom    string // the pom's path
	Backup string // the copy of its previous content
}

// RemoveProfile takes the flaky profile out of the project's poms (the root
// pom, the poms of its modules and their parents under dir) together with
// its line, and the <profiles> element too when nothing else is left in it,
// so a pom InitProfile changed gets its bytes back. A flaky profile that
// flaky did not write, and a read-only pom, are refused unless force (see
// ProfileOptions.Force); no pom is written unless every one can be. It
// returns the poms it changed, each with its backup.
func RemoveProfile(dir string, force bool) ([]RemovedProfile, error) {
	root, err := openPom(dir)
	if err != nil {
		return nil, err
	}
	docs := []*pomDoc{root}
	if r, err := readReactor(filepath.Dir(root.path), func(string, ...any) {}); err == nil {
		seen := map[string]bool{root.path: true}
		for _, chain := range r.modules {
			for _, p := range chain {
				if seen[p.path] || !within(filepath.Dir(root.path), p.path) {
					continue
				}
				seen[p.path] = true
				d, err := openPom(filepath.Dir(p.path))
				if err != nil {
					return nil, err
				}
				docs = append(docs, d)
			}
		}
	}
	var edits []pomEdit
	for _, p := range docs {
		updated, ok, err := p.withoutProfile(force)
		if err != nil {
			return nil, err
		}
		if ok {
			edits = append(edits, pomEdit{path: p.path, old: p.content, content: updated})
		}
	}
	backups, err := writePoms(filepath.Dir(root.path), edits, force)
	var removed []RemovedProfile
	for _, e := range edits {
		if b, ok := backups[e.path]; ok {
			removed = append(removed, RemovedProfile{Pom: e.path, Backup: b})
		}
	}
	return removed, err
}

// withoutProfile is p's file without its flaky profile, and whether it had
// one; a profile flaky did not write is refused unless force.
func (p *pomDoc) withoutProfile(force bool) ([]byte, bool, error) {
	profiles, profile := p.flakyProfile()
	if profile == nil {
		return nil, false, nil
	}
	if err := p.foreignProfile(force); err != nil {
		return nil, false, err
	}
	updated := splice(p.content, cutStart(p.content, profile), profile.end, nil)
	root, err := parseTree(updated)
	if err != nil {
		return nil, false, fmt.Errorf("internal error: %s does not parse without the profile: %w", p.path, err)
	}
	if profiles = root.child("profiles"); profiles != nil && len(profiles.children) == 0 &&
		len(bytes.TrimFunc(updated[profiles.innerStart:profiles.innerEnd], isXMLSpaceRune)) == 0 {
		updated = splice(updated, cutStart(updated, profiles), profiles.end, nil)
	}
	return updated, true, nil
}

// profilePlan is the profile one pom gets.
type profilePlan struct {
	doc   *pomDoc
	spec  profileSpec
	check ProfileCheck
	text  []byte // the profile to write where it belongs
}

// planProfiles works out which poms of the project in dir get the flaky
// profile, and what each profile says.
func planProfiles(dir string, opts ProfileOptions) ([]profilePlan, error) {
	if opts.Version == "" {
		return nil, errors.New("no flaky version for the profile")
	}
	rootDoc, err := openPom(dir)
	if err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "flaky: warning: "+format+"\n", args...)
		}
	}
	rootDir := filepath.Dir(rootDoc.path)
	r, err := readReactor(rootDir, logf)
	if err != nil {
		return nil, err
	}
	platform, err := platformFor(r, rootDoc, opts)
	if err != nil {
		return nil, err
	}
	repo := opts.LocalRepo
	if repo == "" {
		repo = LocalRepository()
	}
	var plans []profilePlan
	for _, t := range profileTargets(r) {
		doc := rootDoc
		if t.pom != rootDoc.path {
			if doc, err = openPom(filepath.Dir(t.pom)); err != nil {
				return nil, err
			}
		}
		pin, note, err := t.surefirePin(repo, rootDir)
		if err != nil {
			return nil, err
		}
		spec := profileSpec{
			version:         opts.Version,
			platformVersion: platform,
			argLine:         rootArgLine(doc),
			forks:           t.setsForks(),
		}
		if pin {
			spec.surefireVersion = PinnedSurefire
		}
		check, text := doc.check(spec)
		check.Note = note
		for _, m := range t.modules {
			check.Modules = append(check.Modules, relPath(rootDir, filepath.Dir(m[0].path)))
		}
		plans = append(plans, profilePlan{doc: doc, spec: spec, check: check, text: text})
	}
	r.warn(logf)
	return plans, nil
}

// platformFor is the JUnit Platform version the profiles name: the option,
// else the one the poms give, else the one an earlier init was told (kept in
// the root pom's profile); "" when the project does not use the platform.
func platformFor(r *reactor, root *pomDoc, opts ProfileOptions) (string, error) {
	switch uses, version := r.junitPlatform(); {
	case opts.JUnitPlatformVersion != "":
		return opts.JUnitPlatformVersion, nil
	case !uses:
		return "", nil
	case version != "":
		return version, nil
	}
	_, profile := root.flakyProfile()
	if v := profileLauncher(profile); v != "" {
		return v, nil
	}
	return "", ErrPlatformVersionUnknown
}

// profileLauncher is the junit-platform-launcher version of a flaky
// profile's Surefire (or the flaky.junit.platform.version property of an
// older profile); "" when it has none.
func profileLauncher(profile *xmlNode) string {
	if v := profile.path("properties").value("flaky.junit.platform.version"); v != "" {
		return v
	}
	for _, pl := range profile.path("build", "plugins").all("plugin") {
		if !isSurefire(pl.value("groupId"), pl.value("artifactId")) {
			continue
		}
		for _, d := range pl.path("dependencies").all("dependency") {
			if d.value("groupId") == "org.junit.platform" && d.value("artifactId") == launcherArtifactID {
				return d.value("version")
			}
		}
	}
	return ""
}

// pomDoc is a root pom read for editing.
type pomDoc struct {
	path    string // the file, symbolic links resolved
	content []byte
	root    *xmlNode // <project>
}

// openPom reads and parses dir's pom.xml.
func openPom(dir string) (*pomDoc, error) {
	path, err := filepath.Abs(filepath.Join(dir, "pom.xml"))
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no pom.xml in %s", dir)
	}
	if path, err = filepath.EvalSymlinks(path); err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	content, err := readPomBytes(path)
	if err != nil {
		return nil, err
	}
	root, err := parseTree(content)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be parsed, so flaky leaves it alone: %w", path, err)
	}
	if root.name != "project" {
		return nil, fmt.Errorf("%s is not a Maven pom: its root element is <%s>, not <project>", path, root.name)
	}
	if root.selfClosing() {
		return nil, fmt.Errorf("%s is not a Maven pom: <project/> is empty", path)
	}
	return &pomDoc{path: path, content: content, root: root}, nil
}

// flakyProfile returns the <profiles> element and the flaky profile in it.
func (p *pomDoc) flakyProfile() (profiles, profile *xmlNode) {
	profiles = p.root.child("profiles")
	for _, pr := range profiles.all("profile") {
		if pr.value("id") == ProfileID {
			return profiles, pr
		}
	}
	return profiles, nil
}

// check compares the pom's flaky profile with spec's and returns the result
// and the profile text to write where the profile belongs.
func (p *pomDoc) check(spec profileSpec) (ProfileCheck, []byte) {
	style := p.insertionStyle()
	check := ProfileCheck{Pom: p.path, Status: ProfileAbsent}
	profiles, profile := p.flakyProfile()
	if profile == nil {
		indent := childIndent(p.content, p.root, style) + style.unit
		if profiles != nil {
			indent = childIndent(p.content, profiles, style)
		}
		return check, spec.render(indent, style)
	}
	check.WrittenBy = writtenBy(profile)
	want := spec.render(elementIndent(p.content, profiles, profile, style), style)
	check.Status = ProfileStale
	if bytes.Equal(p.content[profile.start:profile.end], want) {
		check.Status = ProfileCurrent
	}
	return check, want
}

// withProfile returns the content with profile text in place of the flaky
// profile, or added as the last profile, or in a new <profiles> element at
// the end of <project>.
func (p *pomDoc) withProfile(text []byte) ([]byte, error) {
	style := p.insertionStyle()
	profiles, profile := p.flakyProfile()
	switch {
	case profile != nil:
		return splice(p.content, profile.start, profile.end, text), nil
	case profiles == nil:
		indent := childIndent(p.content, p.root, style)
		var b bytes.Buffer
		b.WriteString(style.eol + indent + "<profiles>")
		b.WriteString(style.eol + indent + style.unit)
		b.Write(text)
		b.WriteString(style.eol + indent + "</profiles>")
		at := appendPoint(p.content, p.root)
		return splice(p.content, at, at, b.Bytes()), nil
	case profiles.selfClosing():
		return nil, fmt.Errorf("%s has an empty <profiles/> element; write it as <profiles></profiles> (or remove it) and run flaky init again", p.path)
	default:
		insert := append([]byte(style.eol+childIndent(p.content, profiles, style)), text...)
		at := appendPoint(p.content, profiles)
		return splice(p.content, at, at, insert), nil
	}
}

// insertionStyle is the file's style with the line ending of the place
// where the profile goes, since a file may mix line endings.
func (p *pomDoc) insertionStyle() pomStyle {
	style := detectStyle(p.content, p.root)
	profiles, profile := p.flakyProfile()
	at := appendPoint(p.content, p.root)
	switch {
	case profile != nil:
		at = profile.start
	case profiles != nil:
		at = appendPoint(p.content, profiles)
	}
	style.eol = eolAt(p.content, at, style.eol)
	return style
}

func isXMLSpaceRune(r rune) bool { return r < 0x80 && isXMLSpace(byte(r)) }

// profileSpec is what varies in the flaky profile.
type profileSpec struct {
	version         string // flaky's version: of the plugin and the provider
	platformVersion string // the junit-platform-launcher's; "" when the JUnit Platform is not used
	argLine         string // Surefire's argLine before the agent, as XML text
	surefireVersion string // the maven-surefire-plugin version the profile pins; "" for none
	// forks says the profile sets Surefire's forkCount and reuseForks to
	// their defaults, one reused fork, because a pom it overrides sets them
	// (see profileTarget.setsForks).
	forks bool
}

// render writes the profile starting at "<profile>" and ending after
// "</profile>"; its other lines start with indent plus units. Surefire gets
// flaky's provider and the agent after @{argLine}; flaky's Maven plugin
// does the rest in two goals, each in its default phase: prepare in
// test-compile (the binary, the provider and agent in the local repository,
// the defaults of the properties the Surefire configuration names) and
// verify in verify (`flaky verify` with the flaky.* properties, then the
// gate). The profile declares the plugin as an extension, whose GoalBinder
// binds both goals (see java/flaky-maven-plugin), so it needs no
// <executions>.
func (s profileSpec) render(indent string, style pomStyle) []byte {
	var b bytes.Buffer
	line := func(depth int, text string) {
		if b.Len() > 0 {
			b.WriteString(style.eol + indent + strings.Repeat(style.unit, depth))
		}
		b.WriteString(text)
	}
	elem := func(depth int, name, value string) {
		line(depth, "<"+name+">"+value+"</"+name+">")
	}
	coordinates := func(depth int, groupID, artifactID, version string) {
		elem(depth, "groupId", groupID)
		elem(depth, "artifactId", artifactID)
		elem(depth, "version", escapeText(version))
	}
	line(0, "<profile>")
	elem(1, "id", ProfileID)
	line(1, "<build>")
	line(2, "<plugins>")
	line(3, "<plugin>")
	elem(4, "artifactId", "maven-surefire-plugin")
	if s.surefireVersion != "" {
		elem(4, "version", escapeText(s.surefireVersion))
	}
	line(4, "<dependencies>")
	for _, d := range [][2]string{{ArtifactGroupID, "flaky-surefire-provider"}, {"org.junit.platform", launcherArtifactID}} {
		version := s.version
		if d[1] == launcherArtifactID {
			if version = s.platformVersion; version == "" {
				continue
			}
		}
		line(5, "<dependency>")
		coordinates(6, d[0], d[1], version)
		line(5, "</dependency>")
	}
	line(4, "</dependencies>")
	line(4, "<configuration>")
	if s.forks {
		elem(5, "forkCount", "1")
		elem(5, "reuseForks", "true")
	}
	elem(5, "testFailureIgnore", "${flaky.testFailureIgnore}")
	elem(5, "argLine", s.argLine+" "+BuildDirArg+" "+AgentArgLine)
	line(4, "</configuration>")
	line(3, "</plugin>")
	line(3, "<plugin>")
	coordinates(4, ArtifactGroupID, PluginArtifactID, s.version)
	elem(4, "extensions", "true")
	line(3, "</plugin>")
	line(2, "</plugins>")
	line(1, "</build>")
	line(0, "</profile>")
	return b.Bytes()
}

// launcherArtifactID is the JUnit Platform launcher, which the profile adds
// to Surefire at the project's platform version.
const launcherArtifactID = "junit-platform-launcher"

// escapeText is v escaped as XML character data.
func escapeText(v string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(v)) // never fails on a strings.Builder
	return b.String()
}

// FetchedBinary is where flaky's Maven plugin puts the flaky binary it
// resolves through Maven, relative to the module's build directory.
const FetchedBinary = "flaky/bin/flaky"

// rootArgLine is the profile's Surefire argLine before the agent:
// @{argLine}, then the root pom's own Surefire argLine (build plugins first,
// then plugin management) as written, or that argLine alone when it already
// refers to the argLine property, a ${argLine} of it made the late
// @{argLine}: Maven would put the property's value in place of ${argLine}
// before JaCoCo's prepare-agent sets it (and flaky's plugin sets it empty
// when the build does not), leaving the profile's Surefire run without
// JaCoCo.
func rootArgLine(p *pomDoc) string {
	for _, section := range [][]string{{"build", "plugins"}, {"build", "pluginManagement", "plugins"}} {
		for _, pl := range p.root.path(section...).all("plugin") {
			if !isSurefire(pl.value("groupId"), pl.value("artifactId")) {
				continue
			}
			a := pl.path("configuration", "argLine")
			if a == nil {
				continue
			}
			raw := string(bytes.TrimFunc(p.content[a.innerStart:a.innerEnd], isXMLSpaceRune))
			switch {
			case raw == "":
				return "@{argLine}"
			case strings.Contains(a.text, "@{argLine}") || strings.Contains(a.text, "${argLine}"):
				return strings.ReplaceAll(raw, "${argLine}", "@{argLine}")
			default:
				return "@{argLine} " + raw
			}
		}
	}
	return "@{argLine}"
}

func isSurefire(groupID, artifactID string) bool {
	return artifactID == "maven-surefire-plugin" && (groupID == "" || groupID == "org.apache.maven.plugins")
}
