package dev.flaky.runner;

import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

public class FailureTest {
    /** A class whose static initialiser throws. */
    static final class BrokenInit {
        static final int VALUE = init();

        private static int init() {
            throw new IllegalStateException("config missing");
        }
    }

    @Test
    public void staticInitialiserFailureNamesTheCauseAndItsFrame() {
        Throwable first = touch();
        Failure f = Failure.of(first, FailureTest.class);
        assertEquals("java.lang.ExceptionInInitializerError", f.type());
        assertTrue(f.message(), f.message().startsWith("caused by java.lang.IllegalStateException: config missing (at "
                + BrokenInit.class.getName() + ".init(FailureTest.java:"));

        // The second touch fails with NoClassDefFoundError, whose message names the class; on Java 9+ its cause
        // is the first failure.
        Failure again = Failure.of(touch(), FailureTest.class);
        assertEquals("java.lang.NoClassDefFoundError", again.type());
        assertTrue(again.message(), again.message().startsWith("Could not initialize class " + BrokenInit.class.getName()));
    }

    @Test
    public void plainMessagesStay() {
        assertEquals("boom", Failure.of(new RuntimeException("boom", new Error("inner")), FailureTest.class).message());
    }

    @Test
    public void noMessageNamesTheTypeAndTheFirstProjectFrame() {
        String message = Failure.of(new NullPointerException(), FailureTest.class).message();
        assertTrue(message, message.startsWith("java.lang.NullPointerException (no message) (at "
                + FailureTest.class.getName() + ".noMessageNamesTheTypeAndTheFirstProjectFrame(FailureTest.java:"));
    }

    private static Throwable touch() {
        try {
            return new AssertionError("no failure: " + BrokenInit.VALUE);
        } catch (Throwable t) {
            return t;
        }
    }
}
