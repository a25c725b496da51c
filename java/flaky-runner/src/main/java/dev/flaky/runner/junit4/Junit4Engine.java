package dev.flaky.runner.junit4;

import dev.flaky.runner.Engine;
import dev.flaky.runner.Events;
import dev.flaky.runner.Failure;
import dev.flaky.runner.ListedTest;
import dev.flaky.runner.OrderEntry;
import junit.framework.TestCase;
import junit.framework.TestSuite;
import org.junit.FixMethodOrder;
import org.junit.Ignore;
import org.junit.internal.runners.JUnit38ClassRunner;
import org.junit.runner.Description;
import org.junit.runner.Request;
import org.junit.runner.RunWith;
import org.junit.runner.Runner;
import org.junit.runner.notification.RunNotifier;
import org.junit.runners.ParentRunner;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@link Engine} for JUnit 4 classes ({@code @RunWith}, {@code @org.junit.Test} methods) and JUnit 3 classes. */
public final class Junit4Engine implements Engine {
    private static final String ERROR_RUNNER = "org.junit.internal.runners.ErrorReportingRunner";
    /** JUnit 4.13 added {@code ParentRunner.shouldNotReorder}: sorting skips {@code @FixMethodOrder} classes. */
    static final boolean SORTER_RESPECTS_FIX_METHOD_ORDER = declares(ParentRunner.class, "shouldNotReorder");

    @Override
    public boolean handles(Class<?> c) {
        try {
            if (junit.framework.Test.class.isAssignableFrom(c) || c.isAnnotationPresent(RunWith.class)) {
                return true;
            }
            for (Method m : c.getMethods()) {
                if (m.isAnnotationPresent(org.junit.Test.class)) {
                    return true;
                }
                if ("suite".equals(m.getName()) && m.getParameterCount() == 0 && Modifier.isStatic(m.getModifiers())
                        && junit.framework.Test.class.isAssignableFrom(m.getReturnType())) {
                    return true;
                }
            }
            return false;
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
            String engine = junit.framework.Test.class.isAssignableFrom(c) ? "junit3" : "junit4";
            Runner runner = new NoIgnoreBuilder().safeRunnerForClass(c);
            String none = NoTests.of(c, runner);
            if (none != null) {
                // Not a test (JUnit's placeholder says there is nothing to run): nothing to analyse or count.
                events.log("info", c.getName() + " has no tests (" + none + "): not listed");
                continue;
            }
            boolean fixtures = ClassFixtures.of(c, runner);
            for (Description leaf : leaves(runner.getDescription())) {
                tests.add(new ListedTest(leaf.getClassName(), leaf.getMethodName(), engine, c.getName(), fixtures));
            }
        }
        return tests;
    }

    @Override
    public void run(Class<?> c, List<OrderEntry> entries, Events events) {
        // JUnit's own runner for a JUnit 3 class builds every test's instance now, after the tests before this
        // class and before what is due at each test's start.
        boolean plainTestCase = isPlainTestCase(c);
        Runner analysis = plainTestCase
                ? new JUnit38ClassRunner(Junit3Test.suite(c)) : new NoIgnoreBuilder().safeRunnerForClass(c);
        Description tree = analysis.getDescription();
        if (isErrorRunner(analysis)) {
            // The class is broken (initializationError): every requested method gets the class's error.
            execute(c, entries, tree, Request.aClass(c), events);
            return;
        }
        Set<String> known = new HashSet<>();
        for (Description leaf : leaves(tree)) {
            known.add(Junit4Listener.id(leaf));
        }
        List<OrderEntry> found = new ArrayList<>();
        for (OrderEntry e : entries) {
            if (known.contains(e.id)) {
                found.add(e);
            } else {
                events.notFound(e, "JUnit 4 finds no test " + e.method + " in " + c.getName());
            }
        }
        if (found.isEmpty()) {
            return;
        }
        List<List<OrderEntry>> scopes = scopes(tree, found);
        Runner ordered = plainTestCase ? null : OrderedChildren.runner(c, scopes.get(0));
        if (ordered != null) {
            execute(c, scopes.get(0), tree, Request.runner(ordered), events);
            for (List<OrderEntry> scope : scopes.subList(1, scopes.size())) {
                execute(c, scope, tree, Request.runner(OrderedChildren.runner(c, scope)), events);
            }
            return;
        }
        for (List<OrderEntry> segment : segments(tree, found)) {
            execute(c, segment, tree, request(c, segment), events);
        }
    }

    /** Reports whether {@code runner} is JUnit 4's runner for a class it cannot run (an initializationError). */
    static boolean isErrorRunner(Runner runner) {
        return ERROR_RUNNER.equals(runner.getClass().getName());
    }

    /**
     * Splits found entries of a class run through {@link OrderedChildren} into class-fixture scopes: one, unless the
     * class has {@code @FixMethodOrder} on a JUnit whose sorter respects it, where a scope ends before an entry that
     * the fixed order puts earlier than the one before it (repeats stay in the scope).
     */
    static List<List<OrderEntry>> scopes(Description tree, List<OrderEntry> entries) {
        Map<String, Integer> fixed = new HashMap<>();
        if (SORTER_RESPECTS_FIX_METHOD_ORDER && tree.getAnnotation(FixMethodOrder.class) != null) {
            for (Description leaf : leaves(tree)) {
                fixed.putIfAbsent(Junit4Listener.id(leaf), fixed.size());
            }
        }
        List<List<OrderEntry>> scopes = new ArrayList<>();
        List<OrderEntry> current = new ArrayList<>();
        for (OrderEntry e : entries) {
            if (!current.isEmpty() && !fixed.isEmpty()
                    && fixed.get(e.id) < fixed.get(current.get(current.size() - 1).id)) {
                scopes.add(current);
                current = new ArrayList<>();
            }
            current.add(e);
        }
        scopes.add(current);
        return scopes;
    }

