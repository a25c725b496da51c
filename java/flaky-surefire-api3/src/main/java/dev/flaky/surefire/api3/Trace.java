package dev.flaky.surefire.api3;

import dev.flaky.runner.Failure;
import dev.flaky.surefire.FailureTrace;
import org.apache.maven.surefire.api.report.SafeThrowable;
import org.apache.maven.surefire.api.report.StackTraceWriter;

/** A failure's stack traces for Surefire 3.x reports (the fork has no common-java5 PojoStackTraceWriter). */
final class Trace extends FailureTrace implements StackTraceWriter {
    Trace(Failure failure, String className, String method) {
        super(failure, className, method);
    }

    @Override
    public SafeThrowable getThrowable() {
        return new SafeThrowable(throwable());
    }
}
