package dev.flaky.runner;

import org.junit.Test;

import static org.junit.Assert.assertEquals;

public class StackTracesTest {
    private static StackTraceElement frame(String cls, String method) {
        return new StackTraceElement(cls, method, "F.java", 1);
    }

    @Test
    public void cutsFramesBelowTheDeepestTestClassFrame() {
        AssertionError e = new AssertionError("boom");
        e.setStackTrace(new StackTraceElement[] {
            frame("org.junit.Assert", "fail"),
            frame("dev.flaky.runner.StackTracesTest$Helper", "check"),
            frame("dev.flaky.runner.StackTracesTest", "test"),
            frame("jdk.internal.reflect.NativeMethodAccessorImpl", "invoke"),
            frame("org.junit.runners.ParentRunner", "run"),
        });
        assertEquals("java.lang.AssertionError: boom\n"
                + "\tat org.junit.Assert.fail(F.java:1)\n"
                + "\tat dev.flaky.runner.StackTracesTest$Helper.check(F.java:1)\n"
                + "\tat dev.flaky.runner.StackTracesTest.test(F.java:1)\n", StackTraces.trim(e, StackTracesTest.class));
    }

    @Test
    public void withoutATestFrameDropsTrailingFrameworkFramesAndKeepsCauses() {
        RuntimeException cause = new RuntimeException("root");
        cause.setStackTrace(new StackTraceElement[] {frame("x.Lib", "a"), frame("org.junit.Runner", "run")});
        IllegalStateException e = new IllegalStateException("wrapped", cause);
        e.setStackTrace(new StackTraceElement[] {frame("x.Lib", "b"), frame("java.lang.Thread", "run")});
        assertEquals("java.lang.IllegalStateException: wrapped\n"
                + "\tat x.Lib.b(F.java:1)\n"
                + "Caused by: java.lang.RuntimeException: root\n"
                + "\tat x.Lib.a(F.java:1)\n", StackTraces.trim(e, String.class));
    }
}
