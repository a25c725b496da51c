package dev.flaky.surefire.api2;

import dev.flaky.runner.Failure;
import dev.flaky.surefire.FailureTrace;
import org.apache.maven.surefire.report.SafeThrowable;
import org.apache.maven.surefire.report.StackTraceWriter;

/** A failure's stack traces for Surefire 2.x reports. */
final class Trace extends FailureTrace implements StackTraceWriter {
    Trace(Failure failure, String className, String method) {
        super(failure, className, method);
    }

    @Override
    public SafeThrowable getThrowable() {
        return new SafeThrowable(throwable());
    }
}
