package dev.flaky.runner;

import junit.extensions.TestSetup;
import junit.framework.TestCase;
import junit.framework.TestSuite;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.FixMethodOrder;
import org.junit.Ignore;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.junit.runner.Description;
import org.junit.runner.RunWith;
import org.junit.runner.Runner;
import org.junit.runner.notification.RunNotifier;
import org.junit.runners.BlockJUnit4ClassRunner;
import org.junit.runners.MethodSorters;
import org.junit.runners.model.InitializationError;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

public class TestRunnerTest {
    /** A JUnit 4 class for the runner to list and run (nested, so the build's own Surefire skips it). */
    public static class Sample {
        @Test
        public void a() {
        }

        @Test
        public void b() {
            throw new AssertionError("b fails");
        }

        @Ignore("off")
        @Test
        public void c() {
        }
    }

    /** A class that fixes its own method order, which JUnit 4.13's sorter leaves alone. */
    @FixMethodOrder(MethodSorters.NAME_ASCENDING)
    public static class Fixed {
        @Test
        public void a() {
        }

        @Test
        public void b() {
        }
    }

    /** A second class, listed before Sample when given first. */
    public static class Other {
        @Test
        public void x() {
        }
    }

    /** Class fixtures that count how often they ran and fail the second time, like a jMock registry would. */
    public static class Counted {
        static int beforeClass;
        static int afterClass;
        static final List<String> ran = new ArrayList<>();

        @BeforeClass
        public static void setUpClass() {
            if (++beforeClass > 1) {
                throw new IllegalStateException("a mock with name consumer already exists");
            }
        }

        @AfterClass
        public static void tearDownClass() {
            afterClass++;
        }

        @Test
        public void a() {
            ran.add("a");
        }

        @Test
        public void b() {
            ran.add("b");
        }
    }

    /** Inherits {@link Counted}'s class fixtures through its superclass. */
    public static class Inheriting extends Counted {
    }

    /** A class rule is a class fixture. */
    public static class WithClassRule {
        @ClassRule
        public static final TemporaryFolder FOLDER = new TemporaryFolder();

        @Test
        public void a() {
        }
    }

    /** A BlockJUnit4ClassRunner subclass that changes nothing around the class, like jMock's runner. */
    public static class PlainRunner extends BlockJUnit4ClassRunner {
        public PlainRunner(Class<?> c) throws InitializationError {
            super(c);
        }
    }

    /** Run by a subclass of the default runner without class-level behaviour: no class fixtures. */
    @RunWith(PlainRunner.class)
    public static class WithPlainRunner {
        @Test
        public void a() {
        }
    }

    /** A runner flaky cannot see into. */
    public static class OpaqueRunner extends Runner {
        private final Class<?> c;

        public OpaqueRunner(Class<?> c) {
            this.c = c;
        }

        @Override
        public Description getDescription() {
            Description d = Description.createSuiteDescription(c);
            d.addChild(Description.createTestDescription(c, "a"));
            return d;
        }

        @Override
        public void run(RunNotifier notifier) {
            notifier.fireTestStarted(getDescription().getChildren().get(0));
            notifier.fireTestFinished(getDescription().getChildren().get(0));
        }
    }

    /** Run by an unknown runner: class fixtures count as present. */
    @RunWith(OpaqueRunner.class)
    public static class WithOpaqueRunner {
    }

    /** A JUnit 3 class: no class fixtures. */
    public static class Plain3 extends TestCase {
        public void testA() {
        }
    }

    /** A JUnit 3 class whose instances can be built only while {@code buildable}; counts the instances built. */
    public static class Fragile3 extends TestCase {
        static boolean buildable = true;
        static int built;
        private final int number = build();

        private static int build() {
            if (!buildable) {
                throw new IllegalStateException("cannot build");
            }
            return ++built;
        }

        public void testA() {
            assertTrue(number > 0);
        }

        public void testB() {
            buildable = false;
        }
    }

    /** A JUnit 3 class with a suite() (a TestSetup): class fixtures. */
    public static class Suite3 extends TestCase {
        public void testA() {
        }

        public static junit.framework.Test suite() {
            return new TestSetup(new TestSuite(Suite3.class));
        }
    }

