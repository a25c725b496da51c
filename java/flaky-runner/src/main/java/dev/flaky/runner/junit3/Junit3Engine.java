package dev.flaky.runner.junit3;

import dev.flaky.runner.Engine;
import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.ListedTest;
import dev.flaky.runner.OrderEntry;
import junit.framework.Test;
import junit.framework.TestResult;
import junit.framework.TestSuite;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link Engine} for a class path with JUnit 3.8 and no JUnit 4, which Surefire runs with its JUnit 3 provider: a
 * class with a static {@code suite()} runs the test that method returns (so tests of other classes that a suite
 * gathers run there as well as through their own class, when both match the includes); any other non-abstract
 * {@code junit.framework.Test} runs as {@code TestSuite} builds it from its {@code test...} methods.
 */
public final class Junit3Engine implements Engine {
    private static final String ENGINE = "junit3";

    @Override
    public boolean handles(Class<?> c) {
        try {
            return Test.class.isAssignableFrom(c) || suiteMethod(c) != null;
        } catch (LinkageError e) {
            return false;
        }
    }

    @Override
    public List<ListedTest> list(List<Class<?>> classes, Events events) {
        List<ListedTest> tests = new ArrayList<>();
        for (Class<?> c : classes) {
            if (c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
                continue;
            }
            if (suiteMethod(c) == null) {
                for (String method : LazyTest.methodNames(c)) {
                    tests.add(new ListedTest(c.getName(), method, ENGINE, c.getName(), false));
                }
                continue;
            }
            Test suite;
            try {
                suite = suite(c);
            } catch (Throwable t) {
                events.log("warn", "cannot list the tests of " + c.getName() + ": its suite() threw " + t);
                continue;
            }
            // A test that a suite gathers from another class runs through that class, whose own suite() (if
            // any) is its class fixture.
            for (Test leaf : Tree.leaves(suite)) {
                Class<?> leafClass = Tree.testClass(leaf);
                tests.add(new ListedTest(leafClass.getName(), Tree.method(leaf), ENGINE, c.getName(),
                        suiteMethod(leafClass) != null));
            }
        }
        return tests;
    }

    @Override
    public void run(Class<?> c, List<OrderEntry> entries, Events events) {
        if (suiteMethod(c) == null) {
            // One execution: each test is built when it runs, in the requested order, repeats included.
            Set<String> known = new HashSet<>(LazyTest.methodNames(c));
            List<OrderEntry> found = new ArrayList<>();
            TestSuite suite = new TestSuite(c.getName());
            for (OrderEntry e : entries) {
                if (known.contains(e.method)) {
                    found.add(e);
                    suite.addTest(new LazyTest(c, e.method));
                } else {
                    events.notFound(e, "JUnit 3 finds no test " + e.method + " in " + c.getName());
                }
            }
            if (!found.isEmpty()) {
                execute(c, found, suite, events);
            }
            return;
        }
        runSuite(c, entries, events);
    }

    /**
     * Runs requested tests of a class with a {@code suite()}, keeping its suites' and decorators' structure: in as
     * few executions of the suite, narrowed to the requested tests, as keep the requested order.
     */
    private static void runSuite(Class<?> c, List<OrderEntry> entries, Events events) {
        events.upcoming(c, entries.get(0));
        Test tree;
        try {
            tree = suite(c);
        } catch (Throwable t) {
            events.classStart(c.getName());
            Junit3Listener listener = new Junit3Listener(c, entries, events);
            listener.fixtureFailure(null, Failure.of(t, c));
            events.upcoming(c, null);
            events.classEnd(c.getName());
            return;
        }
        Set<String> known = new HashSet<>();
        for (Test leaf : Tree.leaves(tree)) {
            known.add(Tree.id(leaf));
        }
        List<OrderEntry> found = new ArrayList<>();
        for (OrderEntry e : entries) {
            if (known.contains(e.id)) {
                found.add(e);
            } else {
                events.notFound(e, "the suite() of " + c.getName() + " has no test " + e.id);
            }
        }
        boolean first = true;
        for (List<OrderEntry> segment : segments(tree, found)) {
            Test narrowed;
            if (first) {
                narrowed = Tree.prune(tree, positions(segment));
                first = false;
            } else {
                events.upcoming(c, segment.get(0));
                try {
                    narrowed = Tree.prune(suite(c), positions(segment));
                } catch (Throwable t) {
                    narrowed = null;
                }
            }
            if (narrowed == null) {
                for (OrderEntry e : segment) {
                    events.notFound(e, "the suite() of " + c.getName() + " no longer has " + e.id);
                }
                continue;
            }
            execute(c, segment, narrowed, events);
        }
    }

    private static void execute(Class<?> c, List<OrderEntry> segment, Test test, Events events) {
        Junit3Listener listener = new Junit3Listener(c, segment, events);
        TestResult result = new TestResult();
        result.addListener(listener);
        events.classStart(c.getName());
        listener.announce();
        try {
            test.run(result);
        } catch (RuntimeException | LinkageError e) {
            listener.fixtureFailure(null, Failure.of(e, c));
        }
        listener.finish();
        events.upcoming(c, null);
        events.classEnd(c.getName());
    }

    /**
     * Splits entries into segments that one narrowed execution of {@code tree} runs in exactly the requested
     * order: a segment ends before a repeated id or where the tree cannot put the next id in place.
     */
    static List<List<OrderEntry>> segments(Test tree, List<OrderEntry> entries) {
        return OrderEntry.segments(entries, candidate -> achievable(tree, candidate));
    }

    private static boolean achievable(Test tree, List<OrderEntry> candidate) {
        Map<String, Integer> position = new HashMap<>();
        List<String> wanted = new ArrayList<>();
        for (OrderEntry e : candidate) {
            if (position.put(e.id, position.size()) != null) {
                return false;
            }
            wanted.add(e.id);
        }
        return Tree.predict(tree, position).equals(wanted);
    }

    private static Map<String, Integer> positions(List<OrderEntry> segment) {
        Map<String, Integer> position = new HashMap<>();
        for (OrderEntry e : segment) {
            position.put(e.id, position.size());
        }
        return position;
    }

    /** The class's public static {@code suite()} returning a {@code junit.framework.Test}, or null. */
    private static Method suiteMethod(Class<?> c) {
        try {
            Method m = c.getMethod("suite");
            return Modifier.isStatic(m.getModifiers()) && Test.class.isAssignableFrom(m.getReturnType()) ? m : null;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Calls the class's {@code suite()}, throwing what it throws. */
    private static Test suite(Class<?> c) throws Throwable {
        try {
            return (Test) suiteMethod(c).invoke(null);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
