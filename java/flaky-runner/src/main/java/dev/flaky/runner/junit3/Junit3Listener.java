package dev.flaky.runner.junit3;

import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.Outcome;
import dev.flaky.runner.RequestedTests;
import junit.framework.AssertionFailedError;
import junit.framework.Test;
import junit.framework.TestListener;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Turns JUnit 3 {@code TestResult} notifications for one execution of a class's requested tests into events. An
 * error reported for a node that is not a running test (a {@code TestSetup} whose {@code setUp} or
 * {@code tearDown} threw) ends the requested tests under it when none of them started, and is a
 * {@code class-error} otherwise. Tests that were not requested (a {@code TestSuite} warning) are ignored.
 */
final class Junit3Listener implements TestListener {
    private final Class<?> testClass;
    private final RequestedTests<Test> tests;
    /** Tests that started but were not requested. */
    private final Set<Test> unrequested = Collections.newSetFromMap(new IdentityHashMap<>());

    Junit3Listener(Class<?> testClass, List<OrderEntry> requested, Events events) {
        this.testClass = testClass;
        this.tests = new RequestedTests<>(testClass, requested, events, "JUnit 3", true);
    }

    @Override
    public synchronized void startTest(Test test) {
        if (!tests.start(test, Tree.id(test))) {
            unrequested.add(test);
        }
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
        tests.finished(test);
    }

    private void record(Test test, String outcome, Failure failure) {
        if (!tests.record(test, outcome, failure) && !unrequested.contains(test)) {
            fixtureFailure(test, failure);
        }
    }

    /**
     * Handles a failure of {@code node} (null: the whole execution) outside a running test: before any requested
     * test under it started it ends those tests with {@code error}; otherwise it is a {@code class-error}.
     */
    synchronized void fixtureFailure(Test node, Failure failure) {
        List<OrderEntry> under = tests.all();
        if (node != null) {
            Set<String> ids = new HashSet<>();
            for (Test leaf : Tree.leaves(node)) {
                ids.add(Tree.id(leaf));
            }
            under = new ArrayList<>();
            for (OrderEntry e : tests.all()) {
                if (ids.contains(e.id)) {
                    under.add(e);
                }
            }
        }
        tests.fixtureFailure(under, failure, false);
    }

    /** Names the next requested entry that has neither started nor ended as the one that runs next. */
    synchronized void announce() {
        tests.announce();
    }

    /** Ends the requested tests that got no {@code test-end}, which JUnit 3 did not run. */
    synchronized void finish() {
        tests.finish();
    }
}
