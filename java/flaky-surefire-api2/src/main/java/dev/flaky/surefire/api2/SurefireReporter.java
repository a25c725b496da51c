package dev.flaky.surefire.api2;

import dev.flaky.runner.Failure;
import dev.flaky.runner.Outcome;
import dev.flaky.surefire.Reporter;
import dev.flaky.surefire.TestResult;
import org.apache.maven.plugin.surefire.log.api.ConsoleLogger;
import org.apache.maven.surefire.report.ConsoleOutputReceiver;
import org.apache.maven.surefire.report.ConsoleStream;
import org.apache.maven.surefire.report.RunListener;
import org.apache.maven.surefire.report.SimpleReportEntry;

import static org.apache.maven.surefire.util.internal.ObjectUtils.systemProps;

/**
 * Reports to Surefire 2.x as its JUnit 4 provider does: test sets named by class (the provider as source), tests by
 * class and method, output through the reporter's ConsoleOutputReceiver, stack traces through {@link Trace}.
 */
final class SurefireReporter implements Reporter<Chunk> {
    private static final String SOURCE = FlakyProvider.class.getName();

    private final RunListener listener;
    private final ConsoleStream console;

    SurefireReporter(RunListener listener, ConsoleStream console) {
        this.listener = listener;
        this.console = console;
    }

    @Override
    public void testSetStarting(String testSet) {
        listener.testSetStarting(new SimpleReportEntry(SOURCE, testSet, systemProps()));
    }

    @Override
    public void testStarting(TestResult test) {
        listener.testStarting(new SimpleReportEntry(test.className, test.name));
    }

    @Override
    public void testFinished(TestResult test) {
        Integer elapsed = (int) Math.min(test.timeMs, Integer.MAX_VALUE);
        switch (test.outcome) {
            case Outcome.PASS:
                listener.testSucceeded(new SimpleReportEntry(test.className, test.name, elapsed));
                break;
            case Outcome.SKIPPED:
                listener.testSkipped(SimpleReportEntry.ignored(test.className, test.name, test.message()));
                break;
            case Outcome.ASSUMPTION:
                listener.testAssumptionFailure(SimpleReportEntry.assumption(test.className, test.name, test.message()));
                break;
            case Outcome.FAIL:
                listener.testFailed(new SimpleReportEntry(test.className, test.name, trace(test), elapsed));
                break;
            default:
                listener.testError(new SimpleReportEntry(test.className, test.name, trace(test), elapsed));
                break;
        }
    }

    @Override
    public void classError(String testSet, String className, Failure failure) {
        listener.testError(SimpleReportEntry.withException(className, className, new Trace(failure, className, null)));
    }

    @Override
    public void output(TestResult test, String testSet, Chunk chunk) {
        ((ConsoleOutputReceiver) listener).writeTestOutput(chunk.bytes, 0, chunk.bytes.length, chunk.stdout);
    }

    @Override
    public void testSetCompleted(String testSet, long elapsedMs) {
        listener.testSetCompleted(new SimpleReportEntry(SOURCE, testSet, null,
                (int) Math.min(elapsedMs, Integer.MAX_VALUE), systemProps()));
    }

    @Override
    public void log(String level, String message) {
        if (listener instanceof ConsoleLogger) {
            ConsoleLogger logger = (ConsoleLogger) listener;
            if ("warn".equals(level)) {
                logger.warning(message);
            } else if ("error".equals(level)) {
                logger.error(message);
            } else {
                logger.info(message);
            }
        } else {
            console.println(message);
        }
    }

    private static Trace trace(TestResult test) {
        return test.failure == null ? null : new Trace(test.failure, test.className, test.methodName());
    }
}
