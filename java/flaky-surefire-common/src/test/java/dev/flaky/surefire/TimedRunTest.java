package dev.flaky.surefire;

import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.RunnerListener;
import dev.flaky.runner.TestRunner;
import org.junit.AfterClass;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

public class TimedRunTest {
    /** Tests run by the runner under test: one that waits forever, one that ignores interrupts, and normal ones. */
    public static class Subject {
        static volatile boolean release;

        @Test
        public void a() {
        }

        @Test
        public void waits() throws InterruptedException {
            new CountDownLatch(1).await();
        }

        @Test
        public void spins() {
            while (!release) {
                Thread.interrupted(); // swallows the interrupt, as code that catches it and retries does
            }
        }

        @Test
        public void slowButInTime() throws InterruptedException {
            Thread.sleep(100);
        }

        @Test
        public void c() {
        }
    }

    @AfterClass
    public static void release() {
        Subject.release = true;
    }

    /** Records the events as text. */
    private static final class Recorder implements RunnerListener {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final List<String> messages = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void testEnd(String test, int index, String outcome, long timeMs, Failure failure) {
            events.add(test.substring(test.indexOf('#') + 1) + "=" + outcome);
            if (failure != null && TimedRun.TIMEOUT.equals(outcome)) {
                messages.add(failure.type() + ": " + failure.message() + "\n" + failure.stack());
            }
        }

        @Override
        public void classEnd(String className) {
            events.add("class-end");
        }
    }

    private static List<OrderEntry> order(String... methods) {
        List<OrderEntry> order = new ArrayList<>();
        for (String m : methods) {
            order.add(new OrderEntry(order.size(), Subject.class.getName() + "#" + m));
        }
        return order;
    }

    @Test(timeout = 30_000)
    public void interruptedTestIsATimeoutAndTheOrderGoesOn() {
        Recorder r = new Recorder();
        new TimedRun(1000, TestRunner::embedded, r).run(order("a", "waits", "slowButInTime", "c"));
        assertEquals("[a=pass, waits=timeout, slowButInTime=pass, c=pass, class-end]", r.events.toString());
        String m = r.messages.get(0);
        assertTrue(m, m.startsWith(TestTimedOutException.class.getName() + ": timed out after 1s without progress "
                + "(test timeout, -Dflaky.testTimeout)"));
        assertTrue("the stack shows where the test waited: " + m, m.contains("TimedRunTest$Subject.waits"));
        assertTrue("the stack ends at the test: " + m, !m.contains("org.junit.") && !m.contains("dev.flaky.runner"));
    }

    @Test(timeout = 30_000)
    public void testIgnoringTheInterruptIsAbandoned() {
        Recorder r = new Recorder();
        long began = System.nanoTime();
        new TimedRun(500, TestRunner::embedded, r).run(order("a", "spins", "c"));
        assertEquals("[a=pass, spins=timeout, class-end, c=pass, class-end]", r.events.toString());
        assertTrue(r.messages.get(0), r.messages.get(0).contains("did not stop when interrupted"));
        assertTrue("took too long", System.nanoTime() - began < 10_000_000_000L);
    }

    @Test
    public void parsesDurations() {
        String[][] cases = {
            {"", "120000"}, {"90s", "90000"}, {"2m", "120000"}, {"1m30s", "90000"}, {"500ms", "500"}, {"1h", "3600000"},
            {"45", "45000"}, {"0", "0"}, {"off", "0"}, {" 10S ", "10000"},
        };
        for (String[] c : cases) {
            Properties p = new Properties();
            p.setProperty(TestTimeout.PROPERTY, c[0]);
            assertEquals(c[0], Long.parseLong(c[1]), TestTimeout.millis(p));
        }
        assertEquals(TestTimeout.DEFAULT_MS, TestTimeout.millis(new Properties()));
        for (String bad : new String[] {"2 minutes", "-1s", "1.5s", "s", "99999999999999999999"}) {
            try {
                TestTimeout.parse(bad);
                throw new AssertionError("accepted " + bad);
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage(), expected.getMessage().contains("-Dflaky.testTimeout"));
            }
        }
        assertEquals("2m", TestTimeout.format(120_000));
        assertEquals("90s", TestTimeout.format(90_000));
        assertEquals("1500ms", TestTimeout.format(1500));
    }
}
