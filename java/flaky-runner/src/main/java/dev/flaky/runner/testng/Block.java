package dev.flaky.runner.testng;

import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.RequestedTests;

import java.util.List;

/** One run of a class's requested methods inside a TestNG {@code <test>}, and what has been reported of it. */
final class Block {
    final Class<?> testClass;
    final List<OrderEntry> entries;
    /** Whether TestNG orders the class's methods itself, so that the whole class runs. */
    final boolean fixedOrder;
    final RequestedTests<String> tests;
    private final Events events;
    /** The name of the {@code <test>} the block runs in. */
    String testName;
    /** A failure of a {@code @BeforeClass}, {@code @BeforeMethod} or {@code @BeforeGroups} of the block. */
    Failure configFailure;
    /** The requested test whose invocations are running (a data-provider test has several), or null. */
    String running;
    private boolean begun;
    private boolean ended;

    Block(Class<?> testClass, List<OrderEntry> entries, boolean fixedOrder, Events events) {
        this.testClass = testClass;
        this.entries = entries;
        this.fixedOrder = fixedOrder;
        this.events = events;
        this.tests = new RequestedTests<>(testClass, entries, events, "TestNG", false);
    }

    /** Reports the block's {@code class-start} once, before anything else of it. */
    void begin() {
        if (!begun) {
            begun = true;
            events.classStart(testClass.getName());
            tests.announce();
        }
    }

    /** Ends the running test, if any. */
    void endRunning() {
        if (running != null) {
            tests.finished(running);
            running = null;
        }
    }

    /** Ends the block: its running test, then the requested tests TestNG did not run, then {@code class-end}. */
    void end() {
        if (ended) {
            return;
        }
        begin();
        ended = true;
        endRunning();
        tests.finish();
        events.upcoming(testClass, null);
        events.classEnd(testClass.getName());
    }
}