    /**
     * A request for the segment's tests in its order: JUnit 4's default request with a filter and a sorter, or for
     * a plain JUnit 3 {@code TestCase} (whose runner cannot sort) a suite built in the requested order, whose tests
     * are instantiated when they run.
     */
    private static Request request(Class<?> c, List<OrderEntry> segment) {
        if (isPlainTestCase(c)) {
            TestSuite suite = new TestSuite(c.getName());
            for (OrderEntry e : segment) {
                suite.addTest(new Junit3Test(c, e.method));
            }
            return Request.runner(new JUnit38ClassRunner(suite));
        }
        Map<String, Integer> position = positions(segment);
        return Request.aClass(c)
                .filterWith(new RequestedFilter(position.keySet()))
                .sortWith(new RequestedOrder(position));
    }

    /** A {@code TestCase} that JUnit 4's default builder runs as a JUnit 3 class (no @Ignore, @RunWith, suite()). */
    private static boolean isPlainTestCase(Class<?> c) {
        if (!TestCase.class.isAssignableFrom(c) || c.isAnnotationPresent(Ignore.class)
                || c.isAnnotationPresent(RunWith.class)) {
            return false;
        }
        try {
            c.getMethod("suite");
            return false;
        } catch (NoSuchMethodException e) {
            return true;
        }
    }

    private static void execute(Class<?> c, List<OrderEntry> segment, Description tree, Request request,
                                Events events) {
        Junit4Listener listener = new Junit4Listener(c, segment, tree, events);
        RunNotifier notifier = new RunNotifier();
        notifier.addListener(listener);
        events.classStart(c.getName());
        listener.announce();
        try {
            request.getRunner().run(notifier);
        } catch (RuntimeException | LinkageError e) {
            listener.fixtureFailure(tree, Failure.of(e, c), false);
        }
        listener.finish();
        events.upcoming(c, null);
        events.classEnd(c.getName());
    }

    /** Returns the test leaves of a description tree in its order. */
    static List<Description> leaves(Description d) {
        List<Description> leaves = new ArrayList<>();
        collectLeaves(d, leaves);
        return leaves;
    }

    private static void collectLeaves(Description d, List<Description> leaves) {
        if (d.isTest()) {
            if (d.getMethodName() != null) {
                leaves.add(d);
            }
            return;
        }
        for (Description child : d.getChildren()) {
            collectLeaves(child, leaves);
        }
    }

    /**
     * For classes {@link OrderedChildren} cannot run (JUnit 3, {@code Parameterized}, other runners), splits found
     * entries into segments that one filtered, sorted request runs in exactly the requested order:
     * a segment ends before a repeated id, or where the description tree (e.g. the parameter sets of
     * {@code Parameterized}, or a class with {@code @FixMethodOrder}) cannot put the next id in place.
     */
    static List<List<OrderEntry>> segments(Description tree, List<OrderEntry> entries) {
        return OrderEntry.segments(entries, candidate -> achievable(tree, candidate));
    }

    private static boolean achievable(Description tree, List<OrderEntry> candidate) {
        Map<String, Integer> position = new HashMap<>();
        for (OrderEntry e : candidate) {
            if (position.put(e.id, position.size()) != null) {
                return false;
            }
        }
        List<String> predicted = new ArrayList<>();
        predict(tree, new RequestedOrder(position), position, false, predicted);
        List<String> wanted = new ArrayList<>();
        for (OrderEntry e : candidate) {
            wanted.add(e.id);
        }
        return predicted.equals(wanted);
    }

    /**
     * Appends the requested leaves of {@code d} in the order a sorter with {@code order} runs them. JUnit 4.13 and
     * later leave a runner whose class has {@code @FixMethodOrder} (and everything below it) unsorted, so there the
     * order is the declared one and a differing requested order needs several segments.
     */
    private static void predict(Description d, RequestedOrder order, Map<String, Integer> position, boolean fixed,
                                List<String> out) {
        if (d.isTest()) {
            if (d.getMethodName() != null && position.containsKey(Junit4Listener.id(d))) {
                out.add(Junit4Listener.id(d));
            }
            return;
        }
        boolean keepsOrder = fixed || SORTER_RESPECTS_FIX_METHOD_ORDER && d.getAnnotation(FixMethodOrder.class) != null;
        List<Description> children = new ArrayList<>(d.getChildren());
        if (!keepsOrder) {
            children.sort(order);
        }
        for (Description child : children) {
            predict(child, order, position, keepsOrder, out);
        }
    }

    private static boolean declares(Class<?> c, String method) {
        try {
            c.getDeclaredMethod(method);
            return true;
        } catch (NoSuchMethodException | LinkageError e) {
            return false;
        }
    }

    private static Map<String, Integer> positions(List<OrderEntry> segment) {
        Map<String, Integer> position = new HashMap<>();
        for (OrderEntry e : segment) {
            position.put(e.id, position.size());
        }
        return position;
    }
}
