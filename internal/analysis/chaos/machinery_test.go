package chaos

import (
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/launcher"
)

func TestMachinery(t *testing.T) {
	stack := func(frames ...string) string { return "X\n\tat " + strings.Join(frames, "\n\tat ") + "\n" }
	for _, c := range []struct {
		name string
		t    launcher.TestResult
		want string // substring of the reason; "" for the test's own failure
	}{
		{"assertion in the test", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Fail,
			Stack: stack("org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:1)", "p.T.a(T.java:3)")}, ""},
		{"assertion in an inherited test method", launcher.TestResult{Test: "p.ConcreteTest#a", Outcome: launcher.Fail,
			Stack: stack("org.junit.Assert.fail(Assert.java:1)", "p.AbstractTest.a(AbstractTest.java:3)")}, ""},
		{"a perturbed connect timing out in the JDK below flaky's wrapper", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Error,
			Stack: stack("sun.nio.ch.Net.pollConnect(Net.java:1)", "java.net.Socket.connect(Socket.java:2)", "dev.flaky.agent.chaos.Wrappers.connect(Wrappers.java:3)", "p.Client.open(Client.java:4)")}, ""},
		{"a timeout has no stack", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Timeout, Message: "timed out"}, ""},
		{"thrown by flaky's wrapper", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Error,
			Stack: stack("dev.flaky.agent.chaos.Wrappers.nextInt(Wrappers.java:10)", "p.T.a(T.java:3)")}, "thrown by the perturbation machinery"},
		{"a flaky exception", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Error, FailureType: "dev.flaky.agent.ChaosException"}, "an exception of flaky's"},
		{"a class the instrumentation broke", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Error, FailureType: "java.lang.NoSuchMethodError",
			Message: "'int dev/flaky/agent/chaos/Wrappers.nextInt(java.util.Random)'"}, "instrumentation broke a class"},
		{"the framework outside the project's code", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Error,
			Stack: stack("org.junit.platform.commons.util.Preconditions.condition(Preconditions.java:1)", "java.util.ArrayList.forEach(ArrayList.java:2)")}, "thrown by the test framework"},
		{"the framework's timeout fired in flaky's sleep", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Error, FailureType: "org.junit.runners.model.TestTimedOutException",
			Message: "test timed out after 2000 milliseconds", Stack: stack("java.lang.Thread.sleep(Native Method)", "dev.flaky.agent.chaos.Wrappers.sleep(Wrappers.java:10)", "p.Poller.await(Poller.java:3)")}, ""},
		{"the framework's timeout wrapped by ExpectedException", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Fail, FailureType: "java.lang.AssertionError",
			Message: "Expected: an instance of java.lang.IllegalStateException\n     but: <org.junit.runners.model.TestTimedOutException: test timed out after 2000 milliseconds> is a org.junit.runners.model.TestTimedOutException",
			Stack:   stack("org.junit.Assert.assertThat(Assert.java:1)", "org.junit.rules.ExpectedException.handleException(ExpectedException.java:2)")}, ""},
		{"@Test(expected) not thrown", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Fail, FailureType: "java.lang.AssertionError",
			Message: "Expected exception: java.lang.IllegalArgumentException",
			Stack:   stack("org.junit.internal.runners.statements.ExpectException.evaluate(ExpectException.java:34)", "org.junit.runners.ParentRunner$3.evaluate(ParentRunner.java:306)", "dev.flaky.runner.junit4.Junit4Engine.execute(Junit4Engine.java:1)")}, ""},
		{"the ExpectedException rule's exception not thrown", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Fail, FailureType: "java.lang.AssertionError",
			Message: "Expected test to throw an instance of java.lang.IllegalStateException",
			Stack:   stack("org.junit.Assert.fail(Assert.java:89)", "org.junit.rules.ExpectedException.failDueToMissingException(ExpectedException.java:270)", "org.junit.rules.ExpectedException$ExpectedExceptionStatement.evaluate(ExpectedException.java:260)")}, ""},
		{"assertThrows with nothing thrown", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Fail, FailureType: "org.opentest4j.AssertionFailedError",
			Message: "Expected java.lang.IllegalStateException to be thrown, but nothing was thrown.",
			Stack:   stack("org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:152)", "org.junit.jupiter.api.AssertThrows.assertThrows(AssertThrows.java:73)", "org.junit.jupiter.api.Assertions.assertThrows(Assertions.java:3128)")}, ""},
		{"TestNG's expectedExceptions not thrown", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Fail, FailureType: "org.testng.TestException",
			Message: "Method T.a()[pri:0, instance:p.T@1] should have thrown an exception of any of types [class java.lang.IllegalStateException]",
			Stack:   stack("org.testng.internal.ExpectedExceptionsHolder.noException(ExpectedExceptionsHolder.java:89)", "org.testng.internal.invokers.ExpectedExceptionsHolder.x(X.java:1)")}, ""},
		{"an expected exception of the wrong type thrown by flaky's wrapper", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Error, FailureType: "java.lang.Exception",
			Message: "Unexpected exception, expected<java.lang.IllegalStateException> but was<java.lang.NullPointerException>",
			Stack:   stack("org.junit.internal.runners.statements.ExpectException.evaluate(ExpectException.java:30)") + "Caused by: java.lang.NullPointerException\n\tat dev.flaky.agent.chaos.Wrappers.nextInt(Wrappers.java:10)\n"}, "thrown by the test framework"},
		{"the framework's own failure outside any expectation", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Error,
			Stack: stack("org.junit.Assert.fail(Assert.java:89)", "org.junit.runners.ParentRunner.validate(ParentRunner.java:1)")}, "thrown by the test framework"},
		{"a pass is no failure", launcher.TestResult{Test: "p.T#a", Outcome: launcher.Pass, FailureType: "dev.flaky.X"}, ""},
	} {
		got := machinery(c.t)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: machinery = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestLeftOut checks that a framework's failure of a test that fails
// unperturbed too (a class that cannot run: its initializationError) is not
// left out as the machinery's, while the same failure of a test that
// passed unperturbed is.
func TestLeftOut(t *testing.T) {
	broken := launcher.TestResult{Test: "p.C#initializationError", Outcome: launcher.Error,
		Stack: "X\n\tat org.junit.runners.ParentRunner.validate(ParentRunner.java:525)\n"}
	passing := broken
	passing.Test = "p.T#a"
	a := &analysis{baseline: []*launcher.Result{{Tests: []launcher.TestResult{broken, {Test: "p.T#a", Outcome: launcher.Pass}}}}}
	if why := a.leftOut(broken); why != "" {
		t.Errorf("a test failing unperturbed is left out: %q", why)
	}
	if why := a.leftOut(passing); !strings.Contains(why, "thrown by the test framework") {
		t.Errorf("a test passing unperturbed: leftOut = %q, want the framework's failure", why)
	}
}
