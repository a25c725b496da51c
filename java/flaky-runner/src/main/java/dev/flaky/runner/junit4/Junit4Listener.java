package dev.flaky.runner.junit4;

import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.Outcome;
import org.junit.Ignore;
import org.junit.runner.Description;
import org.junit.runner.notification.RunListener;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns JUnit 4 notifications for one segment of an order into events. A failure of a suite description (the
 * class, or a parameter set of {@code Parameterized}) before any of its tests started is a class fixture failure
 * and ends each of its requested tests; after tests started it is an {@code @AfterClass} failure, a
 * {@code class-error}.
 */
final class Junit4Listener extends RunListener {
    private final Class<?> testClass;
    private final Description tree;
    private final Events events;
    private final Map<String, OrderEntry> requested = new LinkedHashMap<>();
    private final Set<String> started = new HashSet<>();
    private final Set<String> ended = new HashSet<>();
    private final Map<String, Long> startNanos = new HashMap<>();
    private final Map<String, String> outcomes = new HashMap<>();
    private final Map<String, Failure> failures = new HashMap<>();

    Junit4Listener(Class<?> testClass, List<OrderEntry> segment, Description tree, Events events) {
        this.testClass = testClass;
        this.tree = tree;
        this.events = events;
        for (OrderEntry e : segment) {
            requested.put(e.id, e);
        }
    }

    /** The test id of a JUnit 4 test description. */
    static String id(Description d) {
        return d.getClassName() + "#" + d.getMethodName();
    }

    @Override
    public synchronized void testStarted(Description d) {
        String id = id(d);
        OrderEntry e = requested.get(id);
        if (e == null || started.contains(id) || ended.contains(id)) {
            return;
        }
        started.add(id);
        startNanos.put(id, System.nanoTime());
        events.testStart(id, e.index);
    }

    @Override
    public synchronized void testFinished(Description d) {
        String id = id(d);
        OrderEntry e = requested.get(id);
        if (e == null || !started.contains(id) || ended.contains(id)) {
            return;
        }
        long timeMs = (System.nanoTime() - startNanos.get(id)) / 1_000_000;
        String outcome = outcomes.get(id);
        end(e, outcome == null ? Outcome.PASS : outcome, timeMs, failures.get(id));
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
            OrderEntry e = requested.get(id(d));
            if (e != null && !ended.contains(e.id)) {
                end(e, Outcome.SKIPPED, 0, Failure.reason(ignoreReason(d.getAnnotation(Ignore.class))));
            }
            return;
        }
        Failure reason = Failure.reason(ignoreReason(testClass.getAnnotation(Ignore.class)));
        for (OrderEntry e : under(d)) {
            if (!ended.contains(e.id)) {
                end(e, Outcome.SKIPPED, 0, reason);
            }
        }
    }

    private void record(org.junit.runner.notification.Failure f, String outcome) {
        Description d = f.getDescription();
        Failure failure = f.getException() == null
                ? Failure.reason(f.getMessage()) : Failure.of(f.getException(), testClass);
        String id = d.getMethodName() == null ? null : id(d);
        if (id != null && requested.containsKey(id) && started.contains(id) && !ended.contains(id)) {
            if (!outcomes.containsKey(id)) {
                outcomes.put(id, outcome);
                failures.put(id, failure);
            }
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
        List<OrderEntry> under = under(d);
        List<OrderEntry> pending = new ArrayList<>();
        boolean anyStarted = false;
        for (OrderEntry e : under) {
            anyStarted |= started.contains(e.id);
            if (!ended.contains(e.id)) {
                pending.add(e);
            }
        }
        if (!anyStarted && !pending.isEmpty()) {
            for (OrderEntry e : pending) {
                end(e, assumption ? Outcome.ASSUMPTION : Outcome.ERROR, 0, failure);
            }
        } else if (!assumption) {
            events.classError(testClass.getName(), failure);
        }
    }

    /** Ends the requested tests that got no {@code test-end}, which JUnit 4 did not run. */
    synchronized void finish() {
        for (OrderEntry e : requested.values()) {
            if (!ended.contains(e.id)) {
                events.notFound(e, started.contains(e.id)
                        ? "JUnit 4 started " + e.id + " but never finished it"
                        : "JUnit 4 did not run " + e.id);
                ended.add(e.id);
            }
        }
    }

    private void end(OrderEntry e, String outcome, long timeMs, Failure failure) {
        ended.add(e.id);
        events.testEnd(e.id, e.index, outcome, timeMs, failure);
    }

    /**
     * Returns the requested entries under {@code d} in the analysed tree; all of them when {@code d} is not part
     * of it or is a test that was not requested (such as {@code initializationError}).
     */
    private List<OrderEntry> under(Description d) {
        Description node = find(tree, d);
        if (node == null || (node.isTest() && (node.getMethodName() == null || !requested.containsKey(id(node))))) {
            return new ArrayList<>(requested.values());
        }
        Set<String> ids = new HashSet<>();
        for (Description leaf : Junit4Engine.leaves(node)) {
            ids.add(id(leaf));
        }
        List<OrderEntry> under = new ArrayList<>();
        for (OrderEntry e : requested.values()) {
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
