package dev.flaky.surefire;

import dev.flaky.runner.Failure;
import dev.flaky.runner.ListedTest;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.Outcome;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

import static org.junit.Assert.assertEquals;

public class ClassReportsTest {
    /** Records the reporter calls as text. */
    private static final class Recorder implements Reporter<String> {
        final List<String> calls = new ArrayList<>();

        @Override
        public void testSetStarting(String testSet) {
            calls.add("set-start " + testSet);
        }

        @Override
        public void testStarting(TestResult test) {
            calls.add("start " + test.id());
        }

        @Override
        public void testFinished(TestResult test) {
            calls.add(test.outcome + " " + test.id() + (test.message() == null ? "" : " (" + test.message() + ")"));
        }

        @Override
        public void classError(String testSet, String className, Failure failure) {
            calls.add("class-error " + className + " in " + testSet);
        }

        @Override
        public void output(TestResult test, String testSet, String chunk) {
            calls.add("out " + (test == null ? "-" : test.id()) + " " + testSet + " " + chunk);
        }

        @Override
        public void testSetCompleted(String testSet, long elapsedMs) {
            calls.add("set-end " + testSet);
        }

        @Override
        public void log(String level, String message) {
            calls.add("log " + message);
        }
    }

    private static List<OrderEntry> order(String... ids) {
        List<OrderEntry> order = new ArrayList<>();
        for (String id : ids) {
            order.add(new OrderEntry(order.size(), id));
        }
        return order;
    }

    private static ForkRecord record() {
        Properties p = new Properties();
        p.setProperty("java.home", "/jdk");
        return ForkRecord.snapshot("3.5.4", "3", p, ClassReportsTest.class.getClassLoader(), null);
    }

    @Test
    public void reportsAnInterleavedClassOnceWithAllItsTests() {
        Recorder r = new Recorder();
        TestSets sets = new TestSets(Arrays.asList("p.A", "p.B"), Collections.<ListedTest>emptyList());
        ClassReports<String> reports = new ClassReports<>(r, sets, order("p.A#a1", "p.B#b1", "p.A#a2"), record());

        reports.classStart("p.A");
        reports.testStart("p.A#a1", 0);
        reports.output("one");
        reports.testEnd("p.A#a1", 0, Outcome.PASS, 1, null);
        reports.classEnd("p.A");
        reports.classStart("p.B");
        reports.testStart("p.B#b1", 1);
        reports.testEnd("p.B#b1", 1, Outcome.PASS, 1, null);
        reports.classEnd("p.B");
        reports.output("between");
        reports.classStart("p.A");
        reports.testStart("p.A#a2", 2);
        reports.testEnd("p.A#a2", 2, Outcome.FAIL, 1, Failure.reason("boom"));
        reports.classEnd("p.A");
        reports.finish();

        assertEquals(Arrays.asList(
                "set-start p.B", "start p.B#b1", "pass p.B#b1", "set-end p.B",
                "out - null between",
                "set-start p.A", "start p.A#a1", "out p.A#a1 p.A one", "pass p.A#a1",
                "start p.A#a2", "fail p.A#a2 (boom)", "set-end p.A"), r.calls);
    }

    @Test
    public void startsTestsThatEndWithoutStartingExceptSkippedOnesAndGroupsNestedClasses() {
        Recorder r = new Recorder();
        List<ListedTest> listed = Collections.singletonList(new ListedTest("p.A$In", "n", "jupiter", "p.A", false));
        TestSets sets = new TestSets(Collections.singletonList("p.A"), listed);
        ClassReports<String> reports = new ClassReports<>(r, sets, order("p.A$In#n", "p.A#s", "p.Gone#x"), record());

        reports.classStart("p.A$In");
        reports.testEnd("p.A$In#n", 0, Outcome.ERROR, 0, Failure.reason("fixture"));
        reports.classEnd("p.A$In");
        reports.classStart("p.A");
        reports.testEnd("p.A#s", 1, Outcome.SKIPPED, 0, Failure.reason("off"));
        reports.classError("p.A", Failure.reason("after all"));
        reports.classEnd("p.A");
        reports.testEnd("p.Gone#x", 2, Outcome.ERROR, 0, Failure.notFound("no class"));
        reports.finish();

        assertEquals(Arrays.asList(
                "set-start p.A", "start p.A$In#n", "error p.A$In#n (fixture)", "skipped p.A#s (off)",
                "class-error p.A in p.A", "set-end p.A",
                "set-start p.Gone", "start p.Gone#x", "error p.Gone#x (no class)", "set-end p.Gone"), r.calls);
    }

    @Test
    public void countsSeveralInvocationsOfOneEntryOnce() {
        Recorder r = new Recorder();
        TestSets sets = new TestSets(Arrays.asList("p.A", "p.B"), Collections.<ListedTest>emptyList());
        ClassReports<String> reports = new ClassReports<>(r, sets, order("p.A#t", "p.B#b", "p.A#u"), record());

        reports.classStart("p.A");
        reports.testStart("p.A#t[1]", 0);
        reports.testEnd("p.A#t[1]", 0, Outcome.PASS, 0, null);
        reports.testStart("p.A#t[2]", 0);
        reports.testEnd("p.A#t[2]", 0, Outcome.PASS, 0, null);
        reports.classEnd("p.A");

        assertEquals(Collections.emptyList(), r.calls);
    }
}
