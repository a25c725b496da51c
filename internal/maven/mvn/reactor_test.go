package mvn

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/vifraa/gopom"
)

// TestReadReactorModel410 reads Maven 4 reactors (model 4.1.0): modules named
// by <subprojects> (also in a profile) or discovered as the subdirectories
// with a pom.xml, and children whose <parent/> names no coordinates.
func TestReadReactorModel410(t *testing.T) {
	const head = `<project xmlns="http://maven.apache.org/POM/4.1.0"><modelVersion>4.1.0</modelVersion>`
	child := func(id string) string {
		return head + `<parent/><artifactId>` + id + `</artifactId></project>`
	}
	for _, c := range []struct {
		name string
		root string
		want []string
	}{
		{"subprojects", head + `<groupId>g</groupId><artifactId>root</artifactId><version>1</version><packaging>pom</packaging>
			<subprojects><subproject>web</subproject></subprojects>
			<profiles><profile><id>p</id><subprojects><subproject>core</subproject></subprojects></profile></profiles></project>`,
			[]string{"web", "core"}},
		{"discovered", head + `<groupId>g</groupId><artifactId>root</artifactId><version>1</version><packaging>pom</packaging></project>`,
			[]string{"core", "web"}},
		{"model 4.0.0 discovers nothing", `<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>root</artifactId><version>1</version><packaging>pom</packaging></project>`,
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"pom.xml": c.root, "core/pom.xml": child("core"), "web/pom.xml": child("web")})
			r, err := readReactor(dir, t.Logf)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, chain := range r.modules {
				got = append(got, filepath.Base(filepath.Dir(chain[0].path)))
				if len(chain) != 2 || chain[1].path != r.root[0].path {
					t.Errorf("%s: parent chain %s, want the root pom as parent", chain[0].path, chainNames(chain))
				}
				// The module's own coordinates come from the inferred parent.
				props := properties(chain, nil)
				if props["project.groupId"] != "g" || props["project.version"] != "1" {
					t.Errorf("%s: project.groupId %q, project.version %q; want g and 1", chain[0].path, props["project.groupId"], props["project.version"])
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("modules %v, want %v", got, c.want)
			}
			if len(c.want) > 0 {
				if root := reactorRoot(filepath.Join(dir, "core")); root != dir {
					t.Errorf("reactor root of core: %s, want %s", root, dir)
				}
			}
		})
	}
}

// TestParentMatches checks the coordinates a pom must have to be the parent
// a <parent> names: those given; any when left out (model 4.1.0 infers them).
func TestParentMatches(t *testing.T) {
	s := func(v string) *string { return &v }
	pom := &gopom.Project{GroupID: s("g"), ArtifactID: s("root")}
	for _, c := range []struct {
		ref  gopom.Parent
		want bool
	}{
		{gopom.Parent{GroupID: s("g"), ArtifactID: s("root")}, true},
		{gopom.Parent{}, true},
		{gopom.Parent{ArtifactID: s("root")}, true},
		{gopom.Parent{GroupID: s("g"), ArtifactID: s("other")}, false},
		{gopom.Parent{GroupID: s("h")}, false},
	} {
		if got := parentMatches(&c.ref, pom); got != c.want {
			t.Errorf("parentMatches(%s:%s) = %v, want %v", str(c.ref.GroupID), str(c.ref.ArtifactID), got, c.want)
		}
	}
}
