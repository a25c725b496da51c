package mvn

import (
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/testid"
)

// Reproduce is the plain-Maven command that runs an order file in a
// module of the project ("." or "" for the root) through the flaky profile.
// Given the order's tests, a module's command also builds the sibling
// modules it depends on (-am: they are resolved from the reactor, not from
// a repository) and keeps their tests from running (-Dtest names the
// order's classes, which the siblings do not have).
func Reproduce(module, orderFile string, tests ...string) string {
	args := []string{"mvn", "-Pflaky", "test"}
	if module != "" && module != "." {
		args = append(args, "-pl", module)
		if classes := testClasses(tests); classes != "" {
			args = append(args, "-am", "-Dtest="+classes, "-Dsurefire.failIfNoSpecifiedTests=false")
		}
	}
	return shellquote.Join(append(args, "-Dflaky.testFailureIgnore=false", "-Dflaky.order="+orderFile)...)
}

// testClasses lists the top-level classes of test ids, comma-separated, in
// order of first appearance.
func testClasses(tests []string) string {
	var classes []string
	for _, t := range tests {
		class := testid.Parse(t).TopLevel()
		if class != "" && !slices.Contains(classes, class) {
			classes = append(classes, class)
		}
	}
	return strings.Join(classes, ",")
}
