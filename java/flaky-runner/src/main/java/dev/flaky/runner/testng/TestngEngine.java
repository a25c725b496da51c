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
import java.util.List;
import java.util.Set;

/**
 * {@link Engine} for TestNG classes. An order's consecutive TestNG runs are one TestNG suite, so that
 * {@code @BeforeSuite}/{@code @AfterSuite} run once, as under Surefire's TestNG provider. Each run of a class becomes
 * a {@code <class>} whose {@code <include>}s are the requested methods in the requested order, in a
 * {@code preserve-order} {@code <test>}; a class that appears again (or a method requested twice in a row) starts a
 * new {@code <test>}, so its {@code @BeforeClass}/{@code @AfterClass} run around each part. A class whose methods
 * TestNG orders itself ({@code dependsOnMethods}, {@code priority}) runs whole, in TestNG's order, and only its
 * requested methods are reported. A data-provider test is one test: its invocations run together, and it fails if
 * any of them fails.
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
        List<ListedTest> tests = new ArrayList<>();
        for (Class<?> c : classes) {
            if (c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
                continue;
            }
            TestMethods methods;
            boolean fixtures;
            try {
                methods = TestMethods.of(c);
                fixtures = methods.classFixtures();
            } catch (LinkageError | RuntimeException e) {
                events.log("warn", "cannot list the TestNG tests of " + c.getName() + ": " + e);
                continue;
            }
            for (String name : methods.names()) {
                tests.add(new ListedTest(c.getName(), name, ENGINE, c.getName(), fixtures));
            }
        }
        return tests;
    }

    @Override
    public void run(Class<?> testClass, List<OrderEntry> entries, Events events) {
        runAll(Collections.singletonList(testClass), Collections.singletonList(entries), events);
    }

    @Override
    public void runAll(List<Class<?>> classes, List<List<OrderEntry>> runs, Events events) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < classes.size(); i++) {
            Class<?> c = classes.get(i);
            TestMethods methods;
            try {
                methods = TestMethods.of(c);
            } catch (LinkageError | RuntimeException e) {
                for (OrderEntry entry : runs.get(i)) {
                    events.notFound(entry, "cannot read the TestNG tests of " + c.getName() + ": " + e);
                }
                continue;
            }
            List<OrderEntry> found = new ArrayList<>();
            for (OrderEntry e : runs.get(i)) {
                if (methods.has(e.method)) {
                    found.add(e);
                } else {
                    events.notFound(e, "TestNG finds no test " + e.method + " in " + c.getName());
                }
            }
            for (List<OrderEntry> segment : OrderEntry.segments(found, TestngEngine::distinct)) {
                blocks.add(new Block(c, segment, methods.fixedOrder(), events));
            }
        }
        if (blocks.isEmpty()) {
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
    }

    /** One suite: a preserve-order {@code <test>} per run of blocks in which no class repeats. */
    private static XmlSuite suite(List<Block> blocks) {
        XmlSuite suite = new XmlSuite();
        suite.setName("flaky");
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
                for (OrderEntry e : b.entries) {
                    includes.add(new XmlInclude(e.method, includes.size()));
                }
                xc.setIncludedMethods(includes);
            }
            classes.add(xc);
            b.testName = test.getName();
        }
        test.setXmlClasses(classes);
        return suite;
    }

    private static boolean distinct(List<OrderEntry> candidate) {
        Set<String> ids = new HashSet<>();
        for (OrderEntry e : candidate) {
            if (!ids.add(e.id)) {
                return false;
            }
        }
        return true;
    }
}
