package dev.flaky.runner;

import dev.flaky.runner.testng.TestngEngine;
import org.junit.Before;
import org.testng.Assert;
import org.testng.annotations.BeforeClass;
import org.testng.annotations.BeforeGroups;
import org.testng.annotations.BeforeSuite;
import org.testng.annotations.BeforeTest;
import org.testng.annotations.DataProvider;
import org.testng.annotations.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** The TestNG engine, driven directly with TestNG 6.14.3 (the API it is compiled against). */
public class TestngEngineTest {
    /** What the classes below did, in order. */
    static final List<String> ran = new ArrayList<>();
    /** Whether {@link Fixtured}'s {@code @BeforeClass} fails. */
    static boolean setUpFails;

    /** Plain test methods, and one that fails. */
    public static class Plain {
        @BeforeSuite
        public void suite() {
            ran.add("suite");
        }

        @Test
        public void a() {
            ran.add("Plain.a");
        }

        @Test
        public void b() {
            ran.add("Plain.b");
            Assert.fail("b fails");
        }

        @Test(enabled = false)
        public void disabled() {
        }
    }

    /** A class-level {@code @Test} and a {@code @BeforeClass}. */
    @Test
    public static class Fixtured {
        @BeforeClass
        public void open() {
            if (setUpFails) {
                throw new IllegalStateException("setup failed");
            }
            ran.add("open");
        }

        public void one() {
            ran.add("Fixtured.one");
        }

        public void two() {
            ran.add("Fixtured.two");
        }
    }

    /** Methods TestNG orders itself. */
    public static class Chain {
        @Test(dependsOnMethods = "first")
        public void second() {
            ran.add("Chain.second");
        }

        @Test
        public void first() {
            ran.add("Chain.first");
        }
    }

    /** A data provider whose second invocation fails. */
    public static class Provided {
        @DataProvider
        public Object[][] values() {
            return new Object[][] {{1}, {2}, {3}};
        }

        @Test(dataProvider = "values")
        public void positiveOdd(int n) {
            ran.add("Provided." + n);
            Assert.assertEquals(n % 2, 1);
        }
    }

    /** A {@code @BeforeTest} and a {@code @BeforeGroups}, its only fixtures. */
    public static class Grouped {
        @BeforeTest
        public void test() {
        }

        @BeforeGroups("g")
        public void group() {
        }

        @Test(groups = "g")
        public void grouped() {
        }
    }

    /** A data provider that fails, and a test that runs several times without one. */
    public static class Broken {
        @DataProvider
        public Object[][] none() {
            throw new IllegalStateException("no data");
        }

        @Test(dataProvider = "none")
        public void provided(int n) {
        }

        @Test(invocationCount = 2)
        public void twice() {
            ran.add("Broken.twice");
        }
    }

    private final TestngEngine engine = new TestngEngine();
    private final List<String> events = new ArrayList<>();
    private final Events sink = new Events(null, new Log());

    /** Records class starts and ends, test ends and class errors in {@link #events}. */
    private class Log implements RunnerListener {
        @Override
        public void classStart(String className) {
            events.add("class-start " + className.substring(className.lastIndexOf('$') + 1));
        }

        @Override
        public void classEnd(String className) {
            events.add("class-end");
        }

        @Override
        public void testEnd(String test, int index, String outcome, long timeMs, Failure f) {
            events.add(test.substring(test.lastIndexOf('$') + 1) + " " + index + " " + outcome);
        }

        @Override
        public void classError(String className, Failure failure) {
            events.add("class-error " + failure.message());
        }
    }

    @Before
    public void reset() {
        ran.clear();
        setUpFails = false;
    }

    private static OrderEntry entry(int index, Class<?> c, String method) {
        return new OrderEntry(index, c.getName() + "#" + method);
    }

    @org.junit.Test
    public void handlesClassesWithTestNGTests() {
        assertTrue(engine.handles(Plain.class));
        assertTrue(engine.handles(Fixtured.class));
        assertFalse(engine.handles(String.class));
    }

