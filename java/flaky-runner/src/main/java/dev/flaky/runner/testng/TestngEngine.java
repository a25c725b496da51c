package dev.flaky.runner.testng;

import dev.flaky.runner.Engine;
import dev.flaky.runner.Events;
import dev.flaky.runner.ListedTest;
import dev.flaky.runner.OrderEntry;
import org.testng.ITestNGListener;
import org.testng.TestNG;
import org.testng.xml.XmlClass;
import org.testng.xml.XmlInclude;
import org.testng.xml.XmlSuite;
import org.testng.xml.XmlTest;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link Engine} for TestNG classes. An order's consecutive TestNG runs are one TestNG suite, so that
 * {@code @BeforeSuite}/{@code @AfterSuite} run once, as under Surefire's TestNG provider. Each run of a class becomes
 * a {@code <class>} whose {@code <include>}s are the requested methods in the requested order, in a
 * {@code preserve-order} {@code <test>}; a class that appears again (or a method requested twice in a row) starts a
 * new {@code <test>}, so its {@code @BeforeClass}/{@code @AfterClass} run around each part. A class whose methods
 * TestNG orders itself ({@code dependsOnMethods}, {@code priority}) runs whole, in TestNG's order, and only its
 * requested methods are reported. Each invocation of a data-provider method is a test of its own,
 * {@code C#m[params](n)} as Surefire's TestNG reporter names it: listed through a TestNG dry run, and run alone through
 * its {@code <include>}'s invocation numbers. A method with an {@code invocationCount} is one test: its invocations
 * run together, and it fails if any of them fails.
 */
public final class TestngEngine implements Engine {
    private static final String ENGINE = "testng";

    @Override
    public boolean handles(Class<?> c) {
        try {
            return !TestMethods.of(c).names().isEmpty();
        } catch (LinkageError | RuntimeException e) {
            return false;
        }
    }

    @Override
    public List<ListedTest> list(List<Class<?>> classes, Events events) {
        Map<Class<?>, TestMethods> found = new LinkedHashMap<>();
        List<Class<?>> provided = new ArrayList<>();
        for (Class<?> c : classes) {
            if (c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
                continue;
            }
            try {
                TestMethods methods = TestMethods.of(c);
                found.put(c, methods);
                if (methods.anyInvocations()) {
                    provided.add(c);
                }
            } catch (LinkageError | RuntimeException e) {
                events.log("warn", "cannot list the TestNG tests of " + c.getName() + ": " + e);
            }
        }
        // Embedded in a Surefire fork, listing must not run the project's code: there a data-provider method is
        // listed once, and running it reports each invocation.
        Map<String, List<String>> invocations = events.embedded() || provided.isEmpty()
                ? Collections.<String, List<String>>emptyMap() : DryRun.invocations(provided, events);
        List<ListedTest> tests = new ArrayList<>();
        for (Map.Entry<Class<?>, TestMethods> e : found.entrySet()) {
            Class<?> c = e.getKey();
            TestMethods methods = e.getValue();
            boolean fixtures;
            try {
                fixtures = methods.classFixtures();
            } catch (LinkageError | RuntimeException x) {
                events.log("warn", "cannot list the TestNG tests of " + c.getName() + ": " + x);
                continue;
            }
            for (String name : methods.names()) {
                List<String> members = methods.invocations(name) ? invocations.get(c.getName() + "#" + name) : null;
                if (members == null || members.isEmpty()) {
                    tests.add(new ListedTest(c.getName(), name, ENGINE, c.getName(), fixtures,
                            methods.invocations(name)));
                    continue;
                }
                for (String member : members) {
                    tests.add(new ListedTest(c.getName(), member, ENGINE, c.getName(), fixtures));
                }
            }
        }
        return tests;
    }

    @Override
    public void run(Class<?> testClass, List<OrderEntry> entries, Events events) {
        runAll(Collections.singletonList(testClass), Collections.singletonList(entries), events);
    }

    /**
     * {@inheritDoc} The entries TestNG cannot run are reported in the order's order: right before the
     * {@code class-start} of the next block, or after the suite when no block follows, so that the events of a class
     * run never come before those of an earlier one (a class run begins with its first event, see
     * {@link Events#beginRun}).
     */
    @Override
    public void runAll(List<Class<?>> classes, List<List<OrderEntry>> runs, Events events) {
        List<Block> blocks = new ArrayList<>();
        // The reports of entries TestNG cannot run that no block has taken yet.
        List<Runnable> pending = new ArrayList<>();
        for (int i = 0; i < classes.size(); i++) {
            Class<?> c = classes.get(i);
            TestMethods methods;
            try {
                methods = TestMethods.of(c);
            } catch (LinkageError | RuntimeException e) {
                for (OrderEntry entry : runs.get(i)) {
                    pending.add(() -> events.notFound(entry, "cannot read the TestNG tests of " + c.getName()
                            + ": " + e));
                }
                continue;
            }
            List<OrderEntry> found = new ArrayList<>();
            for (OrderEntry e : runs.get(i)) {
                Invocation inv = Invocation.parse(e.method);
                if (!methods.has(inv.method)) {
                    pending.add(() -> events.notFound(e, "TestNG finds no test " + e.method + " in " + c.getName()));
                } else if (inv.isInvocation() && !methods.invocations(inv.method)) {
                    pending.add(() -> events.notFound(e, "TestNG's " + c.getName() + "#" + inv.method
                            + " has no invocations of its own (no data provider, or an invocationCount)"));
                } else {
                    found.add(e);
                }
            }
            boolean fixedOrder = methods.fixedOrder();
            for (List<OrderEntry> segment : OrderEntry.segments(found, s -> Block.achievable(s, fixedOrder))) {
                Block b = new Block(c, segment, methods, events);
                b.before.addAll(pending);
                pending.clear();
                blocks.add(b);
            }
        }
        if (!runs.isEmpty()) {
            // Before the suite's own fixtures (@BeforeSuite) run.
            events.beginRun(runs.get(0));
        }
        if (blocks.isEmpty()) {
            report(pending);
            return;
        }
        TestngListener listener = new TestngListener(blocks);
        TestNG testng = new TestNG(false);
        testng.setUseDefaultListeners(false);
        testng.setVerbose(0);
        testng.setXmlSuites(Collections.singletonList(suite(blocks)));
        testng.addListener((ITestNGListener) listener);
        try {
            testng.run();
        } catch (RuntimeException e) {
            // TestNG refuses the suite (a cyclic dependsOnMethods, a missing data provider): the tests it did not
            // run are reported as such.
            events.log("error", "TestNG failed to run the suite: " + e);
        } finally {
            listener.finish();
        }
        report(pending);
    }

    /** Sends the deferred reports in order. */
    private static void report(List<Runnable> reports) {
        for (Runnable r : reports) {
            r.run();
        }
    }

    /** One suite: a preserve-order {@code <test>} per run of blocks in which no class repeats. */
    private static XmlSuite suite(List<Block> blocks) {
        XmlSuite suite = new XmlSuite();
        suite.setName("flaky");
        // One invocation at a time, also of a parallel data provider: each is a test with its own result.
        suite.setDataProviderThreadCount(1);
        XmlTest test = null;
        List<XmlClass> classes = new ArrayList<>();
        Set<Class<?>> inTest = new HashSet<>();
        for (Block b : blocks) {
            if (test == null || !inTest.add(b.testClass)) {
                if (test != null) {
                    test.setXmlClasses(classes);
                }
                test = new XmlTest(suite);
                test.setName("flaky-" + suite.getTests().size());
                test.setPreserveOrder(true);
                classes = new ArrayList<>();
                inTest.clear();
                inTest.add(b.testClass);
            }
            XmlClass xc = new XmlClass(b.testClass.getName(), classes.size(), false);
            xc.setClass(b.testClass);
            if (!b.fixedOrder) {
                List<XmlInclude> includes = new ArrayList<>();
                for (Map.Entry<String, List<Integer>> m : b.includes().entrySet()) {
                    includes.add(m.getValue() == null ? new XmlInclude(m.getKey(), includes.size())
                            : new XmlInclude(m.getKey(), m.getValue(), includes.size()));
                }
                xc.setIncludedMethods(includes);
            }
            classes.add(xc);
            b.testName = test.getName();
        }
        test.setXmlClasses(classes);
        return suite;
    }
}