    @Test
    public void listsInTheGivenClassOrder() {
        List<ListedTest> tests = TestRunner.embedded(new Recorder()).list(Arrays.asList(
                Other.class.getName(), Sample.class.getName(), "no.such.Class"));
        List<String> ids = new ArrayList<>();
        for (ListedTest t : tests) {
            ids.add(t.id.substring(t.id.lastIndexOf('$') + 1));
        }
        assertEquals(Arrays.asList("Other#x"), ids.subList(0, 1));
        assertEquals(Arrays.asList("Sample#a", "Sample#b", "Sample#c"), sorted(ids.subList(1, ids.size())));
    }

    private static List<String> sorted(List<String> list) {
        List<String> copy = new ArrayList<>(list);
        copy.sort(null);
        return copy;
    }

    @Test
    public void reportsARunToTheListenerWithThrowables() {
        Recorder r = new Recorder();
        String sample = Sample.class.getName();
        TestRunner.embedded(r).run(Arrays.asList(new OrderEntry(0, sample + "#b"), new OrderEntry(1, sample + "#a"),
                new OrderEntry(2, sample + "#c"), new OrderEntry(3, "no.such.Class#m")));
        assertEquals(Arrays.asList("run-start 4", "class-start TestRunnerTest$Sample",
                "start TestRunnerTest$Sample#b 0", "end TestRunnerTest$Sample#b 0 fail",
                "start TestRunnerTest$Sample#a 1", "end TestRunnerTest$Sample#a 1 pass",
                "end TestRunnerTest$Sample#c 2 skipped", "class-end TestRunnerTest$Sample",
                "end Class#m 3 error", "run-end 4"), r.events);
        assertTrue(r.failure instanceof AssertionError);
        assertEquals("b fails", r.failure.getMessage());
    }

    @Test
    public void keepsTheRequestedOrderForAFixMethodOrderClass() {
        Recorder r = new Recorder();
        String fixed = Fixed.class.getName();
        TestRunner.embedded(r).run(Arrays.asList(new OrderEntry(0, fixed + "#b"), new OrderEntry(1, fixed + "#a")));
        assertEquals(Arrays.asList("run-start 2",
                "class-start TestRunnerTest$Fixed", "start TestRunnerTest$Fixed#b 0", "end TestRunnerTest$Fixed#b 0 pass",
                "class-end TestRunnerTest$Fixed",
                "class-start TestRunnerTest$Fixed", "start TestRunnerTest$Fixed#a 1", "end TestRunnerTest$Fixed#a 1 pass",
                "class-end TestRunnerTest$Fixed", "run-end 2"), r.events);
    }

    @Test
    public void marksTestsOfClassesWithClassFixtures() {
        List<String> names = Arrays.asList(Sample.class.getName(), Counted.class.getName(),
                Inheriting.class.getName(), WithClassRule.class.getName(), WithPlainRunner.class.getName(),
                WithOpaqueRunner.class.getName(), Plain3.class.getName(), Suite3.class.getName());
        List<String> withFixtures = new ArrayList<>();
        List<String> without = new ArrayList<>();
        for (ListedTest t : TestRunner.embedded(new Recorder()).list(names)) {
            String c = t.className.substring(t.className.lastIndexOf('$') + 1);
            List<String> into = t.classFixtures ? withFixtures : without;
            if (!into.contains(c)) {
                into.add(c);
            }
        }
        assertEquals(Arrays.asList("Counted", "Inheriting", "WithClassRule", "WithOpaqueRunner", "Suite3"),
                withFixtures);
        assertEquals(Arrays.asList("Sample", "WithPlainRunner", "Plain3"), without);
    }

