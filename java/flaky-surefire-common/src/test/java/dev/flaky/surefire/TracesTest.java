package dev.flaky.surefire;

import dev.flaky.runner.Failure;
import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

public class TracesTest {
    private static Throwable thrownHere(Throwable t) {
        t.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("org.junit.Assert", "fail", "Assert.java", 89),
            new StackTraceElement("p.ATest", "victim", "ATest.java", 12),
            new StackTraceElement("sun.reflect.X", "invoke", "X.java", 1),
        });
        return t;
    }

    @Test
    public void summarizesLikeSurefire() {
        Failure assertion = Failure.of(thrownHere(new AssertionError("expected 0")), TracesTest.class);
        assertEquals("ATest.victim:12 expected 0", Traces.summary(assertion, "p.ATest", "victim"));
        Failure error = Failure.of(thrownHere(new IllegalStateException("bad")), TracesTest.class);
        assertEquals("ATest.victim:12 \u00bb IllegalState bad", Traces.summary(error, "p.ATest", "victim"));
        Failure missing = Failure.notFound("no such test");
        assertEquals("ATest.gone \u00bb TestNotFound no such test", Traces.summary(missing, "p.ATest", "gone"));
    }

    @Test
    public void standsInForMissingThrowables() {
        Failure missing = Failure.notFound("no such test");
        assertEquals("flaky.TestNotFound: no such test", Traces.full(missing));
        assertEquals("flaky.TestNotFound: no such test", Traces.trimmed(missing));
        Throwable t = Traces.throwable(missing);
        assertEquals("no such test", t.getMessage());
        assertEquals("flaky.TestNotFound: no such test", t.toString());
        Failure real = Failure.of(thrownHere(new AssertionError("x")), TracesTest.class);
        assertTrue(Traces.full(real).startsWith("java.lang.AssertionError: x\n\tat org.junit.Assert.fail"));
    }
}
