package chaos

import (
	"slices"
	"strings"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

// flakyPackage starts the names of flaky's own Java classes: the agent and
// its perturbation wrappers, the runner.
const flakyPackage = "dev.flaky."

// frameworkPackages start the names of the test frameworks' classes and of
// the tools that drive them.
var frameworkPackages = []string{"org.junit.", "junit.", "org.testng.", "org.opentest4j.", "org.apache.maven.surefire.", flakyPackage}

// jdkPackages start the names of the JDK's classes.
var jdkPackages = []string{"java.", "javax.", "jdk.", "sun.", "com.sun."}

// ownFailure reports whether t failed, and the failure is the test's own
// (not the machinery's).
func ownFailure(t launcher.TestResult) bool { return t.Outcome.Failed() && machinery(t) == "" }

// machinery says why a failure is not the test's own: the perturbation
// machinery threw it (a dev.flaky exception type, a dev.flaky frame at the
// top of the stack, a class flaky's instrumentation broke), or the test
// framework did, outside the project's code (a framework frame at the top
// and no frame of the project's, JDK, framework and flaky aside, anywhere
// in the stack), unless it is the framework's verdict that the test's
// expected exception was not thrown (see expectationUnmet). It returns ""
// for a failure of the test. Failures without
// a stack (timeouts, crashes) are the test's, and so are the framework's own
// timeouts, however wrapped (see frameworkLimit): the test took too long.
func machinery(t launcher.TestResult) string {
	if !t.Outcome.Failed() {
		return ""
	}
	if _, ok := frameworkLimit(t); ok {
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
	if inFramework(frames[0]) && !slices.ContainsFunc(frames, inProject) && !expectationUnmet(t.Stack, frames) {
		return "thrown by the test framework outside the project's code at " + frames[0]
	}
	return ""
}

// leftOut is machinery(t) for a failure of a test that passed unperturbed;
// "" for a test that failed unperturbed too (a class that cannot run, say,
// whose initializationError JUnit's frames alone throw): that failure is
// no perturbation's, and the test is reported as failing unperturbed.
func (a *analysis) leftOut(t launcher.TestResult) string {
	if tallyOf(t.Test, a.baseline).failures > 0 {
		return ""
	}
	return machinery(t)
}

// expectationFrames start the frames where a test framework fails a test
// whose expected exception was not thrown: JUnit 4's @Test(expected = ...)
// ("Expected exception: ..."), JUnit 4's ExpectedException rule ("Expected
// test to throw ..."), Jupiter's assertThrows and assertThrowsExactly
// ("Expected ... to be thrown, but nothing was thrown.") and TestNG's
// expectedExceptions ("Method ... should have thrown an exception of ...").
var expectationFrames = []string{
	"org.junit.internal.runners.statements.ExpectException.",
	"org.junit.rules.ExpectedException.",
	"org.junit.rules.ExpectedException$",
	"org.junit.jupiter.api.AssertThrows.",
	"org.junit.jupiter.api.AssertThrowsExactly.",
	"org.testng.internal.ExpectedExceptionsHolder.",
}

// assertionFrames start the frames of the frameworks' assertion helpers,
// which build the failure an expectation frame throws.
var assertionFrames = []string{
	"org.junit.Assert.",
	"org.junit.jupiter.api.AssertionFailureBuilder.",
	"org.junit.jupiter.api.AssertionUtils.",
	"org.testng.Assert.",
}

// expectationUnmet reports whether a failure is a framework's verdict on
// the test's own expectation: the first frame past the assertion helpers
// is an expectation frame, and nothing caused it (an expected exception of
// the wrong type carries the thrown one as its cause, and is judged by that
// cause's frames). Such a failure is the test failing: what the test
// expected did not happen.
func expectationUnmet(stack string, frames []string) bool {
	if strings.Contains(stack, "Caused by:") {
		return false
	}
	for _, f := range frames {
		if slices.ContainsFunc(assertionFrames, func(p string) bool { return strings.HasPrefix(f, p) }) {
			continue
		}
		return slices.ContainsFunc(expectationFrames, func(p string) bool { return strings.HasPrefix(f, p) })
	}
	return false
}

// inProject reports whether a frame is of the project's code: neither the
// JDK's nor a test framework's nor flaky's.
func inProject(frame string) bool {
	return !inFramework(frame) && !slices.ContainsFunc(jdkPackages, func(p string) bool { return strings.HasPrefix(frame, p) })
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

// inFramework reports whether a frame is a test framework's or flaky's.
func inFramework(frame string) bool {
	return slices.ContainsFunc(frameworkPackages, func(p string) bool { return strings.HasPrefix(frame, p) })
}
