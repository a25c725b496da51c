package dev.flaky.surefire;

import dev.flaky.runner.Failure;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.RunnerListener;
import dev.flaky.runner.TestRunner;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

public class TimedRunTest {
    /**
     * Tests run by the runner under test: one that waits forever, one that ignores interrupts, and normal ones. They
     * tell the test when they wait or spin, and the slow one spends most of the timeout on the fake clock.
     */
    public static class Subject {
        static volatile FakeClock clock;
        static volatile CountDownLatch waiting;
        static volatile CountDownLatch spinning;
        static volatile CountDownLatch interrupted;
        static volatile Thread spinner;
        static volatile boolean release;

        @Test
        public void a() {
        }

        @Test
        public void waits() throws InterruptedException {
            waiting.countDown();
            new CountDownLatch(1).await();
        }

        @Test
        public void spins() {
            spinner = Thread.currentThread();
            spinning.countDown();
            while (!release) {
                if (Thread.interrupted()) { // swallows the interrupt, as code that catches it and retries does
                    interrupted.countDown();
                }
            }
        }

        @Test
        public void slowButInTime() {
            clock.advance(900);
        }

        @Test
        public void c() {
        }
    }

    /**
     * The run's clock: it moves only when a test advances it, so no test is cut because the machine is slow. A wait
     * on it ends when the run is notified (an event of the order) or the clock moves.
     */
    private static final class FakeClock implements TimedRun.Clock {
        private volatile long nanos;
        private volatile Object run;

        /** Starts watching {@code run}, whose waits a move of the clock ends. */
        void watch(TimedRun run) {
            this.run = run;
        }

        /** Moves the clock {@code millis} on and wakes the run's watcher to look at it. */
        void advance(long millis) {
            synchronized (run) {
                nanos += TimeUnit.MILLISECONDS.toNanos(millis);
                run.notifyAll();
            }
        }

        @Override
        public long nanoTime() {
            return nanos;
        }

        @Override
        public void timedWait(Object monitor, long timeout) throws InterruptedException {
            monitor.wait();
        }
    }

    /** A run of {@code order} on the fake clock with {@code timeoutMs}, started on a thread of its own. */
    private static Thread start(long timeoutMs, RunnerListener r, List<OrderEntry> order) {
        FakeClock clock = new FakeClock();
        TimedRun run = new TimedRun(timeoutMs, TestRunner::embedded, r, clock);
        clock.watch(run);
        Subject.clock = clock;
        Subject.waiting = new CountDownLatch(1);
        Subject.spinning = new CountDownLatch(1);
        Subject.interrupted = new CountDownLatch(1);
        Subject.release = false;
        Thread t = new Thread(() -> run.run(order), "timed-run");
        t.start();
        return t;
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
    public void interruptedTestIsATimeoutAndTheOrderGoesOn() throws InterruptedException {
        Recorder r = new Recorder();
        Thread run = start(1000, r, order("a", "waits", "slowButInTime", "c"));
        Subject.waiting.await();
        Subject.clock.advance(1000);
        run.join();
        assertEquals("[a=pass, waits=timeout, slowButInTime=pass, c=pass, class-end]", r.events.toString());
        String m = r.messages.get(0);
        assertTrue(m, m.startsWith(TestTimedOutException.class.getName() + ": timed out after 1s without progress "
                + "(test timeout, -Dflaky.testTimeout)"));
        assertTrue("the stack shows where the test waited: " + m, m.contains("TimedRunTest$Subject.waits"));
        assertTrue("the stack ends at the test: " + m, !m.contains("org.junit.") && !m.contains("dev.flaky.runner"));
    }

    @Test(timeout = 30_000)
    public void testIgnoringTheInterruptIsAbandoned() throws InterruptedException {
        Recorder r = new Recorder();
        Thread run = start(500, r, order("a", "spins", "c"));
        try {
            Subject.spinning.await();
            Subject.clock.advance(500);
            Subject.interrupted.await();
            Subject.clock.advance(500); // the grace period: as long as the timeout, up to 10 s
            run.join();
            assertEquals("[a=pass, spins=timeout, class-end, c=pass, class-end]", r.events.toString());
            assertTrue(r.messages.get(0), r.messages.get(0).contains("did not stop when interrupted"));
            assertTrue("the run ended without waiting for the spinning test", Subject.spinner.isAlive());
        } finally {
            Subject.release = true;
        }
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
