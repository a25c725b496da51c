package dev.flaky.surefire.api3;

import dev.flaky.runner.Failure;
import dev.flaky.runner.Outcome;
import dev.flaky.surefire.Reporter;
import dev.flaky.surefire.TestResult;
import org.apache.maven.surefire.api.report.OutputReportEntry;
import org.apache.maven.surefire.api.report.SimpleReportEntry;
import org.apache.maven.surefire.api.report.TestOutputReportEntry;
import org.apache.maven.surefire.api.report.TestReportListener;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

import static org.apache.maven.surefire.api.report.RunMode.NORMAL_RUN;
import static org.apache.maven.surefire.api.util.internal.ObjectUtils.systemProps;

/**
 * Reports to Surefire 3.x as its JUnit Platform provider does: report entries named by class and method, test run
 * ids that tie captured output to its test (numbered like Surefire's ClassMethodIndexer), stack traces through
 * {@link Trace}.
 */
final class SurefireReporter implements Reporter<OutputReportEntry> {
    private final TestReportListener<TestOutputReportEntry> listener;
    private final Map<String, Long> runIds = new HashMap<>();
    private int classIndex = 1;
    private int methodIndex = 1;

    SurefireReporter(TestReportListener<TestOutputReportEntry> listener) {
        this.listener = listener;
    }

    @Override
    public void testSetStarting(String testSet) {
        listener.testSetStarting(new SimpleReportEntry(NORMAL_RUN, runId(testSet, null), testSet, null, null, null,
                systemProps()));
    }

    @Override
    public void testStarting(TestResult test) {
        listener.testStarting(new SimpleReportEntry(NORMAL_RUN, runId(test), test.className, null, test.name, null));
    }

    @Override
    public void testFinished(TestResult test) {
        Long id = runId(test);
        Integer elapsed = (int) Math.min(test.timeMs, Integer.MAX_VALUE);
        switch (test.outcome) {
            case Outcome.PASS:
                listener.testSucceeded(
                        new SimpleReportEntry(NORMAL_RUN, id, test.className, null, test.name, null, elapsed));
                break;
            case Outcome.SKIPPED:
                listener.testSkipped(SimpleReportEntry.ignored(NORMAL_RUN, id, test.className, null, test.name, null,
                        test.message()));
                break;
            case Outcome.ASSUMPTION:
                listener.testAssumptionFailure(new SimpleReportEntry(NORMAL_RUN, id, test.className, null, test.name,
                        null, trace(test.failure, test), elapsed, test.message(), Collections.emptyMap()));
                break;
            case Outcome.FAIL:
                listener.testFailed(new SimpleReportEntry(NORMAL_RUN, id, test.className, null, test.name, null,
                        trace(test.failure, test), elapsed));
                break;
            default:
                listener.testError(new SimpleReportEntry(NORMAL_RUN, id, test.className, null, test.name, null,
                        trace(test.failure, test), elapsed));
                break;
        }
    }

    @Override
    public void classError(String testSet, String className, Failure failure) {
        listener.testError(new SimpleReportEntry(NORMAL_RUN, runId(className, null), className, null, null, null,
                new Trace(failure, className, null), null));
    }

    @Override
    public void output(TestResult test, String testSet, OutputReportEntry chunk) {
        Long id = test != null ? runId(test) : testSet != null ? runId(testSet, null) : null;
        listener.writeTestOutput(new TestOutputReportEntry(chunk, NORMAL_RUN, id));
    }

    @Override
    public void testSetCompleted(String testSet, long elapsedMs) {
        listener.testSetCompleted(new SimpleReportEntry(NORMAL_RUN, runId(testSet, null), testSet, null, null, null,
                null, (int) Math.min(elapsedMs, Integer.MAX_VALUE), null, systemProps()));
    }

    @Override
    public void log(String level, String message) {
        if ("warn".equals(level)) {
            listener.warning(message);
        } else if ("error".equals(level)) {
            listener.error(message);
        } else {
            listener.info(message);
        }
    }

    private static Trace trace(Failure failure, TestResult test) {
        return failure == null ? null : new Trace(failure, test.className, test.methodName());
    }

    private Long runId(TestResult test) {
        return runId(test.className, test.name);
    }

    /** The id of a class (method null) or test: the class's number in the high 32 bits, the test's in the low. */
    private synchronized Long runId(String className, String method) {
        String key = method == null ? className : className + "#" + method;
        Long id = runIds.get(key);
        if (id == null) {
            Long classId = runIds.get(className);
            if (classId == null) {
                classId = ((long) classIndex++) << 32;
                runIds.put(className, classId);
            }
            id = method == null ? classId : classId | methodIndex++;
            runIds.put(key, id);
        }
        return id;
    }
}
