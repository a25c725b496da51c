package dev.flaky.runner;

import dev.flaky.runner.junit3.Junit3Engine;
import junit.extensions.TestSetup;
import junit.framework.TestCase;
import junit.framework.TestSuite;
import org.junit.Before;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/** The JUnit 3 engine, which uses only {@code junit.framework}; driven directly, as JUnit 4 is on this class path. */
public class Junit3EngineTest {
    /** What the classes below did, in order. */
    static final List<String> ran = new ArrayList<>();
    /** Whether {@link Fixtured}'s suite setup fails. */
    static boolean setUpFails;

    /** A plain TestCase. */
    public static class Plain extends TestCase {
        public void testA() {
            ran.add("Plain.a");
        }

        public void testB() {
            ran.add("Plain.b");
            fail("b fails");
        }
    }

    /** A class whose own suite() wraps its tests in a TestSetup (a class fixture). */
    public static class Fixtured extends TestCase {
        public Fixtured(String name) {
            super(name);
        }

        public static junit.framework.Test suite() {
            return new TestSetup(new TestSuite(Fixtured.class)) {
                @Override
                protected void setUp() {
                    if (setUpFails) {
                        throw new IllegalStateException("setup failed");
                    }
                    ran.add("setUp");
                }

                @Override
                protected void tearDown() {
                    ran.add("tearDown");
                }
            };
        }

        public void testA() {
            ran.add("Fixtured.a");
        }

        public void testB() {
            ran.add("Fixtured.b");
        }
    }

    /** A suite runner class that gathers another class's tests. */
    public static class Gatherer {
        public static junit.framework.Test suite() {
            TestSuite suite = new TestSuite("gathered");
            suite.addTestSuite(Plain.class);
            return suite;
        }
    }

    private final Junit3Engine engine = new Junit3Engine();
    private final List<String> events = new ArrayList<>();
    private final Events sink = new Events(null, new RunnerListener() {
        @Override
        public void classStart(String className) {
            events.add("class-start");
        }

        @Override
        public void testStart(String test, int index) {
            events.add("start " + test.substring(test.lastIndexOf('$') + 1) + " " + index);
        }

        @Override
        public void testEnd(String test, int index, String outcome, long timeMs, Failure f) {
            events.add("end " + test.substring(test.lastIndexOf('$') + 1) + " " + index + " " + outcome);
        }

        @Override
        public void classError(String className, Failure failure) {
            events.add("class-error " + failure.message());
        }
    });

    @Before
    public void reset() {
        ran.clear();
        setUpFails = false;
    }

    private static List<OrderEntry> order(Class<?> c, String... methods) {
        List<OrderEntry> entries = new ArrayList<>();
        for (String m : methods) {
            entries.add(new OrderEntry(entries.size(), c.getName() + "#" + m));
        }
        return entries;
    }

    @Test
    public void handlesTestCasesAndSuiteClasses() {
        assertTrue(engine.handles(Plain.class));
        assertTrue(engine.handles(Gatherer.class));
        assertFalse(engine.handles(String.class));
    }

    @Test
    public void listsSuitesThroughTheirTestsOwnClasses() {
        List<String> listed = new ArrayList<>();
        for (ListedTest t : engine.list(Arrays.asList(Gatherer.class, Fixtured.class), sink)) {
            listed.add(t.id.substring(t.id.lastIndexOf('$') + 1) + " via " + t.listedClass.substring(
                    t.listedClass.lastIndexOf('$') + 1) + " " + t.engine + (t.classFixtures ? " fixtures" : ""));
        }
        assertEquals(Arrays.asList("Plain#testA via Gatherer junit3", "Plain#testB via Gatherer junit3",
                "Fixtured#testA via Fixtured junit3 fixtures", "Fixtured#testB via Fixtured junit3 fixtures"), listed);
    }

    @Test
    public void runsAPlainTestCaseInTheRequestedOrderWithRepeats() {
        engine.run(Plain.class, order(Plain.class, "testB", "testA", "testB", "testMissing"), sink);
        assertEquals(Arrays.asList("end Plain#testMissing 3 error", "class-start", "start Plain#testB 0",
                "end Plain#testB 0 fail", "start Plain#testA 1", "end Plain#testA 1 pass", "start Plain#testB 2",
                "end Plain#testB 2 fail"), events);
        assertEquals(Arrays.asList("Plain.b", "Plain.a", "Plain.b"), ran);
    }

    @Test
    public void keepsASuitesDecoratorAroundTheRequestedOrder() {
        engine.run(Fixtured.class, order(Fixtured.class, "testB", "testA"), sink);
        assertEquals(Arrays.asList("setUp", "Fixtured.b", "Fixtured.a", "tearDown"), ran);
        assertEquals(Arrays.asList("class-start", "start Fixtured#testB 0", "end Fixtured#testB 0 pass",
                "start Fixtured#testA 1", "end Fixtured#testA 1 pass"), events);
    }

    @Test
    public void runsASuiteAgainForARepeatAndNarrowsItToTheRequestedTests() {
        engine.run(Fixtured.class, order(Fixtured.class, "testA", "testA"), sink);
        assertEquals(Arrays.asList("setUp", "Fixtured.a", "tearDown", "setUp", "Fixtured.a", "tearDown"), ran);
    }

    @Test
    public void aFailingSuiteSetupEndsItsTestsWithAnError() {
        setUpFails = true;
        engine.run(Fixtured.class, order(Fixtured.class, "testA", "testB"), sink);
        assertEquals(Arrays.asList("class-start", "end Fixtured#testA 0 error", "end Fixtured#testB 1 error"),
                events);
        assertTrue(ran.isEmpty());
    }
}
