package chaos

import (
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/launcher"
)

// flakyPackage starts the names of flaky's own Java classes: the agent and
// its perturbation wrappers, the runner.
const flakyPackage = "dev.flaky."

// frameworkPackages start the names of the test frameworks' classes and of
// the tools that drive them.
var frameworkPackages = []string{"org.junit.", "junit.", "org.testng.", "org.opentest4j.", "org.apache.maven.surefire.", flakyPackage}

// machinery says why a failure is not the test's own: the perturbation
// machinery threw it (a dev.flaky exception type, a dev.flaky frame at the
// top of the stack, a class flaky's instrumentation broke), or the test
// framework did, outside the test's code (no frame of the test's class in
// the stack). It returns "" for a failure of the test. Failures without a
// stack (timeouts, crashes) are the test's.
func machinery(t launcher.TestResult) string {
	if !t.Outcome.Failed() {
		return ""
	}
	switch {
	case strings.HasPrefix(t.FailureType, flakyPackage) || strings.HasPrefix(t.FailureType, "flaky."):
		return "an exception of flaky's (" + t.FailureType + ")"
	case strings.Contains(t.Message, "dev/flaky/") || strings.Contains(t.FailureType, "VerifyError") && strings.Contains(t.Message, flakyPackage):
		return "flaky's instrumentation broke a class (" + t.FailureType + ")"
	}
	frames := stackFrames(t.Stack)
	if len(frames) == 0 {
		return ""
	}
	if strings.HasPrefix(frames[0], flakyPackage) {
		return "thrown by the perturbation machinery at " + frames[0]
	}
	class := topLevelClass(t.Test)
	inTest := slices.ContainsFunc(frames, func(f string) bool { return topLevelClass(frameClass(f)) == class })
	if !inTest && inFramework(frames[0]) {
		return "thrown by the test framework outside the test's code at " + frames[0]
	}
	return ""
}

// stackFrames returns the frames ("pkg.Class.method(File.java:1)") of a
// stack trace, causes included, top first.
func stackFrames(stack string) []string {
	var out []string
	for _, line := range strings.Split(stack, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "at "); ok {
			out = append(out, f)
		}
	}
	return out
}

// frameClass returns the class of a frame "pkg.Class.method(File.java:1)".
func frameClass(frame string) string {
	frame, _, _ = strings.Cut(frame, "(")
	if i := strings.LastIndexByte(frame, '.'); i >= 0 {
		return frame[:i]
	}
	return frame
}

// topLevelClass returns the top-level class of a test id or class name.
func topLevelClass(name string) string {
	name, _, _ = strings.Cut(name, "#")
	name, _, _ = strings.Cut(name, "$")
	return name
}

// inFramework reports whether a frame is a test framework's or flaky's.
func inFramework(frame string) bool {
	return slices.ContainsFunc(frameworkPackages, func(p string) bool { return strings.HasPrefix(frame, p) })
}
