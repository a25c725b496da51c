package dev.flaky.runner;

import org.junit.FixMethodOrder;
import org.junit.Ignore;
import org.junit.Test;
import org.junit.runners.MethodSorters;

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

    private static final class Recorder implements RunnerListener {
        final List<String> events = new ArrayList<>();
        Throwable failure;

        @Override
        public void runStart(int count) {
            events.add("run-start " + count);
        }

        @Override
        public void classStart(String className) {
            events.add("class-start " + simple(className));
        }

        @Override
        public void classEnd(String className) {
            events.add("class-end " + simple(className));
        }

        @Override
        public void testStart(String test, int index) {
            events.add("start " + simple(test) + " " + index);
        }

        @Override
        public void testEnd(String test, int index, String outcome, long timeMs, Failure f) {
            events.add("end " + simple(test) + " " + index + " " + outcome);
            if (f != null && f.throwable() != null) {
                failure = f.throwable();
            }
        }

        @Override
        public void runEnd(int count) {
            events.add("run-end " + count);
        }

        private static String simple(String name) {
            return name.substring(name.lastIndexOf('.') + 1);
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
}
