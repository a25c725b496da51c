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
 * <p>Every TIME strategy is a function of the real elapsed time, shared by all threads of the JVM (as
 * {@code nanoTime} promises one origin for all of them) and never going backwards (a CAS loop keeps the largest
 * value handed out). TIME_INCREMENT models a slow machine as a rate: every real second looks like
 * {@code 1 + increment/1000} seconds, so an interval's perceived length grows with its real one (a 200 ms
 * operation asserted to take under a second fails; a 50 ms exchange under a library's 30 s timeout does not) and
 * never with the number of readings. Under a rate strategy without DATE, the wall clock restarts from the real one
 * at each test's first reading, so it drifts from the real time by at most one test's gain.
 */
final class PerceivedClock {
    /** The real clock a perceived one derives from: the system's, or a unit test's that it moves by hand. */
    interface RealClock {
        /** The real {@code System.nanoTime()}. */
        long nanoTime();

        /** The real {@code System.currentTimeMillis()}. */
        long currentTimeMillis();
    }

    /** The system's clock. */
    static final RealClock SYSTEM = new RealClock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis();
        }
    };

    private final RealClock real;
    private final Strategy time;
    /** TIME_INCREMENT's rate: perceived nanoseconds per real one. */
    private final double rate;
    private final long granularityMillis;
    private final double slow;
    private final long baseMillis;
    private final long baseNanos;
    /** Perceived nanoseconds since the base (negative when rounding starts below it); only grows. */
    private final AtomicLong perceived;
    /** The wall-clock moment a test starts at under DATE; Long.MIN_VALUE without a DATE strategy. */
    private final long dateStartMillis;
    /** The wall clock restarts from the real one at each test's first reading (a rate strategy without DATE). */
    private final boolean restartWall;
    private volatile Rebase rebase;

    /**
     * Where the wall clock of the current test starts: the test epoch, the elapsed time at its first reading and
     * the wall-clock moment it reads then.
     */
    private static final class Rebase {
        final int epoch;
        final long elapsedNanos;
        final long startMillis;

        Rebase(int epoch, long elapsedNanos, long startMillis) {
            this.epoch = epoch;
            this.elapsedNanos = elapsedNanos;
            this.startMillis = startMillis;
        }
    }

    PerceivedClock(Strategy time, ChaosConfig c) {
        this(time, c, SYSTEM);
    }

    /** A perceived clock on {@code real} (the system's in the agent). */
    PerceivedClock(Strategy time, ChaosConfig c, RealClock real) {
        this.real = real;
        this.time = time;
        this.rate = 1 + c.timeIncrementMs / 1000.0;
        this.granularityMillis = c.timeGranularityMs;
        this.slow = c.timeSlow;
        this.baseMillis = real.currentTimeMillis();
        this.baseNanos = real.nanoTime();
        this.perceived = new AtomicLong(time == null ? 0 : candidate(0));
        this.dateStartMillis = dateStart(c.inGroup("DATE"), c, baseMillis);
        this.restartWall = dateStartMillis == Long.MIN_VALUE && time != null && time != Strategy.TIME_ROUNDING;
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
        if (dateStartMillis == Long.MIN_VALUE && !restartWall) {
            return baseMillis + Math.floorDiv(elapsed, 1_000_000L);
        }
        Rebase r = rebased(elapsed);
        return r.startMillis + Math.floorDiv(elapsed - r.elapsedNanos, 1_000_000L);
    }

    /** The perceived wall clock as an instant (nanosecond precision). */
    Instant instant() {
        long elapsed = elapsed();
        if (dateStartMillis == Long.MIN_VALUE && !restartWall) {
            return Instant.ofEpochMilli(baseMillis).plusNanos(elapsed);
        }
        Rebase r = rebased(elapsed);
        return Instant.ofEpochMilli(r.startMillis).plusNanos(elapsed - r.elapsedNanos);
    }

    /** Reports whether a TIME strategy paces the elapsed time ({@code nanoTime} included). */
    boolean pacesElapsedTime() {
        return time != null;
    }

    /** The perturbed {@code System.nanoTime()}. */
    long nanoTime() {
        return baseNanos + elapsed();
    }

    /**
     * The current test's wall-clock start (taking this reading, at perceived {@code elapsed}, as the first): DATE's
     * moment, or the real wall clock now.
     */
    private Rebase rebased(long elapsed) {
        int epoch = Channel.testEpoch();
        Rebase r = rebase;
        if (r == null || r.epoch != epoch) {
            r = new Rebase(epoch, elapsed, dateStartMillis != Long.MIN_VALUE ? dateStartMillis : real.currentTimeMillis());
            rebase = r;
        }
        return r;
    }

    /** Moves the perceived clock for one call and returns it (nanoseconds since the base). */
    private long elapsed() {
        if (time == null) {
            return real.nanoTime() - baseNanos;
        }
        long candidate = candidate(real.nanoTime() - baseNanos);
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
            case TIME_INCREMENT:
                return (long) (realNanos * rate);
            case TIME_SLOW:
                return (long) (realNanos / slow);
            default:
                return realNanos;
        }
    }
}
