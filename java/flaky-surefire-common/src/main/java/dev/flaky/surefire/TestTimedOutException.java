package dev.flaky.surefire;

/**
 * The failure of a test the provider cut at the test timeout; its stack trace is where the test's thread was when
 * the timeout struck.
 */
public final class TestTimedOutException extends Exception {
    private static final long serialVersionUID = 1L;

    TestTimedOutException(String message, StackTraceElement[] where) {
        super(message);
        setStackTrace(where);
    }
}
