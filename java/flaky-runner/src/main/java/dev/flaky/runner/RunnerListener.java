package dev.flaky.runner;

/**
 * Receives what the runner reports, in process: the same events the runner sends to the driver (see
 * agent/PROTOCOL.md), with failures that still carry their throwable. Used by code that drives the runner
 * programmatically, such as the flaky Surefire provider. Every method does nothing by default.
 */
public interface RunnerListener {
    /** A listener that ignores everything. */
    RunnerListener NONE = new RunnerListener() {
    };

    /** {@code run-start}: an order of {@code count} tests starts. */
    default void runStart(int count) {
    }

    /** {@code class-start}: the class fixtures of a run of methods of {@code className} are about to run. */
    default void classStart(String className) {
    }

    /** {@code class-end}: that run of methods is over. */
    default void classEnd(String className) {
    }

    /** {@code test-start}: test {@code test} (at {@code index} in the order) starts. */
    default void testStart(String test, int index) {
    }

    /** {@code test-end}: a test finished with {@code outcome} (see {@link Outcome}); {@code failure} may be null. */
    default void testEnd(String test, int index, String outcome, long timeMs, Failure failure) {
    }

    /** {@code class-error}: an {@code @AfterClass}/{@code @AfterAll} failure that belongs to no single test. */
    default void classError(String className, Failure failure) {
    }

    /** {@code log}: a diagnostic with level {@code info}, {@code warn} or {@code error}. */
    default void log(String level, String message) {
    }

    /** {@code run-end}: the order is done; {@code count} {@code test-end} events were reported. */
    default void runEnd(int count) {
    }
}
