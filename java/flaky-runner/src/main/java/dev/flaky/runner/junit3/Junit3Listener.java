package dev.flaky.runner.junit3;

import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.Outcome;
import junit.framework.AssertionFailedError;
import junit.framework.Test;
import junit.framework.TestListener;

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
 * Turns JUnit 3 {@code TestResult} notifications for one execution of a class's requested tests into events. An
 * error reported for a node that is not a running test (a {@code TestSetup} whose {@code setUp} or
 * {@code tearDown} threw) ends the requested tests under it when none of them started, and is a
 * {@code class-error} otherwise. Tests that were not requested (a {@code TestSuite} warning) are ignored.
 */
final class Junit3Listener implements TestListener {
    private final Class<?> testClass;
    private final Events events;
    private final List<OrderEntry> requested;
    /** Per id, its entries that have not started, in order. */
    private final Map<String, ArrayDeque<OrderEntry>> waiting = new HashMap<>();
    /** The requested tests that started and have not ended. */
    private final Map<Test, Running> running = new IdentityHashMap<>();
    /** Tests that started but were not requested. */
    private final Set<Test> unrequested = Collections.newSetFromMap(new IdentityHashMap<>());
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

    Junit3Listener(Class<?> testClass, List<OrderEntry> requested, Events events) {
        this.testClass = testClass;
        this.events = events;
        this.requested = requested;
        for (OrderEntry e : requested) {
            waiting.computeIfAbsent(e.id, k -> new ArrayDeque<>()).add(e);
        }
    }

    @Override
    public synchronized void startTest(Test test) {
        String id = Tree.id(test);
        ArrayDeque<OrderEntry> next = id == null ? null : waiting.get(id);
        if (next == null || next.isEmpty() || running.containsKey(test)) {
            unrequested.add(test);
            return;
        }
        OrderEntry e = next.poll();
        started.add(e);
        running.put(test, new Running(e, System.nanoTime()));
        events.testStart(id, e.index);
    }

    @Override
    public synchronized void addError(Test test, Throwable t) {
        record(test, Outcome.of(t), Failure.of(t, testClass));
    }

    @Override
    public synchronized void addFailure(Test test, AssertionFailedError t) {
        record(test, Outcome.FAIL, Failure.of(t, testClass));
    }

    @Override
    public synchronized void endTest(Test test) {
        unrequested.remove(test);
        Running r = running.remove(test);
        if (r == null || ended.contains(r.entry)) {
            return;
        }
        long timeMs = (System.nanoTime() - r.startNanos) / 1_000_000;
        end(r.entry, r.outcome == null ? Outcome.PASS : r.outcome, timeMs, r.failure);
    }

    private void record(Test test, String outcome, Failure failure) {
        Running r = running.get(test);
        if (r != null) {
            if (r.outcome == null) {
                r.outcome = outcome;
                r.failure = failure;
            }
            return;
        }
        if (!unrequested.contains(test)) {
            fixtureFailure(test, failure);
        }
    }

    /**
     * Handles a failure of {@code node} (null: the whole execution) outside a running test: before any requested
     * test under it started it ends those tests with {@code error}; otherwise it is a {@code class-error}.
     */
    synchronized void fixtureFailure(Test node, Failure failure) {
        Set<String> under = null;
        if (node != null) {
            under = new HashSet<>();
            for (Test leaf : Tree.leaves(node)) {
                under.add(Tree.id(leaf));
            }
        }
        boolean anyStarted = false;
        List<OrderEntry> pending = new ArrayList<>();
        for (OrderEntry e : requested) {
            if (under != null && !under.contains(e.id)) {
                continue;
            }
            anyStarted |= started.contains(e);
            if (!ended.contains(e)) {
                pending.add(e);
            }
        }
        if (!anyStarted && !pending.isEmpty()) {
            for (OrderEntry e : pending) {
                end(e, Outcome.ERROR, 0, failure);
            }
        } else {
            events.classError(testClass.getName(), failure);
        }
    }

    /** Names the next requested entry that has neither started nor ended as the one that runs next. */
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

    /** Ends the requested tests that got no {@code test-end}, which JUnit 3 did not run. */
    synchronized void finish() {
        for (OrderEntry e : requested) {
            if (!ended.contains(e)) {
                events.notFound(e, started.contains(e)
                        ? "JUnit 3 started " + e.id + " but never finished it"
                        : "JUnit 3 did not run " + e.id);
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
}
