package mvn

import (
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/base/testid"
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

// WithArgs returns command with the Maven arguments args (-Pa,b and -Dk=v,
// as MavenArgs.Args gives them) after its first word equal to after:
// "test" in a Maven reproduce command, "flaky" in a flaky one, whose
// global flags take each as two words (-P a,b). A command without that
// word, or that does not split as shell words, is returned as it is.
func WithArgs(command, after string, args []string) string {
	if len(args) == 0 {
		return command
	}
	words, err := shellquote.Split(command)
	if err != nil {
		return command
	}
	i := slices.Index(words, after)
	if i < 0 {
		return command
	}
	extra := args
	if after == "flaky" {
		extra = nil
		for _, a := range args {
			extra = append(extra, a[:2], a[2:])
		}
	}
	return shellquote.Join(slices.Concat(words[:i+1], extra, words[i+1:])...)
}

// CommandLineArgs returns the profiles and user properties of a Maven
// command line as MAVEN_CMD_LINE_ARGS holds it (Maven 3's mvn script, and
// so ./mvnw, exports it to the build: the MAVEN_CONFIG variable's words,
// then the command's), for reproduce commands that build as the user's did:
// -P, --activate-profiles, -D and --define, without the flaky profile and
// flaky's own properties (flaky.*), which a reproduce command sets itself,
// and without a property Maven refuses (no key).
// The variable joins the words with spaces, so a property value that had
// spaces is joined again from the words after it up to one that is an
// option, a lifecycle phase or a plugin goal (with a colon).
func CommandLineArgs(line string) MavenArgs {
	words := strings.Fields(line)
	var profiles, props []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		value := func(short, long string) (string, bool) {
			switch {
			case w == short || w == long:
				if i+1 < len(words) {
					i++
					return words[i], true
				}
			case strings.HasPrefix(w, long+"="):
				return w[len(long)+1:], true
			case strings.HasPrefix(w, short) && !strings.HasPrefix(w, "--"):
				return w[len(short):], true
			}
			return "", false
		}
		if p, ok := value("-P", "--activate-profiles"); ok {
			for _, id := range strings.Split(p, ",") {
				if id != "" && id != "flaky" {
					profiles = append(profiles, id)
				}
			}
			continue
		}
		if kv, ok := value("-D", "--define"); ok {
			for i+1 < len(words) && !endsValue(words[i+1]) {
				i++
				kv += " " + words[i]
			}
			if !strings.HasPrefix(kv, "flaky.") && !strings.HasPrefix(kv, "=") {
				props = append(props, kv)
			}
		}
	}
	args, _ := ParseMavenArgs(profiles, props) // every property has a key: no error
	return args
}

// endsValue says whether a word of a Maven command line cannot continue a
// property value before it: an option, a lifecycle phase or a plugin goal.
func endsValue(word string) bool {
	return strings.HasPrefix(word, "-") || strings.Contains(word, ":") || slices.Contains(lifecyclePhases, word)
}

// lifecyclePhases are the phases of Maven's default, clean and site
// lifecycles.
var lifecyclePhases = []string{
	"pre-clean", "clean", "post-clean",
	"validate", "initialize", "generate-sources", "process-sources", "generate-resources", "process-resources",
	"compile", "process-classes", "generate-test-sources", "process-test-sources", "generate-test-resources",
	"process-test-resources", "test-compile", "process-test-classes", "test", "prepare-package", "package",
	"pre-integration-test", "integration-test", "post-integration-test", "verify", "install", "deploy",
	"pre-site", "site", "post-site", "site-deploy",
}
