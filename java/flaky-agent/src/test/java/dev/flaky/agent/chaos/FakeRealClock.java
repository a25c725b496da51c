package dev.flaky.agent.chaos;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real clock for a {@link PerceivedClock} under test that moves only when the test says: both readings advance
 * together, from an arbitrary nanoTime origin and wall-clock moment; the CPU time of the (one) thread reading it
 * moves only when the test says it computed.
 */
final class FakeRealClock implements PerceivedClock.RealClock {
    private static final long ORIGIN_NANOS = 987_654_321_000L;
    /** 2024-06-01T12:00:00Z. */
    private static final long ORIGIN_MILLIS = 1_717_243_200_000L;
    private final AtomicLong elapsedNanos = new AtomicLong();
    private final AtomicLong cpuNanos = new AtomicLong();

    /** Moves the clock {@code millis} milliseconds on (a sleep or a wait: no CPU time used). */
    void advance(long millis) {
        advanceNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    /** Moves the clock {@code nanos} nanoseconds on. */
    void advanceNanos(long nanos) {
        elapsedNanos.addAndGet(nanos);
    }

    /** Computes for {@code millis} milliseconds: the clock and the thread's CPU time move on together. */
    void compute(long millis) {
        advance(millis);
        cpuNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Override
    public long threadCpuNanos() {
        return cpuNanos.get();
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
