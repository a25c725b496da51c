package dev.flaky.agent.chaos;

import org.junit.Test;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
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

    @Test
    public void incrementIsARateThatMovesBothApisAlongOneClock() {
        FakeRealClock real = new FakeRealClock();
        PerceivedClock c = clock(Strategy.TIME_INCREMENT, real);
        long m0 = c.currentTimeMillis();
        long n0 = c.nanoTime();
        for (int i = 0; i < 1000; i++) {
            c.nanoTime();
        }
        assertEquals("readings add nothing", n0, c.nanoTime());
        real.advance(100);
        // 100 ms of real time look like 600 ms (5000 ms gained per real second), on both APIs.
        assertEquals(600_000_000L, c.nanoTime() - n0);
        assertEquals(600, c.currentTimeMillis() - m0);
        assertEquals(c.currentTimeMillis(), c.instant().toEpochMilli());
    }

    @Test
    public void allThreadsReadOneClock() throws InterruptedException {
        FakeRealClock real = new FakeRealClock();
        PerceivedClock c = clock(Strategy.TIME_INCREMENT, real);
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
        assertEquals(60_000_000L, c.nanoTime() - start[0]);
    }

    @Test
    public void theRateDrivenWallClockRestartsFromTheRealOneAtEachTest() {
        FakeRealClock real = new FakeRealClock();
        PerceivedClock c = clock(Strategy.TIME_INCREMENT, real);
        c.currentTimeMillis();
        real.advance(100);
        assertEquals("100 ms of the test look like 600", 500, c.currentTimeMillis() - real.currentTimeMillis());
        Map<String, Object> end = new HashMap<>();
        end.put("type", "test-end");
        dev.flaky.agent.Channel.send(end);
        assertEquals(real.currentTimeMillis(), c.currentTimeMillis());
        real.advance(100);
        assertEquals(500, c.currentTimeMillis() - real.currentTimeMillis());
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
    public void roundingReturnsMultiplesOfTheGranularity() {
        PerceivedClock c = clock(Strategy.TIME_ROUNDING);
        for (int i = 0; i < 100; i++) {
            assertEquals(0, c.currentTimeMillis() % 10000);
        }
    }

    @Test
    public void scalingFollowsRealTimeFasterOrSlower() {
        FakeRealClock real = new FakeRealClock();
        PerceivedClock fast = new PerceivedClock(Strategy.TIME_INCREMENT, config("TIME_FAST", "chaos.time.fast", "10"),
                real);
        PerceivedClock slow = clock(Strategy.TIME_SLOW, real);
        long f0 = fast.nanoTime();
        long s0 = slow.nanoTime();
        real.advance(50);
        assertEquals("ten times faster", 500_000_000L, fast.nanoTime() - f0);
        assertEquals("ten times slower", 5_000_000L, slow.nanoTime() - s0);
    }

    @Test
    public void neverGoesBackwardsUnderManyThreads() throws InterruptedException {
        for (Strategy s : new Strategy[] {Strategy.TIME_INCREMENT, Strategy.TIME_ROUNDING, Strategy.TIME_SLOW}) {
            PerceivedClock c = clock(s);
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
            assertFalse(s.name(), backwards.get());
        }
    }
}
