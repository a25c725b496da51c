package dev.flaky.agent.chaos;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real clock for a {@link PerceivedClock} under test that moves only when the test says: both readings advance
 * together, from an arbitrary nanoTime origin and wall-clock moment.
 */
final class FakeRealClock implements PerceivedClock.RealClock {
    private static final long ORIGIN_NANOS = 987_654_321_000L;
    /** 2024-06-01T12:00:00Z. */
    private static final long ORIGIN_MILLIS = 1_717_243_200_000L;
    private final AtomicLong elapsedNanos = new AtomicLong();

    /** Moves the clock {@code millis} milliseconds on. */
    void advance(long millis) {
        elapsedNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Override
    public long nanoTime() {
        return ORIGIN_NANOS + elapsedNanos.get();
    }

    @Override
    public long currentTimeMillis() {
        return ORIGIN_MILLIS + TimeUnit.NANOSECONDS.toMillis(elapsedNanos.get());
    }
}
