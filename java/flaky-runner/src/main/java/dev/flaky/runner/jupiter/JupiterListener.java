package dev.flaky.runner.jupiter;

import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.Outcome;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns launcher events of one execution into events. Tests are reported as {@code pkg.C#m}, invocations of
 * templates and factories as {@code pkg.C#m[i]}. A failed class container (or the engine) before any test started
 * is a class fixture failure that ends every requested test; after tests started it is a {@code class-error}.
 */
final class JupiterListener implements TestExecutionListener {
    private final Class<?> testClass;
    private final List<Requested> segment;
    private final Events events;
    private final Map<String, TestIdentifier> nodes = new HashMap<>();
    private final Map<String, Long> startNanos = new HashMap<>();
    private final Set<Requested> ended = new HashSet<>();
    private boolean anyStarted;

    JupiterListener(Class<?> testClass, List<Requested> segment, Events events) {
        this.testClass = testClass;
        this.segment = segment;
        this.events = events;
    }

    @Override
    public synchronized void testPlanExecutionStarted(TestPlan plan) {
        for (TestIdentifier root : plan.getRoots()) {
            remember(plan, root);
        }
        announce();
    }

    private void remember(TestPlan plan, TestIdentifier node) {
        nodes.put(node.getUniqueId(), node);
        for (TestIdentifier child : plan.getChildren(node)) {
            remember(plan, child);
        }
    }

    @Override
    public synchronized void dynamicTestRegistered(TestIdentifier node) {
        nodes.put(node.getUniqueId(), node);
    }

    @Override
    public synchronized void executionStarted(TestIdentifier node) {
        startNanos.put(node.getUniqueId(), System.nanoTime());
        if (!node.isTest()) {
            return;
        }
        String id = testId(node);
        Requested r = id == null ? null : covering(id);
        if (r == null) {
            return;
        }
        anyStarted = true;
        events.testStart(id, r.entry.index);
    }

    @Override
    public synchronized void executionFinished(TestIdentifier node, TestExecutionResult result) {
        Long start = startNanos.remove(node.getUniqueId());
        long timeMs = start == null ? 0 : (System.nanoTime() - start) / 1_000_000;
        Throwable t = result.getThrowable().orElse(null);
        Failure failure = t == null ? null : Failure.of(t, testClass);
        boolean success = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
        if (node.isTest()) {
            String id = testId(node);
            Requested r = id == null ? null : covering(id);
            if (r != null) {
                end(r, id, outcome(result), timeMs, failure);
            }
        } else if (Nodes.isMethodLevel(node)) {
            // A template or factory: its own failure (e.g. an argument source that throws) is reported for the
            // method; a factory that yields no tests passes.
            String id = Nodes.methodId(node);
            for (Requested r : segment) {
                if (!r.within(id)) {
                    continue;
                }
                if (!success && (r.entry.id.equals(id) || !ended.contains(r))) {
                    end(r, r.entry.id, outcome(result), timeMs, failure);
                } else if (success && r.entry.id.equals(id) && !ended.contains(r)) {
                    end(r, id, Outcome.PASS, timeMs, null);
                }
            }
        } else if (!success) {
            String className = Nodes.className(node);
            fixtureFailure(className != null ? className : testClass.getName(),
                    failure != null ? failure : Failure.reason("container failed: " + node.getDisplayName()),
                    result.getStatus() == TestExecutionResult.Status.ABORTED);
        }
        if (Nodes.isMethodLevel(node)) {
            announce();
        }
    }

    @Override
    public synchronized void executionSkipped(TestIdentifier node, String reason) {
        Failure why = Failure.reason(reason);
        String id = node.isTest() ? testId(node) : Nodes.isMethodLevel(node) ? Nodes.methodId(node) : null;
        for (Requested r : segment) {
            if (ended.contains(r)) {
                continue;
            }
            if (id == null) {
                // A skipped class container (@Disabled class) or engine: all its requested tests are skipped.
                end(r, r.entry.id, Outcome.SKIPPED, 0, why);
            } else if (r.covers(id)) {
                end(r, id, Outcome.SKIPPED, 0, why);
            } else if (r.within(id)) {
                end(r, r.entry.id, Outcome.SKIPPED, 0, why);
            }
        }
        if (id != null) {
            announce();
        }
    }

    /**
     * Handles a failed container: before any test started, it ends every requested test still without a
     * {@code test-end} ({@code error}, or {@code assumption} when aborted); after, it is a {@code class-error}.
     */
    synchronized void fixtureFailure(String className, Failure failure, boolean assumption) {
        List<Requested> pending = new ArrayList<>();
        for (Requested r : segment) {
            if (!ended.contains(r)) {
                pending.add(r);
            }
        }
        if (!anyStarted && !pending.isEmpty()) {
            for (Requested r : pending) {
                end(r, r.entry.id, assumption ? Outcome.ASSUMPTION : Outcome.ERROR, 0, failure);
            }
        } else if (!assumption) {
            events.classError(className, failure);
        }
    }

    /**
     * Names the first requested test without a {@code test-end} as the one that runs next (see
     * {@link Events#upcoming}): Jupiter builds a test's instance before it reports the test started. Called before
     * the execution and after each method (a template's or factory's after its last invocation).
     */
    private void announce() {
        for (Requested r : segment) {
            if (!ended.contains(r)) {
                events.upcoming(testClass, r.entry);
                return;
            }
        }
        events.upcoming(testClass, null);
    }

    /** Ends the requested tests that got no {@code test-end}: Jupiter did not run them. */
    synchronized void finish() {
        for (Requested r : segment) {
            if (!ended.contains(r)) {
                events.notFound(r.entry, "Jupiter did not run " + r.entry.id);
                ended.add(r);
            }
        }
    }

    private void end(Requested r, String id, String outcome, long timeMs, Failure failure) {
        ended.add(r);
        events.testEnd(id, r.entry.index, outcome, timeMs, failure);
    }

    private Requested covering(String id) {
        for (Requested r : segment) {
            if (r.covers(id)) {
                return r;
            }
        }
        return null;
    }

    /** The test id of a test node: its method-level ancestor's id plus the invocation suffix; null if none. */
    private String testId(TestIdentifier node) {
        TestIdentifier method = node;
        while (method != null && !Nodes.isMethodLevel(method)) {
            Optional<String> parent = method.getParentId();
            method = parent.isPresent() ? nodes.get(parent.get()) : null;
        }
        if (method == null) {
            return null;
        }
        return Nodes.methodId(method) + Nodes.invocationSuffix(
                UniqueId.parse(method.getUniqueId()), UniqueId.parse(node.getUniqueId()));
    }

    private static String outcome(TestExecutionResult result) {
        switch (result.getStatus()) {
            case SUCCESSFUL:
                return Outcome.PASS;
            case ABORTED:
                return Outcome.ASSUMPTION;
            default:
                Throwable t = result.getThrowable().orElse(null);
                return t == null ? Outcome.ERROR : Outcome.of(t);
        }
    }
}
