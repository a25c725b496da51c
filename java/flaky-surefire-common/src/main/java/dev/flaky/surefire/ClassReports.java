package dev.flaky.surefire;

import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.Outcome;
import dev.flaky.runner.RunnerListener;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Turns the runner's events for one order into Surefire reports grouped by test set. Surefire writes one
 * TEST-*.xml per test set when the set completes, so an order that interleaves classes must not report a class
 * twice: everything of a test set (its tests, their captured output, class errors) is kept, in the order it
 * happened, until the last test of the set in the order has ended, and is then replayed to the {@link Reporter} as
 * one test set. An order without interleaving is thus reported class by class as it runs.
 *
 * @param <O> the reporter's type of output chunk
 */
final class ClassReports<O> implements RunnerListener {
    private final Reporter<O> reporter;
    private final TestSets sets;
    private final ForkRecord record;
    private final Map<String, Integer> remaining = new HashMap<>();
    private final Set<Integer> endedIndexes = new HashSet<>();
    private final Map<String, List<Consumer<Reporter<O>>>> pending = new LinkedHashMap<>();
    private final Map<String, Long> elapsedMs = new HashMap<>();
    private String activeSet;
    private long activeSince;
    private TestResult running;

    ClassReports(Reporter<O> reporter, TestSets sets, List<OrderEntry> order, ForkRecord record) {
        this.reporter = reporter;
        this.sets = sets;
        this.record = record;
        for (OrderEntry e : order) {
            remaining.merge(sets.of(e.className), 1, Integer::sum);
        }
    }

    @Override
    public synchronized void classStart(String className) {
        activeSet = sets.of(className);
        activeSince = System.nanoTime();
        items(activeSet);
    }

    @Override
    public synchronized void classEnd(String className) {
        if (activeSet != null) {
            elapsedMs.merge(activeSet, (System.nanoTime() - activeSince) / 1_000_000, Long::sum);
        }
        activeSet = null;
        flushCompleted();
    }

    @Override
    public synchronized void testStart(String test, int index) {
        TestResult started = result(test, null, 0, null);
        running = started;
        items(started.testSet).add(r -> r.testStarting(started));
    }

    @Override
    public synchronized void testEnd(String test, int index, String outcome, long timeMs, Failure failure) {
        TestResult ended = result(test, outcome, timeMs, failure);
        List<Consumer<Reporter<O>>> items = items(ended.testSet);
        boolean started = running != null && running.id().equals(test);
        if (!started && !Outcome.SKIPPED.equals(outcome)) {
            // Fixture failures and missing tests end a test that never started; Surefire wants a start first.
            items.add(r -> r.testStarting(result(test, null, 0, null)));
        }
        items.add(r -> r.testFinished(ended));
        running = null;
        record.test(test, outcome, timeMs, failure == null ? null : failure.message());
        if (endedIndexes.add(index)) {
            remaining.merge(ended.testSet, -1, Integer::sum);
        }
        flushCompleted();
    }

    @Override
    public synchronized void classError(String className, Failure failure) {
        String set = sets.of(className);
        items(set).add(r -> r.classError(set, className, failure));
    }

    /** Captured test output: kept with the running test set, or written at once outside any. */
    synchronized void output(O chunk) {
        if (activeSet == null) {
            reporter.output(null, null, chunk);
            return;
        }
        TestResult test = running;
        String set = activeSet;
        items(set).add(r -> r.output(test, set, chunk));
    }

    /** Reports every test set still held back (normally none once the order has ended). */
    synchronized void finish() {
        activeSet = null;
        for (String set : new ArrayList<>(pending.keySet())) {
            replay(set);
        }
    }

    private void flushCompleted() {
        for (String set : new ArrayList<>(pending.keySet())) {
            if (!set.equals(activeSet) && remaining.getOrDefault(set, 0) <= 0) {
                replay(set);
            }
        }
    }

    private void replay(String set) {
        List<Consumer<Reporter<O>>> items = pending.remove(set);
        reporter.testSetStarting(set);
        for (Consumer<Reporter<O>> item : items) {
            item.accept(reporter);
        }
        reporter.testSetCompleted(set, elapsedMs.getOrDefault(set, 0L));
    }

    private List<Consumer<Reporter<O>>> items(String set) {
        return pending.computeIfAbsent(set, k -> new ArrayList<>());
    }

    private TestResult result(String test, String outcome, long timeMs, Failure failure) {
        String className = TestSets.classOf(test);
        return new TestResult(sets.of(className), className, TestSets.nameOf(test), outcome, timeMs, failure);
    }
}
