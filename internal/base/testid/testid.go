// Package testid is flaky's one vocabulary for naming a test: the id
// "pkg.Outer$Inner#method[2]" that the runner lists, order files hold and
// every report prints. It is parsed and built here and nowhere else.
//
// An id has three parts: the test's class as a Java binary name (nested
// classes joined with '$'), the method's name, and an optional invocation
// suffix that tells one invocation of a parameterized, repeated or dynamic
// test from another ("[2]", "[1][3]", JUnit 4's "[name]", a TestNG
// data-provider invocation's "[params](n)" as Surefire names it, or a legacy
// "(params)"). A class-level id (a class fixture's failure) has no method.
package testid

import (
	"encoding"
	"strings"
)

// ID is a parsed test id.
type ID struct {
	Class      string // binary class name, e.g. "pkg.Outer$Inner"
	Method     string // method name without its invocation suffix; "" for a class-level id
	Invocation string // the invocation suffix, brackets included, e.g. "[2]"; "" for none
}

var (
	_ encoding.TextMarshaler   = ID{}
	_ encoding.TextUnmarshaler = (*ID)(nil)
)

// Parse splits a test id into its parts. It accepts any string: one
// without '#' is a class-level id.
func Parse(s string) ID {
	class, member, ok := strings.Cut(s, "#")
	if !ok {
		return ID{Class: s}
	}
	method, invocation := member, ""
	if i := strings.IndexAny(member, "(["); i >= 0 {
		method, invocation = member[:i], member[i:]
	}
	return ID{Class: class, Method: method, Invocation: invocation}
}

// New builds the id of a method of a class (no invocation).
func New(class, method string) ID { return ID{Class: class, Method: method} }

// String formats the id as the runner lists it.
func (id ID) String() string {
	if id.Method == "" && id.Invocation == "" {
		return id.Class
	}
	return id.Class + "#" + id.Member()
}

// Member is the method with its invocation suffix ("m[2]"), the part after '#'.
func (id ID) Member() string { return id.Method + id.Invocation }

// Base is the id without its invocation suffix: the test method all of
// its invocations share.
func (id ID) Base() ID { return ID{Class: id.Class, Method: id.Method} }

// Package is the package of the id's class ("" for the default package).
func (id ID) Package() string {
	if i := strings.LastIndexByte(id.Class, '.'); i >= 0 {
		return id.Class[:i]
	}
	return ""
}

// SimpleClass is the class's name without its package ("Outer$Inner").
func (id ID) SimpleClass() string { return id.Class[strings.LastIndexByte(id.Class, '.')+1:] }

// TopLevel is the binary name of the top-level class that declares the
// id's class: the class whose source file holds the test.
func (id ID) TopLevel() string {
	start := strings.LastIndexByte(id.Class, '.') + 1
	if i := strings.IndexByte(id.Class[start:], '$'); i > 0 {
		return id.Class[:start+i]
	}
	return id.Class
}

// IsInvocationOf reports whether id names test itself or one of its
// invocations: test's id with an index appended ("C#m[2]" and
// "C#m[5, 5 EUR](2)" are invocations of "C#m", "C#m[2][1]" of "C#m[2]";
// "C#m(String)" is not one of "C#m").
func (id ID) IsInvocationOf(test ID) bool {
	return id.Class == test.Class && id.Method == test.Method &&
		(id.Invocation == test.Invocation || strings.HasPrefix(id.Invocation, test.Invocation+"["))
}

// MarshalText writes the id as its string form (JSON strings, map keys).
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses the id's string form.
func (id *ID) UnmarshalText(b []byte) error {
	*id = Parse(string(b))
	return nil
}

// ClassOf is the class part of a test id string ("pkg.C#m" -> "pkg.C").
func ClassOf(s string) string { return Parse(s).Class }

// Split returns the class of a test id string and the member after '#'
// (the method with its invocation suffix; "" for a class-level id).
func Split(s string) (class, member string) {
	id := Parse(s)
	return id.Class, id.Member()
}

// ClassMethod returns the class of a test id string and its method without
// the invocation suffix ("p.C#m[1]" -> "p.C", "m").
func ClassMethod(s string) (class, method string) {
	id := Parse(s)
	return id.Class, id.Method
}

// Join builds a test id string from a class and the member after '#' (a
// method with or without its invocation suffix); it is the inverse of
// Split, so an empty member gives the class-level id.
func Join(class, member string) string {
	if member == "" {
		return class
	}
	return class + "#" + member
}

// JoinMethod is Join for a member that names a method: the id is always
// method-level, so an empty member gives "class#", not the class-level id
// (a Surefire testcase element without a name still names a method).
func JoinMethod(class, member string) string { return class + "#" + member }

// IsIndexed reports whether the id names one invocation of a test (its
// suffix starts with '[': "C#m[2]", "C#m[5, 5 EUR](2)"), not a method.
func (id ID) IsIndexed() bool { return strings.HasPrefix(id.Invocation, "[") }

// IsInvocation reports whether the test id string id names test (an id
// string too) itself or one of its invocations: whether a result for id
// answers the order entry test.
func IsInvocation(id, test string) bool {
	return id == test || Parse(id).IsInvocationOf(Parse(test))
}
