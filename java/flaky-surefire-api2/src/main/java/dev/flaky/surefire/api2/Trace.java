package dev.flaky.surefire.api2;

import dev.flaky.runner.Failure;
import dev.flaky.surefire.Traces;
import org.apache.maven.surefire.report.SafeThrowable;
import org.apache.maven.surefire.report.StackTraceWriter;

/** A failure's stack traces for Surefire 2.x reports. */
final class Trace implements StackTraceWriter {
    private final Failure failure;
    private final String className;
    private final String method;

    Trace(Failure failure, String className, String method) {
        this.failure = failure;
        this.className = className;
        this.method = method;
    }

    @Override
    public String writeTraceToString() {
        return Traces.full(failure);
    }

    @Override
    public String writeTrimmedTraceToString() {
        return Traces.trimmed(failure);
    }

    @Override
    public String smartTrimmedStackTrace() {
        return Traces.summary(failure, className, method);
    }

    @Override
    public SafeThrowable getThrowable() {
        return new SafeThrowable(Traces.throwable(failure));
    }
}
