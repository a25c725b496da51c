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

// ProfileID is the id of the Maven profile `flaky init` adds.
const ProfileID = "flaky"

// profileFormat is the flaky.profile property: the version of the profile's
// layout, raised when the layout changes.
const profileFormat = "2"

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
	// Force replaces a profile with id flaky that flaky did not write, and
	// writes a read-only pom.
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

// ProfileCheck describes the flaky profile of a project's root pom.
type ProfileCheck struct {
	Pom    string        // the root pom.xml
	Status ProfileStatus // before any change
	// WrittenBy is the flaky.version of the profile found, if any.
	WrittenBy string
	// Backup is the copy of the pom's previous content, when it was rewritten.
	Backup string
}

// CheckProfile reports whether dir's pom.xml has the flaky profile that
// InitProfile would write now.
func CheckProfile(dir string, opts ProfileOptions) (ProfileCheck, error) {
	p, err := openPom(dir)
	if err != nil {
		return ProfileCheck{}, err
	}
	spec, err := profileFor(p, opts)
	if err != nil {
		return ProfileCheck{}, err
	}
	check, _ := p.check(spec)
	return check, nil
}

// InitProfile adds the flaky profile to dir's pom.xml (into its <profiles>,
// after the last profile, or in a new <profiles> at the end of <project>), or
// rewrites a stale flaky profile in place. Everything else in the file stays
// byte for byte; the indentation and line endings of the file are used. It
// returns the status found before; a current profile is left alone.
func InitProfile(dir string, opts ProfileOptions) (ProfileCheck, error) {
	p, err := openPom(dir)
	if err != nil {
		return ProfileCheck{}, err
	}
	spec, err := profileFor(p, opts)
	if err != nil {
		return ProfileCheck{}, err
	}
	check, want := p.check(spec)
	if check.Status == ProfileCurrent {
		return check, nil
	}
	if err := p.foreignProfile(opts.Force); err != nil {
		return ProfileCheck{}, err
	}
	updated, err := p.withProfile(want)
	if err != nil {
		return ProfileCheck{}, err
	}
	// The edit must give a pom that parses and has exactly this profile.
	q := &pomDoc{path: p.path, content: updated}
	if q.root, err = parseTree(updated); err != nil {
		return ProfileCheck{}, fmt.Errorf("internal error: the edited %s does not parse: %w", p.path, err)
	}
	if again, _ := q.check(spec); again.Status != ProfileCurrent {
		return ProfileCheck{}, fmt.Errorf("internal error: the edited %s lacks the profile", p.path)
	}
	check.Backup, err = writePom(p.path, p.content, updated, opts.Force)
	return check, err
}

// foreignProfile refuses a profile with id flaky that lacks the flaky.profile
// property flaky writes: the user's own, which flaky must not replace or
// remove unless forced.
func (p *pomDoc) foreignProfile(force bool) error {
	_, profile := p.flakyProfile()
	if profile == nil || force || profile.path("properties", "flaky.profile") != nil {
		return nil
	}
	return fmt.Errorf("%s has a profile with id %q that flaky did not write (it has no flaky.profile property); rename it, or pass --force to let flaky replace or remove it", p.path, ProfileID)
}

// RemoveProfile takes the flaky profile out of dir's pom.xml together with
// its line, and the <profiles> element too when nothing else is left in it,
// so a pom InitProfile changed gets its bytes back. It returns the pom's
// path, the backup of its previous content ("" when there was no profile to
// remove). force is ProfileOptions.Force.
func RemoveProfile(dir string, force bool) (pom, backup string, err error) {
	p, err := openPom(dir)
	if err != nil {
		return "", "", err
	}
	profiles, profile := p.flakyProfile()
	if profile == nil {
		return p.path, "", nil
	}
	if err := p.foreignProfile(force); err != nil {
		return "", "", err
	}
	updated := splice(p.content, cutStart(p.content, profile), profile.end, nil)
	root, err := parseTree(updated)
	if err != nil {
		return "", "", fmt.Errorf("internal error: %s does not parse without the profile: %w", p.path, err)
	}
	if profiles = root.child("profiles"); profiles != nil && len(profiles.children) == 0 &&
		len(bytes.TrimFunc(updated[profiles.innerStart:profiles.innerEnd], isXMLSpaceRune)) == 0 {
		updated = splice(updated, cutStart(updated, profiles), profiles.end, nil)
	}
	backup, err = writePom(p.path, p.content, updated, force)
	return p.path, backup, err
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
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
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
	check.WrittenBy = profile.path("properties").value("flaky.version")
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
	version         string // flaky.version
	platformVersion string // flaky.junit.platform.version; "" when the JUnit Platform is not used
	argLine         string // Surefire's argLine before the agent, as XML text
	argLineProperty bool   // whether the profile defines an empty argLine property
}