    private static List<String> listed(List<ListedTest> tests) {
        List<String> listed = new ArrayList<>();
        for (ListedTest t : tests) {
            listed.add(t.id.substring(t.id.lastIndexOf('$') + 1) + " " + t.engine + (t.classFixtures ? " fixtures" : "")
                    + (t.dynamic ? " dynamic" : ""));
        }
        return listed;
    }

    @org.junit.Test
    public void listsEnabledTestsOnceWithTheirClassFixturesAndDataProviderInvocations() {
        List<Class<?>> classes = Arrays.asList(Plain.class, Fixtured.class, Chain.class, Provided.class, Grouped.class,
                Broken.class);
        assertEquals(Arrays.asList("Plain#a testng", "Plain#b testng", "Fixtured#one testng fixtures",
                "Fixtured#two testng fixtures", "Chain#first testng fixtures", "Chain#second testng fixtures",
                "Provided#positiveOdd[1](1) testng", "Provided#positiveOdd[2](2) testng",
                "Provided#positiveOdd[3](3) testng", "Grouped#grouped testng fixtures",
                "Broken#provided testng dynamic", "Broken#twice testng"), listed(engine.list(classes, sink)));
        assertTrue("the dry run calls no test method", ran.isEmpty());
        assertEquals(null, System.getProperty("testng.mode.dryrun"));
    }

    @org.junit.Test
    public void embeddedListsDataProviderTestsOnce() {
        Events embedded = Events.embedded(RunnerListener.NONE);
        assertEquals(Arrays.asList("Provided#positiveOdd testng dynamic"),
                listed(engine.list(Arrays.<Class<?>>asList(Provided.class), embedded)));
    }

    @org.junit.Test
    public void runsClassesInOneSuiteInTheRequestedOrder() {
        engine.runAll(Arrays.asList(Plain.class, Fixtured.class, Chain.class, Plain.class),
                Arrays.asList(
                        Arrays.asList(entry(0, Plain.class, "b"), entry(1, Plain.class, "a"),
                                entry(2, Plain.class, "missing")),
                        Arrays.asList(entry(3, Fixtured.class, "two"), entry(4, Fixtured.class, "one")),
                        Arrays.asList(entry(5, Chain.class, "second"), entry(6, Chain.class, "first")),
                        Arrays.asList(entry(7, Plain.class, "a"))),
                sink);
        assertEquals(Arrays.asList("suite", "Plain.b", "Plain.a", "open", "Fixtured.two", "Fixtured.one",
                "Chain.first", "Chain.second", "Plain.a"), ran);
        assertEquals(Arrays.asList("Plain#missing 2 error",
                "class-start Plain", "Plain#b 0 fail", "Plain#a 1 pass", "class-end",
                "class-start Fixtured", "Fixtured#two 3 pass", "Fixtured#one 4 pass", "class-end",
                "class-start Chain", "Chain#first 6 pass", "Chain#second 5 pass", "class-end",
                "class-start Plain", "Plain#a 7 pass", "class-end"), events);
    }

    @org.junit.Test
    public void reportsEntriesItCannotRunInTheOrdersOrder() {
        engine.runAll(Arrays.asList(Plain.class, Fixtured.class, Plain.class),
                Arrays.asList(Arrays.asList(entry(0, Plain.class, "a")),
                        Arrays.asList(entry(1, Fixtured.class, "missing")),
                        Arrays.asList(entry(2, Plain.class, "b"), entry(3, Plain.class, "gone"))),
                sink);
        assertEquals(Arrays.asList("class-start Plain", "Plain#a 0 pass", "class-end",
                "Fixtured#missing 1 error", "Plain#gone 3 error", "class-start Plain", "Plain#b 2 fail", "class-end"),
                events);
        engine.runAll(Arrays.asList(Plain.class, Fixtured.class), Arrays.asList(
                Arrays.asList(entry(0, Plain.class, "a")), Arrays.asList(entry(1, Fixtured.class, "missing"))), sink);
        assertEquals("after the suite when no class follows", "Fixtured#missing 1 error",
                events.get(events.size() - 1));
    }

