package dev.flaky.runner.testng;

import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.RequestedTests;
import org.testng.ITestResult;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of a class's requested methods inside a TestNG {@code <test>}, and what has been reported of it. Order
 * entries name methods ({@code m}) or single invocations of data-provider methods ({@code m[params](n)}); a
 * data-provider method named by itself runs all its invocations, each reported as a test of its own.
 */
final class Block {
    final Class<?> testClass;
    final List<OrderEntry> entries;
    /** Whether TestNG orders the class's methods itself, so that the whole class runs. */
    final boolean fixedOrder;
    final RequestedTests<String> tests;
    private final TestMethods methods;
    private final Events events;
    /**
     * Per method, its requested entries in order: one entry naming the method, or entries naming invocations, rows
     * ascending (see {@link #achievable}).
     */
    private final Map<String, List<OrderEntry>> byMethod = new LinkedHashMap<>();
    /** Per data-provider method, how many of its invocations TestNG has reported in this block. */
    private final Map<String, Integer> invocations = new HashMap<>();
    /** The name of the {@code <test>} the block runs in. */
    String testName;
    /** A failure of a {@code @BeforeClass}, {@code @BeforeMethod} or {@code @BeforeGroups} of the block. */
    Failure configFailure;
    /** The key of the requested test (or invocation) that is running, or null. */
    String running;
    /**
     * Reports due right before the block's {@code class-start}: the entries TestNG cannot run of its class run and of
     * the class runs before it since the previous block, in the order's order.
     */
    final List<Runnable> before = new ArrayList<>();
    /** TestNG's result of the invocation that TestNG last reported, or null. */
    private ITestResult result;
    private boolean begun;
    private boolean ended;

    Block(Class<?> testClass, List<OrderEntry> entries, TestMethods methods, Events events) {
        this.testClass = testClass;
        this.entries = entries;
        this.methods = methods;
        this.fixedOrder = methods.fixedOrder();
        this.events = events;
        this.tests = new RequestedTests<>(testClass, entries, events, "TestNG", false);
        for (OrderEntry e : entries) {
            byMethod.computeIfAbsent(Invocation.parse(e.method).method, k -> new ArrayList<>()).add(e);
        }
    }

    /**
     * Whether one block (a {@code <class>} with an {@code <include>} per method) runs {@code candidate}, entries of
     * one class, exactly in its order: no id twice, and each method's entries consecutive, either the method itself
     * or invocations in the data provider's order. A class whose order TestNG fixes runs whole: only ids must differ.
     */
    static boolean achievable(List<OrderEntry> candidate, boolean fixedOrder) {
        Map<String, Integer> lastRow = new HashMap<>();
        List<String> ids = new ArrayList<>();
        String previous = null;
        for (OrderEntry e : candidate) {
            if (ids.contains(e.id)) {
                return false;
            }
            ids.add(e.id);
            if (fixedOrder) {
                continue;
            }
            Invocation inv = Invocation.parse(e.method);
            Integer last = lastRow.get(inv.method);
            if (last != null && (!inv.method.equals(previous) || last < 0 || !inv.isInvocation() || inv.row() <= last)) {
                return false;
            }
            lastRow.put(inv.method, inv.isInvocation() ? inv.row() : -1);
            previous = inv.method;
        }
        return true;
    }

    /** The requested methods in order, each with the rows to run (null: all of them). */
    Map<String, List<Integer>> includes() {
        Map<String, List<Integer>> includes = new LinkedHashMap<>();
        for (Map.Entry<String, List<OrderEntry>> m : byMethod.entrySet()) {
            List<Integer> rows = new ArrayList<>();
            for (OrderEntry e : m.getValue()) {
                Invocation inv = Invocation.parse(e.method);
                if (!inv.isInvocation()) {
                    rows = null;
                    break;
                }
                rows.add(inv.row());
            }
            includes.put(m.getKey(), rows);
        }
        return includes;
    }

    /**
     * Reports the block's {@code class-start} once, before anything else of it, after the reports due
     * {@link #before} it.
     */
    void begin() {
        if (!begun) {
            begun = true;
            for (Runnable r : before) {
                r.run();
            }
            before.clear();
            events.classStart(testClass.getName());
            tests.announce();
        }
    }

    /**
     * Starts the requested test that TestNG's result {@code r} belongs to, when r is a new invocation, and returns
     * the key it runs under; null when r belongs to no requested test. A method without data provider is one test
     * for all its invocations ({@code invocationCount}); a data-provider method's invocation is the entry that names
     * it, or, when the method itself is requested, a test of its own under the entry.
     */
    String start(ITestResult r) {
        begin();
        if (r == result) {
            return running;
        }
        result = r;
        String method = r.getMethod().getMethodName();
        String base = testClass.getName() + "#" + method;
        if (!methods.invocations(method)) {
            if (base.equals(running)) {
                return running;
            }
            endRunning();
            if (!tests.start(base, base)) {
                return null;
            }
            running = base;
            return running;
        }
        endRunning();
        int nth = invocations.merge(method, 1, Integer::sum) - 1;
        List<OrderEntry> requested = byMethod.get(method);
        if (requested == null) {
            return null;
        }
        List<Integer> rows = fixedOrder ? null : includes().get(method);
        int row = rows == null ? nth : nth < rows.size() ? rows.get(nth) : -1;
        for (OrderEntry e : requested) {
            Invocation inv = Invocation.parse(e.method);
            if (inv.isInvocation() && inv.row() == row && tests.start(e.id, e.id)) {
                running = e.id;
                return running;
            }
            if (!inv.isInvocation() && row >= 0) {
                Object[] parameters = r.getParameters();
                String id = parameters == null || parameters.length == 0 ? e.id
                        : testClass.getName() + "#" + Invocation.member(method, parameters, row + 1);
                String key = e.id + "\n" + row;
                if (tests.startInvocation(key, e, id)) {
                    running = key;
                    return running;
                }
            }
        }
        return null;
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