// render writes the profile starting at "<profile>" and ending after
// "</profile>"; its other lines start with indent plus units.
func (s profileSpec) render(indent string, style pomStyle) []byte {
	esc := func(v string) string {
		var b strings.Builder
		_ = xml.EscapeText(&b, []byte(v)) // never fails on a strings.Builder
		return b.String()
	}
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
	dependency := func(depth int, groupID, artifactID, version string) {
		line(depth, "<dependency>")
		elem(depth+1, "groupId", groupID)
		elem(depth+1, "artifactId", artifactID)
		elem(depth+1, "version", version)
		line(depth, "</dependency>")
	}
	execution := func(depth int, id, phase string, args ...string) {
		line(depth, "<execution>")
		elem(depth+1, "id", id)
		elem(depth+1, "phase", phase)
		line(depth+1, "<goals>")
		elem(depth+2, "goal", "exec")
		line(depth+1, "</goals>")
		line(depth+1, "<configuration>")
		elem(depth+2, "executable", "${flaky.bin}")
		line(depth+2, "<arguments>")
		for _, a := range args {
			elem(depth+3, "argument", a)
		}
		line(depth+2, "</arguments>")
		line(depth+1, "</configuration>")
		line(depth, "</execution>")
	}

	line(0, "<profile>")
	elem(1, "id", ProfileID)
	line(1, "<properties>")
	elem(2, "flaky.profile", profileFormat)
	elem(2, "flaky.version", esc(s.version))
	elem(2, "flaky.bin", "flaky")
	elem(2, "flaky.gate", "on")
	for _, name := range []string{"flaky.reruns", "flaky.rounds", "flaky.budget", "flaky.chaos", "flaky.port", "flaky.token"} {
		elem(2, name, "")
	}
	elem(2, "flaky.testFailureIgnore", "true")
	if s.platformVersion != "" {
		elem(2, "flaky.junit.platform.version", esc(s.platformVersion))
	}
	if s.argLineProperty {
		elem(2, "argLine", "")
	}
	line(1, "</properties>")
	line(1, "<build>")
	line(2, "<plugins>")
	line(3, "<plugin>")
	elem(4, "groupId", "org.apache.maven.plugins")
	elem(4, "artifactId", "maven-surefire-plugin")
	line(4, "<dependencies>")
	dependency(5, "dev.flaky", "flaky-surefire-provider", "${flaky.version}")
	if s.platformVersion != "" {
		dependency(5, "org.junit.platform", "junit-platform-launcher", "${flaky.junit.platform.version}")
	}
	line(4, "</dependencies>")
	line(4, "<configuration>")
	elem(5, "forkCount", "1")
	elem(5, "reuseForks", "true")
	elem(5, "testFailureIgnore", "${flaky.testFailureIgnore}")
	elem(5, "argLine", s.argLine+" -javaagent:${settings.localRepository}/dev/flaky/flaky-agent/${flaky.version}/flaky-agent-${flaky.version}.jar=port=${flaky.port},token=${flaky.token}")
	line(5, "<systemPropertyVariables>")
	elem(6, "flaky.buildDir", "${project.build.directory}")
	line(5, "</systemPropertyVariables>")
	line(4, "</configuration>")
	line(3, "</plugin>")
	line(3, "<plugin>")
	elem(4, "groupId", "org.codehaus.mojo")
	elem(4, "artifactId", "exec-maven-plugin")
	elem(4, "version", "3.5.1")
	line(4, "<executions>")
	execution(5, "flaky-install-artifacts", "validate",
		"install-artifacts", "--repo", "${settings.localRepository}")
	execution(5, "flaky-verify", "verify",
		"verify",
		"--module", "${project.basedir}",
		"--build-dir", "${project.build.directory}",
		"--root", "${maven.multiModuleProjectDirectory}",
		"--gate", "${flaky.gate}",
		"--reruns", "${flaky.reruns}",
		"--rounds", "${flaky.rounds}",
		"--budget", "${flaky.budget}",
		"--chaos", "${flaky.chaos}")
	line(4, "</executions>")
	line(3, "</plugin>")
	line(2, "</plugins>")
	line(1, "</build>")
	line(0, "</profile>")
	return b.Bytes()
}

// profileFor works out the profile for the project whose root pom is p.
func profileFor(p *pomDoc, opts ProfileOptions) (profileSpec, error) {
	if opts.Version == "" {
		return profileSpec{}, errors.New("no flaky version for the profile")
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "flaky: warning: "+format+"\n", args...)
		}
	}
	r, err := readReactor(filepath.Dir(p.path), logf)
	if err != nil {
		return profileSpec{}, err
	}
	spec := profileSpec{
		version:         opts.Version,
		argLine:         rootArgLine(p),
		argLineProperty: !r.argLineProperty(),
	}
	switch uses, version := r.junitPlatform(); {
	case opts.JUnitPlatformVersion != "":
		spec.platformVersion = opts.JUnitPlatformVersion
	case !uses:
	case version != "":
		spec.platformVersion = version
	default:
		// Keep what an earlier init was told.
		_, profile := p.flakyProfile()
		if spec.platformVersion = profile.path("properties").value("flaky.junit.platform.version"); spec.platformVersion == "" {
			return profileSpec{}, ErrPlatformVersionUnknown
		}
	}
	r.warn(logf)
	return spec, nil
}

// rootArgLine is the profile's Surefire argLine before the agent:
// @{argLine}, then the root pom's own Surefire argLine (build plugins first,
// then plugin management) as written, or that argLine alone when it already
// refers to the argLine property.
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
				return raw
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
