package dev.flaky.surefire;

import dev.flaky.runner.Failure;

/**
 * A failure's stack traces as Surefire's {@code StackTraceWriter} gives them (see {@link Traces}). Each SPI
 * generation's {@code Trace} extends this class and implements its own generation's interface, whose methods of
 * these names this class provides; only {@code getThrowable}, which returns a type of that generation, is theirs.
 */
public abstract class FailureTrace {
    private final Failure failure;
    private final String className;
    private final String method;

    /** A trace of {@code failure} in test {@code className}'s {@code method} (null for a class's failure). */
    protected FailureTrace(Failure failure, String className, String method) {
        this.failure = failure;
        this.className = className;
        this.method = method;
    }

    /** The full stack trace (see {@link Traces#full}). */
    public String writeTraceToString() {
        return Traces.full(failure);
    }

    /** The stack trace cut below the test's frames (see {@link Traces#trimmed}). */
    public String writeTrimmedTraceToString() {
        return Traces.trimmed(failure);
    }

    /** The one-line summary (see {@link Traces#summary}). */
    public String smartTrimmedStackTrace() {
        return Traces.summary(failure, className, method);
    }

    /** The throwable for Surefire's {@code SafeThrowable} (see {@link Traces#throwable}). */
    protected Throwable throwable() {
        return Traces.throwable(failure);
    }
}
