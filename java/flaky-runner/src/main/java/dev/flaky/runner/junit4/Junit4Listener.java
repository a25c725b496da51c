package dev.flaky.runner.junit4;

import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.Outcome;
import org.junit.Ignore;
import org.junit.runner.Description;
import org.junit.runner.notification.RunListener;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
    private final Events events;
    private final List<OrderEntry> requested;
    /** Per id, its entries that have not started, in order. */
    private final Map<String, ArrayDeque<OrderEntry>> waiting = new HashMap<>();
    /** Per id, the entry that started and has not ended. */
    private final Map<String, Running> running = new HashMap<>();
    private final Set<OrderEntry> started = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<OrderEntry> ended = Collections.newSetFromMap(new IdentityHashMap<>());

    /** A started entry and what has been recorded for it. */
    private static final class Running {
        final OrderEntry entry;
        final long startNanos;
        String outcome;
        Failure failure;

        Running(OrderEntry entry, long startNanos) {
            this.entry = entry;
            this.startNanos = startNanos;
        }
    }

    Junit4Listener(Class<?> testClass, List<OrderEntry> segment, Description tree, Events events) {
        this.testClass = testClass;
        this.tree = tree;
        this.events = events;
        this.requested = segment;
        for (OrderEntry e : segment) {
            waiting.computeIfAbsent(e.id, k -> new ArrayDeque<>()).add(e);
        }
    }

    /** The test id of a JUnit 4 test description. */
    static String id(Description d) {
        return d.getClassName() + "#" + d.getMethodName();
    }

    @Override
    public synchronized void testStarted(Description d) {
        String id = id(d);
        ArrayDeque<OrderEntry> next = waiting.get(id);
        if (running.containsKey(id) || next == null || next.isEmpty()) {
            return;
        }
        OrderEntry e = next.poll();
        started.add(e);
        running.put(id, new Running(e, System.nanoTime()));
        events.testStart(id, e.index);
    }

    @Override
    public synchronized void testFinished(Description d) {
        Running r = running.remove(id(d));
        if (r == null || ended.contains(r.entry)) {
            return;
        }
        long timeMs = (System.nanoTime() - r.startNanos) / 1_000_000;
        end(r.entry, r.outcome == null ? Outcome.PASS : r.outcome, timeMs, r.failure);
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
            ArrayDeque<OrderEntry> next = waiting.get(id(d));
            if (next != null && !next.isEmpty()) {
                end(next.peek(), Outcome.SKIPPED, 0, Failure.reason(ignoreReason(d.getAnnotation(Ignore.class))));
            }
            return;
        }
        Failure reason = Failure.reason(ignoreReason(testClass.getAnnotation(Ignore.class)));
        for (OrderEntry e : under(d)) {
            if (!ended.contains(e)) {
                end(e, Outcome.SKIPPED, 0, reason);
            }
        }
    }

    private void record(org.junit.runner.notification.Failure f, String outcome) {
        Description d = f.getDescription();
        Failure failure = f.getException() == null
                ? Failure.reason(f.getMessage()) : Failure.of(f.getException(), testClass);
        Running r = d.getMethodName() == null ? null : running.get(id(d));
        if (r != null) {
            if (r.outcome == null) {
                r.outcome = outcome;
                r.failure = failure;
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
        List<OrderEntry> pending = new ArrayList<>();
        boolean anyStarted = false;
        for (OrderEntry e : under(d)) {
            anyStarted |= started.contains(e);
            if (!ended.contains(e)) {
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

    /**
     * Names the next requested entry that has neither started nor ended as the one that runs next (see
     * {@link Events#upcoming}): JUnit 4.12 builds a test's instance before it reports the test started, JUnit 4.13
     * right after.
     */
    synchronized void announce() {
        OrderEntry next = null;
        for (OrderEntry e : requested) {
            if (!started.contains(e) && !ended.contains(e)) {
                next = e;
                break;
            }
        }
        events.upcoming(testClass, next);
    }

    /** Ends the requested tests that got no {@code test-end}, which JUnit 4 did not run. */
    synchronized void finish() {
        for (OrderEntry e : requested) {
            if (!ended.contains(e)) {
                events.notFound(e, started.contains(e)
                        ? "JUnit 4 started " + e.id + " but never finished it"
                        : "JUnit 4 did not run " + e.id);
                ended.add(e);
            }
        }
    }

    private void end(OrderEntry e, String outcome, long timeMs, Failure failure) {
        ended.add(e);
        waiting.get(e.id).remove(e);
        events.testEnd(e.id, e.index, outcome, timeMs, failure);
        announce();
    }

    /**
     * Returns the requested entries under {@code d} in the analysed tree; all of them when {@code d} is not part
     * of it or is a test that was not requested (such as {@code initializationError}).
     */
    private List<OrderEntry> under(Description d) {
        Description node = find(tree, d);
        if (node == null || (node.isTest() && (node.getMethodName() == null || !waiting.containsKey(id(node))))) {
            return requested;
        }
        Set<String> ids = new HashSet<>();
        for (Description leaf : Junit4Engine.leaves(node)) {
            ids.add(id(leaf));
        }
        List<OrderEntry> under = new ArrayList<>();
        for (OrderEntry e : requested) {
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