    @Test
    public void buildsEachJunit3TestWhenItRunsAndReportsItsConstructorsFailure() {
        Fragile3.buildable = true;
        Fragile3.built = 0;
        Recorder r = new Recorder();
        String c = Fragile3.class.getName();
        TestRunner.embedded(r).run(Arrays.asList(new OrderEntry(0, c + "#testA"), new OrderEntry(1, c + "#testB"),
                new OrderEntry(2, c + "#testA")));
        // testB made the class unbuildable: the third test's instance is built when it runs, so it fails, under
        // its own name.
        assertEquals(Arrays.asList("run-start 3", "class-start TestRunnerTest$Fragile3",
                "start TestRunnerTest$Fragile3#testA 0", "end TestRunnerTest$Fragile3#testA 0 pass",
                "start TestRunnerTest$Fragile3#testB 1", "end TestRunnerTest$Fragile3#testB 1 pass",
                "class-end TestRunnerTest$Fragile3", "class-start TestRunnerTest$Fragile3",
                "start TestRunnerTest$Fragile3#testA 2", "end TestRunnerTest$Fragile3#testA 2 error",
                "class-end TestRunnerTest$Fragile3", "run-end 3"), r.events);
        assertEquals("cannot build", r.failure.getMessage());
        assertEquals(2, Fragile3.built);
    }

    @Test
    public void runsRepeatsOfAJunit4ClassInOneClassFixtureScope() {
        Counted.beforeClass = 0;
        Counted.afterClass = 0;
        Counted.ran.clear();
        Recorder r = new Recorder();
        String c = Counted.class.getName();
        TestRunner.embedded(r).run(Arrays.asList(new OrderEntry(0, c + "#a"), new OrderEntry(1, c + "#a"),
                new OrderEntry(2, c + "#b"), new OrderEntry(3, c + "#a")));
        assertEquals(Arrays.asList("run-start 4", "class-start TestRunnerTest$Counted",
                "start TestRunnerTest$Counted#a 0", "end TestRunnerTest$Counted#a 0 pass",
                "start TestRunnerTest$Counted#a 1", "end TestRunnerTest$Counted#a 1 pass",
                "start TestRunnerTest$Counted#b 2", "end TestRunnerTest$Counted#b 2 pass",
                "start TestRunnerTest$Counted#a 3", "end TestRunnerTest$Counted#a 3 pass",
                "class-end TestRunnerTest$Counted", "run-end 4"), r.events);
        assertEquals(Arrays.asList("a", "a", "b", "a"), Counted.ran);
        assertEquals(1, Counted.beforeClass);
        assertEquals(1, Counted.afterClass);
    }

    @Test
    public void reportsAClassFixtureFailureForEveryRepeat() {
        Counted.beforeClass = 1; // the next @BeforeClass fails
        Recorder r = new Recorder();
        String c = Counted.class.getName();
        TestRunner.embedded(r).run(Arrays.asList(new OrderEntry(0, c + "#a"), new OrderEntry(1, c + "#a")));
        assertEquals(Arrays.asList("run-start 2", "class-start TestRunnerTest$Counted",
                "end TestRunnerTest$Counted#a 0 error", "end TestRunnerTest$Counted#a 1 error",
                "class-end TestRunnerTest$Counted", "run-end 2"), r.events);
        assertTrue(r.failure instanceof IllegalStateException);
    }

    @Test
    public void reportsEveryRunOfARepeatedIgnoredTest() {
        Recorder r = new Recorder();
        String sample = Sample.class.getName();
        TestRunner.embedded(r).run(Arrays.asList(new OrderEntry(0, sample + "#c"), new OrderEntry(1, sample + "#c")));
        assertEquals(Arrays.asList("run-start 2", "class-start TestRunnerTest$Sample",
                "end TestRunnerTest$Sample#c 0 skipped", "end TestRunnerTest$Sample#c 1 skipped",
                "class-end TestRunnerTest$Sample", "run-end 2"), r.events);
    }

    @Test
    public void repeatsInOneScopeForAFixMethodOrderClassWhileTheFixedOrderAllows() {
        Recorder r = new Recorder();
        String fixed = Fixed.class.getName();
        TestRunner.embedded(r).run(Arrays.asList(new OrderEntry(0, fixed + "#a"), new OrderEntry(1, fixed + "#a"),
                new OrderEntry(2, fixed + "#b")));
        assertEquals(Arrays.asList("run-start 3", "class-start TestRunnerTest$Fixed",
                "start TestRunnerTest$Fixed#a 0", "end TestRunnerTest$Fixed#a 0 pass",
                "start TestRunnerTest$Fixed#a 1", "end TestRunnerTest$Fixed#a 1 pass",
                "start TestRunnerTest$Fixed#b 2", "end TestRunnerTest$Fixed#b 2 pass",
                "class-end TestRunnerTest$Fixed", "run-end 3"), r.events);
    }
}