    /** What the exit after a handoff throws in these tests, instead of ending the JVM. */
    private static final class Exited extends Error {
        Exited() {
            super("exited");
        }
    }

    @org.junit.Test
    public void stopsInTheSuiteBeforeAHandedOffClassRun() {
        List<OrderEntry> order = Arrays.asList(entry(0, Plain.class, "a"), entry(1, Fixtured.class, "missing"),
                entry(2, Plain.class, "b"));
        Events stopping = new Events(null, new Log() {
            @Override
            public void runEnd(int count) {
                events.add("run-end " + count);
            }
        });
        Handoff handoff = stopping.acceptHandoffs(order, () -> {
            throw new Exited();
        });
        assertEquals(2, handoff.handoff(2));
        try {
            engine.runAll(Arrays.asList(Plain.class, Fixtured.class, Plain.class), Arrays.asList(
                    order.subList(0, 1), order.subList(1, 2), order.subList(2, 3)), stopping);
            fail("the runner did not stop");
        } catch (Exited expected) {
            // The JVM would exit with status 0 here.
        }
        assertEquals(Arrays.asList("class-start Plain", "Plain#a 0 pass", "class-end", "Fixtured#missing 1 error",
                "run-end 2"), events);
        assertEquals(Arrays.asList("suite", "Plain.a"), ran);
    }

    @org.junit.Test
    public void aFailedBeforeClassErrsTheClassTests() {
        setUpFails = true;
        engine.run(Fixtured.class, Arrays.asList(entry(0, Fixtured.class, "one"), entry(1, Fixtured.class, "two")),
                sink);
        assertEquals(Arrays.asList("class-start Fixtured", "Fixtured#one 0 error", "Fixtured#two 1 error",
                "class-end"), events);
    }

    @org.junit.Test
    public void aDataProviderMethodReportsEachInvocation() {
        engine.run(Provided.class, Arrays.asList(entry(0, Provided.class, "positiveOdd")), sink);
        assertEquals(Arrays.asList("Provided.1", "Provided.2", "Provided.3"), ran);
        assertEquals(Arrays.asList("class-start Provided", "Provided#positiveOdd[1](1) 0 pass",
                "Provided#positiveOdd[2](2) 0 fail", "Provided#positiveOdd[3](3) 0 pass", "class-end"), events);
    }

    @org.junit.Test
    public void runsInvocationsAloneInTheRequestedOrder() {
        engine.runAll(Arrays.asList(Provided.class, Plain.class, Provided.class),
                Arrays.asList(
                        Arrays.asList(entry(0, Provided.class, "positiveOdd[3](3)"),
                                entry(1, Provided.class, "positiveOdd[x](2)"),
                                entry(2, Provided.class, "positiveOdd[9](9)")),
                        Arrays.asList(entry(3, Plain.class, "a")),
                        Arrays.asList(entry(4, Provided.class, "positiveOdd[1](1)"),
                                entry(5, Provided.class, "positiveOdd[3](3)"))),
                sink);
        assertEquals(Arrays.asList("suite", "Provided.3", "Provided.2", "Plain.a", "Provided.1", "Provided.3"), ran);
        assertEquals(Arrays.asList("class-start Provided", "Provided#positiveOdd[3](3) 0 pass", "class-end",
                "class-start Provided", "Provided#positiveOdd[x](2) 1 fail", "Provided#positiveOdd[9](9) 2 error",
                "class-end", "class-start Plain", "Plain#a 3 pass", "class-end",
                "class-start Provided", "Provided#positiveOdd[1](1) 4 pass", "Provided#positiveOdd[3](3) 5 pass",
                "class-end"), events);
    }

    @org.junit.Test
    public void anInvocationCountTestIsOneTest() {
        engine.run(Broken.class, Arrays.asList(entry(0, Broken.class, "twice"), entry(1, Broken.class, "twice[](1)")),
                sink);
        assertEquals(Arrays.asList("Broken.twice", "Broken.twice"), ran);
        assertEquals(Arrays.asList("Broken#twice[](1) 1 error", "class-start Broken", "Broken#twice 0 pass",
                "class-end"), events);
    }
}
