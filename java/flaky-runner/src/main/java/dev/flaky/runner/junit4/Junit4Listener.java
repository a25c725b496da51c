package dev.flaky.runner.junit4;

import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.Outcome;
import dev.flaky.runner.RequestedTests;
import org.junit.Ignore;
import org.junit.runner.Description;
import org.junit.runner.notification.RunListener;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns JUnit 4 notifications for one segment of an order into events. A failure of a suite description (the
 * class, or a parameter set of {@code Parameterized}) before any of its tests started is a class fixture failure
 * and ends each of its requested tests; after tests started it is an {@code @AfterClass} failure, a
 * {@code class-error}. An id requested several times (run repeatedly in one scope) answers its entries in order.
 */
final class Junit4Listener extends RunListener {
    private final Class<?> testClass;
    private final Description tree;
    private final RequestedTests<String> tests;

    Junit4Listener(Class<?> testClass, List<OrderEntry> segment, Description tree, Events events) {
        this.testClass = testClass;
        this.tree = tree;
        this.tests = new RequestedTests<>(testClass, segment, events, "JUnit 4", false);
    }

    /** The test id of a JUnit 4 test description. */
    static String id(Description d) {
        return d.getClassName() + "#" + d.getMethodName();
    }

    @Override
    public synchronized void testStarted(Description d) {
        String id = id(d);
        tests.start(id, id);
    }

    @Override
    public synchronized void testFinished(Description d) {
        tests.finished(id(d));
    }

    @Override
    public synchronized void testFailure(org.junit.runner.notification.Failure f) {
        record(f, f.getException() == null ? Outcome.ERROR : Outcome.of(f.getException()));
    }

    @Override
    public synchronized void testAssumptionFailure(org.junit.runner.notification.Failure f) {
        record(f, Outcome.ASSUMPTION);
    }

    @Override
    public synchronized void testIgnored(Description d) {
        if (d.isTest() && d.getMethodName() != null) {
            OrderEntry next = tests.peek(id(d));
            if (next != null) {
                tests.end(next, Outcome.SKIPPED, 0, Failure.reason(ignoreReason(d.getAnnotation(Ignore.class))));
            }
            return;
        }
        Failure reason = Failure.reason(ignoreReason(testClass.getAnnotation(Ignore.class)));
        for (OrderEntry e : under(d)) {
            if (!tests.hasEnded(e)) {
                tests.end(e, Outcome.SKIPPED, 0, reason);
            }
        }
    }

    private void record(org.junit.runner.notification.Failure f, String outcome) {
        Description d = f.getDescription();
        Failure failure = f.getException() == null
                ? Failure.reason(f.getMessage()) : Failure.of(f.getException(), testClass);
        if (d.getMethodName() != null && tests.record(id(d), outcome, failure)) {
            return;
        }
        fixtureFailure(d, failure, Outcome.ASSUMPTION.equals(outcome));
    }

    /**
     * Handles a failure outside a running requested test: before any test under {@code d} started it ends those
     * tests (with {@code error}, or {@code assumption} for a failed assumption); otherwise it is a
     * {@code class-error} (failed assumptions there are dropped, as JUnit does).
     */
    synchronized void fixtureFailure(Description d, Failure failure, boolean assumption) {
        tests.fixtureFailure(under(d), failure, assumption);
    }

    /**
     * Names the next requested entry that has neither started nor ended as the one that runs next (see
     * {@link Events#upcoming}): JUnit 4.12 builds a test's instance before it reports the test started, JUnit 4.13
     * right after.
     */
    synchronized void announce() {
        tests.announce();
    }

    /** Ends the requested tests that got no {@code test-end}, which JUnit 4 did not run. */
    synchronized void finish() {
        tests.finish();
    }

    /**
     * Returns the requested entries under {@code d} in the analysed tree; all of them when {@code d} is not part
     * of it or is a test that was not requested (such as {@code initializationError}).
     */
    private List<OrderEntry> under(Description d) {
        Description node = find(tree, d);
        if (node == null || (node.isTest() && (node.getMethodName() == null || !tests.isRequested(id(node))))) {
            return tests.all();
        }
        Set<String> ids = new HashSet<>();
        for (Description leaf : Junit4Engine.leaves(node)) {
            ids.add(id(leaf));
        }
        List<OrderEntry> under = new ArrayList<>();
        for (OrderEntry e : tests.all()) {
            if (ids.contains(e.id)) {
                under.add(e);
            }
        }
        return under;
    }

    private static Description find(Description node, Description wanted) {
        if (node.equals(wanted)) {
            return node;
        }
        for (Description child : node.getChildren()) {
            Description found = find(child, wanted);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static String ignoreReason(Ignore ignore) {
        return ignore == null || ignore.value().isEmpty() ? null : ignore.value();
    }
}
