package repair

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/fix/editor"
)

// asAtStart is how the root-cause analysis renders a property or file that
// is as it was when the JVM started.
const asAtStart = "<as at JVM start>"

// restore is the code that puts one or more polluted states back: the
// statements for a tear-down (or set-up) and the members they need.
type restore struct {
	code editor.Code
	what string // what it restores, for the reasons
}

// directRestores turns the polluted states other than static fields into
// restores: per unit (a property, the default locale with its categories,
// the default time zone, a file) its alternatives, the preferred first.
// why says which states have none.
func (r *run) directRestores(states []State) (units [][]restore, why []string) {
	var locale []State
	for _, s := range states {
		name := s.Root
		switch s.Kind {
		case "system-property":
			alt, w := r.propertyRestore(name, s.Passing)
			if w != "" {
				why = append(why, w)
				continue
			}
			units = append(units, []restore{alt})
		case "jdk-default":
			switch {
			case strings.HasPrefix(name, "Locale.default"):
				locale = append(locale, s)
			case name == "TimeZone.default":
				units = append(units, timeZoneRestores(s.Passing))
			default:
				why = append(why, "JDK default "+name+": no direct restore known")
			}
		case "file":
			alt, w := fileRestore(name, s.Passing)
			if w != "" {
				why = append(why, w)
				continue
			}
			units = append(units, []restore{alt})
		case "static-field":
			// reset's reset-methods and reflection.
		default:
			why = append(why, "polluted state of kind "+s.Kind+": unknown")
		}
	}
	if len(locale) > 0 {
		units = append(units, localeRestores(locale))
	}
	return units, why
}

// propertyRestore restores a system property: cleared when it was absent,
// else set to its passing value; "as at JVM start" is the value the module's
// fork sets (-D in its argLine or a system property variable), else absent.
func (r *run) propertyRestore(name, passing string) (restore, string) {
	value, present := "", false
	switch p := strings.TrimSpace(passing); {
	case p == asAtStart:
		value, present = r.startProperty(name)
	case absent(p):
	default:
		v, err := strconv.Unquote(p)
		if err != nil {
			return restore{}, fmt.Sprintf("system property %s: passing value %s is not a whole string", name, p)
		}
		value, present = v, true
	}
	stmt := "System.clearProperty(" + javaString(name) + ");"
	if present {
		stmt = "System.setProperty(" + javaString(name) + ", " + javaString(value) + ");"
	}
	return restore{code: editor.Code{Statements: []string{stmt}}, what: "system property " + name}, ""
}

// startProperty is the value the module's test JVMs start with for a system
// property, as far as the build sets it.
func (r *run) startProperty(name string) (string, bool) {
	if v, ok := r.cfg.Module.SysProps[name]; ok {
		return v, true
	}
	for _, a := range slices.Backward(r.cfg.Module.JVMArgs) {
		if k, v, ok := strings.Cut(strings.TrimPrefix(a, "-D"), "="); ok && strings.HasPrefix(a, "-D") && k == name {
			return v, true
		}
	}
	return "", false
}

// localeRestores restores the default locale and its categories: first
// each to what it was when the class holding the restore was initialised
// (before its first test ran), then to the passing values the analysis
// recorded (those of the machine the analysis ran on).
func localeRestores(states []State) []restore {
	slices.SortFunc(states, func(a, b State) int { return strings.Compare(a.Root, b.Root) })
	var saved, passing editor.Code
	what := "default locale"
	for _, s := range states {
		category, field := "", "INITIAL_LOCALE"
		switch s.Root {
		case "Locale.default(DISPLAY)":
			category, field = "java.util.Locale.Category.DISPLAY", "INITIAL_DISPLAY_LOCALE"
		case "Locale.default(FORMAT)":
			category, field = "java.util.Locale.Category.FORMAT", "INITIAL_FORMAT_LOCALE"
		}
		saved.Members = append(saved.Members, fmt.Sprintf("private static final java.util.Locale %s = java.util.Locale.getDefault(%s);", field, category))
		saved.Statements = append(saved.Statements, "java.util.Locale.setDefault("+join(category, field)+");")
		if loc, ok := localeExpr(s.Passing); ok {
			passing.Statements = append(passing.Statements, "java.util.Locale.setDefault("+join(category, loc)+");")
		}
	}
	out := []restore{{code: saved, what: what}}
	if len(passing.Statements) == len(states) {
		out = append(out, restore{code: passing, what: what})
	}
	return out
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}

// localeExpr is a Java expression for a locale rendered by Locale.toString
// ("de_DE", "\"en_US\""); false for forms with scripts or extensions.
func localeExpr(rendered string) (string, bool) {
	v := strings.TrimSpace(rendered)
	if u, err := strconv.Unquote(v); err == nil {
		v = u
	}
	if v == "" || absent(v) || v == asAtStart || strings.ContainsAny(v, "#-\" ") {
		return "", false
	}
	parts := strings.Split(v, "_")
	if len(parts) > 3 {
		return "", false
	}
	args := make([]string, len(parts))
	for i, p := range parts {
		args[i] = javaString(p)
	}
	return "new java.util.Locale(" + strings.Join(args, ", ") + ")", true
}

// timeZoneRestores restores the default time zone: to the one the class
// holding the restore found when it was initialised, else to the passing
// value recorded.
func timeZoneRestores(passing string) []restore {
	out := []restore{{code: editor.Code{
		Members:    []string{"private static final java.util.TimeZone INITIAL_TIME_ZONE = java.util.TimeZone.getDefault();"},
		Statements: []string{"java.util.TimeZone.setDefault(INITIAL_TIME_ZONE);"},
	}, what: "default time zone"}}
	if id, err := strconv.Unquote(strings.TrimSpace(passing)); err == nil && id != "" {
		out = append(out, restore{code: editor.Code{Statements: []string{"java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone(" + javaString(id) + "));"}}, what: "default time zone"})
	}
	return out
}

// tmpPrefix starts the name of a file in the JVM's temporary directory.
const tmpPrefix = "${java.io.tmpdir}/"

// fileRestore deletes a file that did not exist when the test passed (or
// was as at JVM start: the root-cause analysis records files the tests
// create); a file that existed with other content cannot be restored.
func fileRestore(name, passing string) (restore, string) {
	p := strings.TrimSpace(passing)
	if !absent(p) && p != asAtStart {
		return restore{}, "file " + name + " existed before: its content cannot be restored"
	}
	expr := "new java.io.File(" + javaString(name) + ")"
	if rel, ok := strings.CutPrefix(name, tmpPrefix); ok {
		expr = "new java.io.File(System.getProperty(\"java.io.tmpdir\"), " + javaString(rel) + ")"
	}
	return restore{code: editor.Code{Statements: []string{expr + ".delete();"}}, what: "file " + name}, ""
}
