package dev.flaky.agent.chaos;

import org.junit.Test;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class PerceivedClockTest {
    private static PerceivedClock clock(Strategy s) {
        return new PerceivedClock(s, config(s.name()));
    }

    private static ChaosConfig config(String strategies, String... options) {
        Map<String, String> o = new HashMap<>();
        o.put("chaos", strategies);
        for (int i = 0; i < options.length; i += 2) {
            o.put(options[i], options[i + 1]);
        }
        return ChaosConfig.parse(o);
    }

    /** A perceived clock on a real clock that moves only when the test advances it. */
    private static PerceivedClock clock(Strategy s, FakeRealClock real) {
        return new PerceivedClock(s, config(s.name()), real);
    }

    private static void nextTest() {
        Map<String, Object> end = new HashMap<>();
        end.put("type", "test-end");
        dev.flaky.agent.Channel.send(end);
    }

    @Test
    public void incrementPausesBeforeReadingsWithinTheTestsBudget() {
        FakeRealClock real = new FakeRealClock();
        try (RecordedPauses pauses = new RecordedPauses(real)) {
            PerceivedClock c = clock(Strategy.TIME_INCREMENT, real);
            nextTest();
            long n0 = c.nanoTime();
            c.currentTimeMillis();
            for (int i = 0; i < 1000; i++) {
                c.nanoTime();
            }
            // Two pauses of 300 ms use up the test's 600 ms; the clock shows exactly the real time they took.
            assertEquals(Arrays.asList("300", "300"), pauses.millis());
            assertEquals(300_000_000L, c.nanoTime() - n0);
            assertEquals(real.currentTimeMillis(), c.currentTimeMillis());
            assertEquals(c.currentTimeMillis(), c.instant().toEpochMilli());
            nextTest();
            c.nanoTime();
            assertEquals("the next test has its own budget", 3, pauses.millis().size());
        }
    }

    @Test
    public void aLatencyBudgetSeesThePauseAndAGenerousWaitCannotFail() {
        FakeRealClock real = new FakeRealClock();
        try (RecordedPauses pauses = new RecordedPauses(real)) {
            PerceivedClock c = clock(Strategy.TIME_INCREMENT, real);
            nextTest();
            // Formatting that takes 5 ms, asserted to take under 250 ms: a pause falls between the two readings.
            long start = c.nanoTime();
            real.compute(5);
            assertTrue(c.nanoTime() - start > 250_000_000L);
            nextTest();
            // A worker that sleeps 600 ms (real time, as every sleep), awaited for up to 1 s on the clock.
            long begun = real.nanoTime();
            long deadline = c.nanoTime() + 1_000_000_000L;
            boolean done = false;
            while (!done) {
                assertTrue("the deadline passed before the work was done", c.nanoTime() < deadline);
                real.advance(10);
                done = real.nanoTime() - begun >= 600_000_000L;
            }
        }
    }

    @Test
    public void slowPausesForTheComputingSinceTheThreadsLastReadingNotForItsSleeps() {
        FakeRealClock real = new FakeRealClock();
        try (RecordedPauses pauses = new RecordedPauses(real)) {
            PerceivedClock c = clock(Strategy.TIME_SLOW, real);
            nextTest();
            long start = c.nanoTime();
            real.compute(20);
            real.advance(500);
            // A CPU ten times slower: the 20 ms of computing take 200 ms, the 500 ms of sleep take 500 ms.
            assertEquals(700_000_000L, c.nanoTime() - start);
            assertEquals(Arrays.asList("180"), pauses.millis());
            real.compute(100);
            c.nanoTime();
            assertEquals("the rest of the 600 ms budget", Arrays.asList("180", "420"), pauses.millis());
            real.compute(100);
            c.nanoTime();
            assertEquals(2, pauses.millis().size());
        }
    }

    @Test
    public void allThreadsReadOneClock() throws InterruptedException {
        FakeRealClock real = new FakeRealClock();
        try (RecordedPauses pauses = new RecordedPauses(real)) {
            PerceivedClock c = clock(Strategy.TIME_INCREMENT, real);
            nextTest();
            real.advance(10);
            long[] start = new long[1];
            Thread starter = new Thread(() -> {
                for (int i = 0; i < 1000; i++) {
                    start[0] = c.nanoTime();
                }
            });
            starter.start();
            starter.join();
            // Another thread's start and this thread's check see one clock: no drift from either's readings.
            assertEquals(0, c.nanoTime() - start[0]);
            real.advance(10);
            assertEquals(10_000_000L, c.nanoTime() - start[0]);
        }
    }

    @Test
    public void dateMovesTheWallClockOnlyAndStartsEachTestAtTheMoment() {
        FakeRealClock real = new FakeRealClock();
        PerceivedClock c = new PerceivedClock(null, config("DATE_FIXED"), real);
        long year3000 = Instant.parse("3000-01-01T00:00:00Z").toEpochMilli();
        assertEquals(year3000, c.currentTimeMillis());
        assertEquals(real.nanoTime(), c.nanoTime());
        real.advance(100);
        assertEquals(year3000 + 100, c.currentTimeMillis());
        assertEquals(real.nanoTime(), c.nanoTime());
    }

    @Test
    public void yearEndStartsJustBeforeMidnightOfTheLastDay() {
        ChaosConfig cfg = config("DATE_YEAR_END");
        long start = PerceivedClock.dateStart(Strategy.DATE_YEAR_END, cfg, System.currentTimeMillis());
        LocalDateTime local = LocalDateTime.ofInstant(Instant.ofEpochMilli(start), ZoneId.systemDefault());
        assertEquals(12, local.getMonthValue());
        assertEquals(31, local.getDayOfMonth());
        assertEquals(LocalTime.of(23, 59, 58), local.toLocalTime());
    }

    @Test
    public void roundingIsACoarseClockThatKeepsMoving() {
        FakeRealClock real = new FakeRealClock();
        PerceivedClock c = clock(Strategy.TIME_ROUNDING, real);
        long first = c.currentTimeMillis();
        for (int i = 0; i < 100; i++) {
            long m = c.currentTimeMillis();
            assertEquals(0, m % 16);
            assertTrue("never ahead of the real clock", m <= real.currentTimeMillis());
            assertTrue("less than a tick behind it", m > real.currentTimeMillis() - 16);
            real.advance(7);
        }
        assertTrue("700 ms on, the clock moved", c.currentTimeMillis() - first >= 684);
    }

    @Test
    public void neverGoesBackwardsUnderManyThreads() throws InterruptedException {
        for (Strategy s : new Strategy[] {Strategy.TIME_INCREMENT, Strategy.TIME_ROUNDING, Strategy.TIME_SLOW}) {
            PerceivedClock c = clock(s);
            RecordedPauses pauses = new RecordedPauses();
            AtomicBoolean backwards = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    long last = Long.MIN_VALUE;
                    for (int i = 0; i < 20_000; i++) {
                        long now = i % 2 == 0 ? c.nanoTime() : c.currentTimeMillis() * 1_000_000L;
                        if (i % 2 == 0 && now < last) {
                            backwards.set(true);
                        }
                        if (i % 2 == 0) {
                            last = now;
                        }
                    }
                });
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
            pauses.close();
            assertFalse(s.name(), backwards.get());
        }
    }
}
