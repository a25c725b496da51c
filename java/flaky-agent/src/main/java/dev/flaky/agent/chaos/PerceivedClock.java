package dev.flaky.agent.chaos;

import dev.flaky.agent.Channel;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one clock behind every perturbed clock API ({@code System.currentTimeMillis()}, {@code System.nanoTime()},
 * {@code Instant.now()}, {@code Clock.system*()}, the {@code java.time} {@code now()} methods, {@code Calendar},
 * {@code new Date()}): a perceived elapsed time that the TIME strategy derives from the real one, and a perceived
 * wall clock that the DATE strategy moves to another moment at the start of every test, both read by all those
 * APIs, so that they move together.
 *
 * <p>TIME_INCREMENT advances per reading thread: each thread sees the real elapsed time plus the increment times
 * the number of its own readings, so threads that poll the clock do not amplify each other's perturbation
 * (ChaosAPI's process-wide counter made a polling reactor time out at once). The other TIME strategies are
 * functions of the real time, shared by all threads and never going backwards (a CAS loop keeps the largest value
 * handed out).
 */
final class PerceivedClock {
    private final Strategy time;
    private final long incrementNanos;
    private final long granularityMillis;
    private final double fast;
    private final double slow;
    private final long baseMillis;
    private final long baseNanos;
    /** Perceived nanoseconds since the base (negative when rounding starts below it); only grows. */
    private final AtomicLong perceived;
    private final ThreadLocal<long[]> readings = ThreadLocal.withInitial(() -> new long[1]);
    /** The wall-clock moment a test starts at under DATE; Long.MIN_VALUE without a DATE strategy. */
    private final long dateStartMillis;
    private volatile Rebase rebase;

    /** Where the wall clock of the current test starts: the test epoch and the elapsed time at its first reading. */
    private static final class Rebase {
        final int epoch;
        final long elapsedNanos;

        Rebase(int epoch, long elapsedNanos) {
            this.epoch = epoch;
            this.elapsedNanos = elapsedNanos;
        }
    }

    PerceivedClock(Strategy time, ChaosConfig c) {
        this.time = time;
        this.incrementNanos = c.timeIncrementMs * 1_000_000L;
        this.granularityMillis = c.timeGranularityMs;
        this.fast = c.timeFast;
        this.slow = c.timeSlow;
        this.baseMillis = System.currentTimeMillis();
        this.baseNanos = System.nanoTime();
        this.perceived = new AtomicLong(time == null || time == Strategy.TIME_INCREMENT ? 0 : candidate(0));
        this.dateStartMillis = dateStart(c.inGroup("DATE"), c, baseMillis);
    }

    /**
     * The moment each test starts at under a DATE strategy: DATE_FIXED's configured one; DATE_YEAR_END's margin
     * before midnight of this year's 31 December in the default zone (a day, month and year boundary at once);
     * DATE_DST's margin before the default zone's next DST transition (or, in a zone without DST,
     * {@code chaos.date.zone}'s).
     */
    static long dateStart(Strategy date, ChaosConfig c, long nowMillis) {
        if (date == null) {
            return Long.MIN_VALUE;
        }
        ZoneId zone = ZoneId.systemDefault();
        switch (date) {
            case DATE_YEAR_END: {
                int year = Instant.ofEpochMilli(nowMillis).atZone(zone).getYear();
                long midnight = LocalDate.of(year + 1, 1, 1).atStartOfDay(zone).toInstant().toEpochMilli();
                return midnight - c.dateMarginMs;
            }
            case DATE_DST: {
                Instant now = Instant.ofEpochMilli(nowMillis);
                ZoneOffsetTransition next = zone.getRules().nextTransition(now);
                if (next == null) {
                    next = ZoneId.of(c.dstZone).getRules().nextTransition(now);
                }
                return next == null ? nowMillis : next.getInstant().toEpochMilli() - c.dateMarginMs;
            }
            default:
                return c.dateMillis;
        }
    }

    /** Reports whether {@code zone} has a DST transition after now (DATE_DST needs one in the default zone). */
    static boolean hasTransitions(ZoneId zone) {
        ZoneRules rules = zone.getRules();
        return !rules.isFixedOffset() && rules.nextTransition(Instant.now()) != null;
    }

    /** The perturbed {@code System.currentTimeMillis()}. */
    long currentTimeMillis() {
        long elapsed = elapsed();
        if (dateStartMillis == Long.MIN_VALUE) {
            return baseMillis + Math.floorDiv(elapsed, 1_000_000L);
        }
        return dateStartMillis + Math.floorDiv(elapsed - rebased(elapsed), 1_000_000L);
    }

    /** The perceived wall clock as an instant (nanosecond precision). */
    Instant instant() {
        long elapsed = elapsed();
        if (dateStartMillis == Long.MIN_VALUE) {
            return Instant.ofEpochMilli(baseMillis).plusNanos(elapsed);
        }
        return Instant.ofEpochMilli(dateStartMillis).plusNanos(elapsed - rebased(elapsed));
    }

    /** The perturbed {@code System.nanoTime()}. */
    long nanoTime() {
        return baseNanos + elapsed();
    }

    /** The elapsed time at the current test's first wall-clock reading (taking this reading as the first). */
    private long rebased(long elapsed) {
        int epoch = Channel.testEpoch();
        Rebase r = rebase;
        if (r == null || r.epoch != epoch) {
            r = new Rebase(epoch, elapsed);
            rebase = r;
        }
        return r.elapsedNanos;
    }

    /** Moves the perceived clock for one call and returns it (nanoseconds since the base). */
    private long elapsed() {
        if (time == null) {
            return System.nanoTime() - baseNanos;
        }
        if (time == Strategy.TIME_INCREMENT) {
            long[] n = readings.get();
            n[0]++;
            return System.nanoTime() - baseNanos + n[0] * incrementNanos;
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
        switch (time) {
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
