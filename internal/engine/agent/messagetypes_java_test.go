package agent

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// javaMessageTypes is the Java side's class of protocol message type names,
// the one every Java sender uses.
const javaMessageTypes = "../../../java/flaky-agent/src/main/java/dev/flaky/agent/MessageTypes.java"

// javaConstant is one `static final String NAME = "value";` line;
// javaDeclaration is the start of any such declaration, however written.
var (
	javaConstant    = regexp.MustCompile(`(?m)^\s*public static final String ([A-Z_]+) = "([^"]*)";`)
	javaDeclaration = regexp.MustCompile(`(?m)^\s*[a-z ]*static final String\b`)
)

// TestMessageTypesMatchJava checks that the messages this package reads and
// writes are exactly those MessageTypes.java names, so that neither side can
// add, drop or rename a message type alone.
func TestMessageTypesMatchJava(t *testing.T) {
	src, err := os.ReadFile(javaMessageTypes)
	if err != nil {
		t.Fatal(err)
	}
	constants := javaConstant.FindAllStringSubmatch(string(src), -1)
	if n := len(javaDeclaration.FindAllString(string(src), -1)); n != len(constants) || n == 0 {
		t.Fatalf("%s: %d constants parsed of %d declared: keep each on one `public static final String NAME = \"...\";` line", javaMessageTypes, len(constants), n)
	}
	var java []string
	for _, c := range constants {
		if want := strings.ReplaceAll(strings.ToUpper(c[2]), "-", "_"); c[1] != want {
			t.Errorf("%s: constant %s holds %q; name it %s", javaMessageTypes, c[1], c[2], want)
		}
		java = append(java, c[2])
	}
	var goTypes []string
	for typ, newMessage := range messageTypes {
		if got := newMessage().MessageType(); got != typ {
			t.Errorf("messageTypes[%q] makes a %q message", typ, got)
		}
		goTypes = append(goTypes, typ)
	}
	slices.Sort(java)
	slices.Sort(goTypes)
	if !slices.Equal(java, goTypes) {
		t.Errorf("message types differ:\nJava (MessageTypes.java): %v\nGo (messageTypes):        %v", java, goTypes)
	}
}
