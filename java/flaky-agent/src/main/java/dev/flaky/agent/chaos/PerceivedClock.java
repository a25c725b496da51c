package dev.flaky.agent.chaos;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one clock behind perturbed {@code System.currentTimeMillis()} and {@code System.nanoTime()}: a perceived
 * elapsed time in nanoseconds since the agent started, derived from the real elapsed time by the TIME strategy,
 * never going backwards (a CAS loop keeps the largest value handed out), and shared by both APIs so that they move
 * by the same durations.
 */
final class PerceivedClock {
    private final Strategy strategy;
    private final long incrementNanos;
    private final long granularityMillis;
    private final double fast;
    private final double slow;
    private final long baseMillis;
    private final long baseNanos;
    /** Perceived nanoseconds since the base (negative when rounding starts below it); only grows. */
    private final AtomicLong perceived;

    PerceivedClock(Strategy strategy, long incrementMillis, long granularityMillis, double fast, double slow) {
        this.strategy = strategy;
        this.incrementNanos = incrementMillis * 1_000_000L;
        this.granularityMillis = granularityMillis;
        this.fast = fast;
        this.slow = slow;
        this.baseMillis = System.currentTimeMillis();
        this.baseNanos = System.nanoTime();
        this.perceived = new AtomicLong(strategy == Strategy.TIME_INCREMENT ? 0 : candidate(0));
    }

    /** The perturbed {@code System.currentTimeMillis()}. */
    long currentTimeMillis() {
        return baseMillis + Math.floorDiv(advance(), 1_000_000L);
    }

    /** The perturbed {@code System.nanoTime()}. */
    long nanoTime() {
        return baseNanos + advance();
    }

    /** Moves the perceived clock for one call and returns it (nanoseconds since the base). */
    private long advance() {
        if (strategy == Strategy.TIME_INCREMENT) {
            return perceived.addAndGet(incrementNanos);
        }
        long candidate = candidate(System.nanoTime() - baseNanos);
        while (true) {
            long current = perceived.get();
            if (candidate <= current) {
                return current;
            }
            if (perceived.compareAndSet(current, candidate)) {
                return candidate;
            }
        }
    }

    /** The strategy's perceived elapsed nanoseconds for a real elapsed time (before the never-backwards rule). */
    private long candidate(long realNanos) {
        switch (strategy) {
            case TIME_ROUNDING: {
                // Round the real wall-clock time to the nearest multiple of the granularity.
                long realMillis = baseMillis + realNanos / 1_000_000L;
                long rounded = Math.floorDiv(realMillis + granularityMillis / 2, granularityMillis) * granularityMillis;
                return (rounded - baseMillis) * 1_000_000L;
            }
            case TIME_FAST:
                return (long) (realNanos * fast);
            case TIME_SLOW:
                return (long) (realNanos / slow);
            default:
                return realNanos;
        }
    }
}
