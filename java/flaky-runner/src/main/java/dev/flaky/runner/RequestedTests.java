package dev.flaky.runner;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bookkeeping a framework listener keeps for one execution of a class's requested tests: which entries wait,
 * which started, which ended, and what was recorded for the running ones, turned into events. An id requested
 * several times (run repeatedly in one scope) answers its entries in order. {@code K} is how the framework names a
 * running test (its id, or the test object itself). Callers synchronise.
 *
 * @param <K> the framework's key of a running test
 */
public final class RequestedTests<K> {
    private final Class<?> testClass;
    private final Events events;
    private final String framework;
    private final List<OrderEntry> requested;
    /** Per id, its entries that have not started, in order. */
    private final Map<String, ArrayDeque<OrderEntry>> waiting = new HashMap<>();
    /** The requested tests that started and have not ended. */
    private final Map<K, Running> running;
    private final Set<OrderEntry> started = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<OrderEntry> ended = Collections.newSetFromMap(new IdentityHashMap<>());

    /** The entries that got a result through {@link #startInvocation}, each waiting for {@link #settle}. */
    private final Set<OrderEntry> invoked = Collections.newSetFromMap(new IdentityHashMap<>());

    /** A started entry, or one invocation of it, and what has been recorded for it. */
    private static final class Running {
        final OrderEntry entry;
        /** The id the test is reported under: the entry's, or the invocation's. */
        final String id;
        /** Whether this is one of several invocations reported for the entry. */
        final boolean invocation;
        final long startNanos;
        String outcome;
        Failure failure;

        Running(OrderEntry entry, String id, boolean invocation, long startNanos) {
            this.entry = entry;
            this.id = id;
            this.invocation = invocation;
            this.startNanos = startNanos;
        }
    }

    /**
     * @param framework names the framework in the notes on tests it did not run ("JUnit 4")
     * @param identity  whether keys are test objects compared by identity (else by equals)
     */
    public RequestedTests(Class<?> testClass, List<OrderEntry> requested, Events events, String framework,
                          boolean identity) {
        this.testClass = testClass;
        this.events = events;
        this.framework = framework;
        this.requested = requested;
        this.running = identity ? new IdentityHashMap<>() : new HashMap<>();
        for (OrderEntry e : requested) {
            waiting.computeIfAbsent(e.id, k -> new ArrayDeque<>()).add(e);
        }
    }

    /** The requested entries, in order. */
    public List<OrderEntry> all() {
        return requested;
    }

    /** Whether id was requested. */
    public boolean isRequested(String id) {
        return waiting.containsKey(id);
    }

    /** Whether key names a requested test that started and has not ended. */
    public boolean isRunning(K key) {
        return running.containsKey(key);
    }

    /** Whether e ended. */
    public boolean hasEnded(OrderEntry e) {
        return ended.contains(e);
    }

    /**
     * Starts the next waiting entry of id under key and reports it; false (nothing reported) when none waits or
     * key is already running.
     */
    public boolean start(K key, String id) {
        ArrayDeque<OrderEntry> next = id == null ? null : waiting.get(id);
        if (next == null || next.isEmpty() || running.containsKey(key)) {
            return false;
        }
        OrderEntry e = next.poll();
        started.add(e);
        running.put(key, new Running(e, id, false, System.nanoTime()));
        events.testStart(id, e.index);
        return true;
    }

    /**
     * Starts one invocation of the waiting entry {@code e} under key and reports it as test {@code id} (an
     * invocation's id, which the entry's covers, as a test template's covers its invocations): the entry keeps
     * waiting for its other invocations until {@link #settle}. False (nothing reported) when e is not waiting or key
     * is already running.
     */
    public boolean startInvocation(K key, OrderEntry e, String id) {
        ArrayDeque<OrderEntry> next = waiting.get(e.id);
        if (next == null || !next.contains(e) || running.containsKey(key)) {
            return false;
        }
        started.add(e);
        invoked.add(e);
        running.put(key, new Running(e, id, true, System.nanoTime()));
        events.testStart(id, e.index);
        return true;
    }

    /**
     * Ends the entries whose invocations were reported through {@link #startInvocation} (their results are the
     * invocations'); an entry none of whose invocations ran stays for {@link #finish}.
     */
    public void settle() {
        for (OrderEntry e : requested) {
            if (invoked.contains(e) && !ended.contains(e)) {
                ended.add(e);
                ArrayDeque<OrderEntry> next = waiting.get(e.id);
                if (next != null) {
                    next.remove(e);
                }
            }
        }
    }

    /** The next waiting entry of id, null when none waits. */
    public OrderEntry peek(String id) {
        ArrayDeque<OrderEntry> next = waiting.get(id);
        return next == null ? null : next.peek();
    }

    /**
     * Records the first outcome reported for the running test key; false when key is not running (a failure
     * outside a requested test).
     */
    public boolean record(K key, String outcome, Failure failure) {
        Running r = running.get(key);
        if (r == null) {
            return false;
        }
        if (r.outcome == null) {
            r.outcome = outcome;
            r.failure = failure;
        }
        return true;
    }

    /** Ends the running test key with what was recorded for it ({@code pass} when nothing was). */
    public void finished(K key) {
        Running r = running.remove(key);
        if (r == null || ended.contains(r.entry)) {
            return;
        }
        long timeMs = (System.nanoTime() - r.startNanos) / 1_000_000;
        String outcome = r.outcome == null ? Outcome.PASS : r.outcome;
        if (r.invocation) {
            events.testEnd(r.id, r.entry.index, outcome, timeMs, r.failure);
            announce();
            return;
        }
        end(r.entry, outcome, timeMs, r.failure);
    }

    /**
     * Handles a failure outside a running requested test that concerns the entries {@code under}: before any of
     * them started it ends those not ended (with {@code error}, or {@code assumption} for a failed assumption);
     * otherwise it is a {@code class-error} (failed assumptions there are dropped, as JUnit does).
     */
    public void fixtureFailure(List<OrderEntry> under, Failure failure, boolean assumption) {
        List<OrderEntry> pending = new ArrayList<>();
        boolean anyStarted = false;
        for (OrderEntry e : under) {
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
     * {@link Events#upcoming}): frameworks build a test's instance before or right after they report it started.
     */
    public void announce() {
        OrderEntry next = null;
        for (OrderEntry e : requested) {
            if (!started.contains(e) && !ended.contains(e)) {
                next = e;
                break;
            }
        }
        events.upcoming(testClass, next);
    }

    /**
     * Ends the requested tests that got no {@code test-end}, which the framework did not run (after
     * {@link #settle}).
     */
    public void finish() {
        settle();
        for (OrderEntry e : requested) {
            if (!ended.contains(e)) {
                events.notFound(e, started.contains(e)
                        ? framework + " started " + e.id + " but never finished it"
                        : framework + " did not run " + e.id);
                ended.add(e);
            }
        }
    }

    /** Ends e with outcome and reports it, then names the next test. */
    public void end(OrderEntry e, String outcome, long timeMs, Failure failure) {
        ended.add(e);
        ArrayDeque<OrderEntry> next = waiting.get(e.id);
        if (next != null) {
            next.remove(e);
        }
        events.testEnd(e.id, e.index, outcome, timeMs, failure);
        announce();
    }
}
