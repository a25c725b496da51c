package dev.flaky.agent.chaos;

import org.junit.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class PerceivedClockTest {
    private static PerceivedClock clock(Strategy s) {
        return new PerceivedClock(s, 5000, 10000, 10, 10);
    }

    @Test
    public void incrementMovesBothApisAlongOneClock() {
        PerceivedClock c = clock(Strategy.TIME_INCREMENT);
        long m0 = c.currentTimeMillis();
        long n0 = c.nanoTime();
        long m1 = c.currentTimeMillis();
        long n1 = c.nanoTime();
        assertEquals(10_000, m1 - m0);
        assertEquals(10_000_000_000L, n1 - n0);
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
        PerceivedClock fast = clock(Strategy.TIME_FAST);
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
        for (Strategy s : new Strategy[] {Strategy.TIME_INCREMENT, Strategy.TIME_ROUNDING, Strategy.TIME_FAST,
            Strategy.TIME_SLOW}) {
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
