package change

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Member is one member of a class's source file (from the source editor's
// split): a type's header, a method, constructor, field, initialiser or
// other member.
type Member struct {
	// Class is the declaring type's binary name below the package
	// (Outer, Outer$Inner).
	Class string `json:"class"`
	// Kind is header, method, constructor, field, initializer or other.
	Kind string `json:"kind"`
	// Name is the method's name (<init> for constructors).
	Name string `json:"name"`
	// Signature tells overloads apart.
	Signature string `json:"signature"`
	BeginLine int    `json:"beginLine"`
	EndLine   int    `json:"endLine"`
	// Hash is a hash of the member's text without comments and layout.
	Hash        string   `json:"hash"`
	Annotations []string `json:"annotations"`
}

// Members is what changed inside one changed source file, from its members
// before and after the change.
type Members struct {
	// Whole, when set, says why the change counts for the whole class: a
	// type's header, a field, an initialiser or another member that is no
	// method changed, a fixture method or an overriding method changed or
	// was added, the file was added or deleted, or its members are unknown.
	Whole string
	// Methods are the methods and constructors that changed, were added
	// or were removed, as Class#name (the binary class name, <init> for
	// constructors; overloads share the name).
	Methods []string
}

// fixtures are the annotations of fixture methods (JUnit 4 and 5, TestNG):
// a change to one changes every test of its class.
var fixtures = []string{"Before", "After", "BeforeClass", "AfterClass", "BeforeEach", "AfterEach", "BeforeAll", "AfterAll",
	"BeforeMethod", "AfterMethod", "BeforeTest", "AfterTest", "BeforeSuite", "AfterSuite", "BeforeGroups", "AfterGroups", "Rule", "ClassRule"}

// DiffMembers compares a file's members before and after a change (pkg is
// the file's package, after the change); nil members mean the file is not
// there.
func DiffMembers(pkg string, before, after []Member) *Members {
	switch {
	case before == nil && after == nil:
		return &Members{Whole: "its members are unknown"}
	case before == nil:
		return &Members{Whole: "the file is new"}
	case after == nil:
		return &Members{Whole: "the file was deleted"}
	}
	key := func(m Member) string { return m.Class + "\x00" + m.Kind + "\x00" + m.Signature }
	old := map[string]Member{}
	for _, m := range before {
		old[key(m)] = m
	}
	out := &Members{}
	seen := map[string]bool{}
	changed := func(m Member, how string) {
		if out.Whole != "" {
			return
		}
		switch {
		case m.Kind != "method" && m.Kind != "constructor":
			out.Whole = fmt.Sprintf("%s %s %s", kindName(m), display(m), how)
		case slices.ContainsFunc(m.Annotations, func(a string) bool { return slices.Contains(fixtures, a) }) ||
			m.Kind == "method" && (m.Name == "setUp" || m.Name == "tearDown"):
			out.Whole = fmt.Sprintf("fixture %s %s", display(m), how)
		case how == "added" && slices.Contains(m.Annotations, "Override"):
			out.Whole = fmt.Sprintf("overriding method %s added", display(m))
		default:
			name := m.Class + "#" + m.Name
			if pkg != "" {
				name = pkg + "." + name
			}
			out.Methods = append(out.Methods, name)
		}
	}
	for _, m := range after {
		k := key(m)
		seen[k] = true
		o, ok := old[k]
		switch {
		case !ok:
			changed(m, "added")
		case o.Hash != m.Hash:
			changed(m, "changed")
		}
	}
	for _, m := range before {
		if !seen[key(m)] {
			changed(m, "removed")
		}
	}
	if out.Whole != "" {
		out.Methods = nil
		return out
	}
	slices.Sort(out.Methods)
	out.Methods = slices.Compact(out.Methods)
	return out
}

func kindName(m Member) string {
	switch m.Kind {
	case "header":
		return "the declaration of"
	case "initializer":
		return "an initialiser of"
	}
	return m.Kind
}

// display names a member for a reason: Class.name, or the class for a
// header or initialiser.
func display(m Member) string {
	switch m.Kind {
	case "header", "initializer":
		return m.Class
	}
	return m.Class + "." + m.Name
}

// Path returns the file (relative to the repository's root) of a changed
// test or production class ("" when the class is not one).
func (c *Change) Path(class string) string {
	return c.paths[class]
}

// Before returns a changed file's content at the merge base; ok is false
// when the file was not there.
func (c *Change) Before(file string) (content string, ok bool, err error) {
	if _, err := git(c.Top, "cat-file", "-e", c.Base+":"+file); err != nil {
		return "", false, nil
	}
	out, err := gitRaw(c.Top, "show", c.Base+":"+file)
	if err != nil {
		return "", false, fmt.Errorf("change: %s at %s: %w", file, c.Base, err)
	}
	return out, true, nil
}

// After returns a changed file's content in the working tree; ok is false
// when it was deleted.
func (c *Change) After(file string) (content string, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(c.Top, filepath.FromSlash(file)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("change: %w", err)
	}
	return string(b), true, nil
}

// gitRaw runs git in dir and returns its output as it is.
func gitRaw(dir string, args ...string) (string, error) {
	out, err := git(dir, args...)
	if err != nil {
		return "", err
	}
	return out + "\n", nil
}
