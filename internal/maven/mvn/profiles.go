package mvn

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vifraa/gopom"
)

// MavenArgs are the Maven profiles and user properties a standalone command
// passes to every Maven invocation (-P, -D) and applies, as Maven would, to
// the pom's Surefire configuration it reads.
type MavenArgs struct {
	Profiles   []string          // profile ids; "!id" or "-id" deactivates one
	Properties map[string]string // user properties (-Dkey=value)
}

// ParseMavenArgs reads -P and -D values: each profile value may list ids
// separated by commas; each property is key=value (key alone means "true",
// as on Maven's command line).
func ParseMavenArgs(profiles, properties []string) (MavenArgs, error) {
	var a MavenArgs
	for _, p := range profiles {
		for _, id := range strings.Split(p, ",") {
			if id = strings.TrimSpace(id); id != "" {
				a.Profiles = append(a.Profiles, id)
			}
		}
	}
	for _, kv := range properties {
		k, v, ok := strings.Cut(kv, "=")
		if k = strings.TrimSpace(k); k == "" {
			return MavenArgs{}, fmt.Errorf("maven property %q: want key=value", kv)
		}
		if !ok {
			v = "true"
		}
		if a.Properties == nil {
			a.Properties = map[string]string{}
		}
		a.Properties[k] = v
	}
	return a, nil
}

// Args returns the Maven command-line arguments for a: -Pa,b and -Dk=v,
// properties sorted by key.
func (a MavenArgs) Args() []string {
	var args []string
	if len(a.Profiles) > 0 {
		args = append(args, "-P"+strings.Join(a.Profiles, ","))
	}
	keys := make([]string, 0, len(a.Properties))
	for k := range a.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-D"+k+"="+a.Properties[k])
	}
	return args
}

// explicit returns whether the profile id is activated (1), deactivated
// (-1) or not named (0) by a.
func (a MavenArgs) explicit(id string) int {
	state := 0
	for _, p := range a.Profiles {
		switch {
		case p == id:
			state = 1
		case p == "!"+id || p == "-"+id:
			state = -1
		}
	}
	return state
}

// activeProfiles returns the indexes of the pom's profiles that Maven
// would activate with a: those named by -P, those whose property
// activation a's properties satisfy, and, when none of the pom's profiles
// is active otherwise, the ones active by default; never one that -P
// deactivates. JDK, OS and file activation are not evaluated.
func activeProfiles(p *gopom.Project, a MavenArgs) []int {
	if p.Profiles == nil {
		return nil
	}
	var active, byDefault []int
	for i, pr := range *p.Profiles {
		id := str(pr.ID)
		switch a.explicit(id) {
		case 1:
			active = append(active, i)
			continue
		case -1:
			continue
		}
		act := pr.Activation
		if act == nil {
			continue
		}
		if prop := act.Property; prop != nil && propertyActivates(str(prop.Name), str(prop.Value), a.Properties) {
			active = append(active, i)
			continue
		}
		if act.ActiveByDefault != nil && *act.ActiveByDefault {
			byDefault = append(byDefault, i)
		}
	}
	if len(active) == 0 {
		return byDefault
	}
	return active
}

// propertyActivates evaluates a profile's property activation against the
// user properties: "name" (defined), "!name" (undefined), name with value
// (equal), name with "!value" (not equal).
func propertyActivates(name, value string, props map[string]string) bool {
	if name == "" {
		return false
	}
	if n, neg := strings.CutPrefix(name, "!"); neg {
		_, ok := props[n]
		return !ok
	}
	v, ok := props[name]
	switch {
	case value == "":
		return ok
	case strings.HasPrefix(value, "!"):
		return !ok || v != value[1:]
	}
	return ok && v == value
}
