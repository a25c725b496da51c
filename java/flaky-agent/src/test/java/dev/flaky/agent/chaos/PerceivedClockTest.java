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

    @Test
    public void incrementIsARateThatMovesBothApisAlongOneClock() throws InterruptedException {
        PerceivedClock c = clock(Strategy.TIME_INCREMENT);
        long m0 = c.currentTimeMillis();
        long n0 = c.nanoTime();
        for (int i = 0; i < 1000; i++) {
            c.nanoTime();
        }
        long r0 = System.nanoTime();
        Thread.sleep(100);
        long real = System.nanoTime() - r0;
        long m1 = c.currentTimeMillis();
        long n1 = c.nanoTime();
        // Readings add nothing; 100 ms of real time look like 600 ms (5000 ms gained per real second).
        assertTrue(n1 - n0 + " ns vs " + real, n1 - n0 >= 6 * real && n1 - n0 < 6 * real + 100_000_000L);
        assertTrue(m1 - m0 + " ms vs " + real, m1 - m0 >= 6 * real / 1_000_000L - 1 && m1 - m0 < 6 * real / 1_000_000L + 100);
        assertTrue(Math.abs(c.instant().toEpochMilli() - c.currentTimeMillis()) < 100);
    }

    @Test
    public void allThreadsReadOneClock() throws InterruptedException {
        PerceivedClock c = clock(Strategy.TIME_INCREMENT);
        long[] start = new long[1];
        Thread starter = new Thread(() -> {
            for (int i = 0; i < 1000; i++) {
                start[0] = c.nanoTime();
            }
        });
        starter.start();
        starter.join();
        long elapsed = c.nanoTime() - start[0];
        // Another thread's start and this thread's check see one clock: no drift from either's readings.
        assertTrue(elapsed + " ns", elapsed >= 0 && elapsed < 1_000_000_000L);
    }

    @Test
    public void theRateDrivenWallClockRestartsFromTheRealOneAtEachTest() throws InterruptedException {
        PerceivedClock c = clock(Strategy.TIME_INCREMENT);
        c.currentTimeMillis();
        Thread.sleep(100);
        assertTrue(c.currentTimeMillis() - System.currentTimeMillis() >= 400);
        Map<String, Object> end = new HashMap<>();
        end.put("type", "test-end");
        dev.flaky.agent.Channel.send(end);
        assertTrue(Math.abs(c.currentTimeMillis() - System.currentTimeMillis()) < 100);
    }

    @Test
    public void dateMovesTheWallClockOnlyAndStartsEachTestAtTheMoment() {
        PerceivedClock c = new PerceivedClock(null, config("DATE_FIXED"));
        long m = c.currentTimeMillis();
        assertTrue(m - Instant.parse("3000-01-01T00:00:00Z").toEpochMilli() < 1000);
        long n0 = c.nanoTime();
        assertTrue(Math.abs(n0 - System.nanoTime()) < 1_000_000_000L);
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
    public void scalingFollowsRealTimeFasterOrSlower() throws InterruptedException {
        PerceivedClock fast = new PerceivedClock(Strategy.TIME_INCREMENT, config("TIME_FAST", "chaos.time.fast", "10"));
        PerceivedClock slow = clock(Strategy.TIME_SLOW);
        long f0 = fast.nanoTime();
        long s0 = slow.nanoTime();
        long r0 = System.nanoTime();
        Thread.sleep(50);
        long real = System.nanoTime() - r0;
        long f = fast.nanoTime() - f0;
        long s = slow.nanoTime() - s0;
        assertTrue(f + " vs " + real, f >= 8 * real && f <= 12 * real);
        assertTrue(s + " vs " + real, s <= real / 5);
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
