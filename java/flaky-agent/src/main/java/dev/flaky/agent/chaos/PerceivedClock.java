package dev.flaky.agent.chaos;

import dev.flaky.agent.Channel;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one clock behind every perturbed clock API ({@code System.currentTimeMillis()}, {@code System.nanoTime()},
 * {@code Instant.now()}, {@code Clock.system*()}, the {@code java.time} {@code now()} methods, {@code Calendar},
 * {@code new Date()}): the elapsed time that the TIME strategies shape, and a perceived wall clock that the DATE
 * strategy moves to another moment at the start of every test, both read by all those APIs, so that they move
 * together.
 *
 * <p>The TIME strategies model what a real machine can do, never what it cannot: time passes at one rate for the
 * clock and for every sleep, timed wait, park and timeout of the JVM (those take real time, so the clock runs at
 * real time too), and a slow or disturbed machine shows as real pauses of the thread that reads the clock
 * ({@link #stall}). TIME_INCREMENT is a loaded machine: a thread is descheduled (or the JVM stopped for a GC) for
 * {@code chaos.time.increment} ms before it reads the clock. TIME_SLOW is a slow CPU: before a reading the thread
 * pauses {@code chaos.time.slow - 1} times the CPU time it used since its previous reading, so computing takes that
 * many times as long while sleeping and waiting do not. Both stop once a test's pauses reach
 * {@code chaos.time.budget} ms, so a test asserting that some work took under 250 ms sees a pause a loaded machine
 * produces, a test waiting generously for work that sleeps cannot fail (the work goes on while the waiter pauses,
 * and the clock it reads afterwards says how long really passed), and a test that reads the clock a million times
 * costs the budget, not a million pauses. TIME_ROUNDING is a coarse clock: readings are rounded down to
 * {@code chaos.time.granularity} ms (16 by default, the tick of some systems' wall clock), so they lag the real time
 * by less than a tick and the clock keeps moving. The elapsed time is shared by all threads of the JVM (as
 * {@code nanoTime} promises one origin for all of them) and never goes backwards (a CAS loop keeps the largest
 * value handed out).
 */
final class PerceivedClock {
    /** The real clock a perceived one derives from: the system's, or a unit test's that it moves by hand. */
    interface RealClock {
        /** The real {@code System.nanoTime()}. */
        long nanoTime();

        /** The real {@code System.currentTimeMillis()}. */
        long currentTimeMillis();

        /** The CPU time the calling thread has used, in nanoseconds; negative when the JVM cannot tell. */
        long threadCpuNanos();
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

        @Override
        public long threadCpuNanos() {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
        }
    };

    private final RealClock real;
    private final Strategy time;
    /** TIME_INCREMENT's pause before a reading, in nanoseconds. */
    private final long incrementNanos;
    /** The pauses a test may take in all, in nanoseconds. */
    private final long budgetNanos;
    private final long granularityMillis;
    private final double slow;
    private final long baseMillis;
    private final long baseNanos;
    /** Perceived nanoseconds since the base (negative when rounding starts below it); only grows. */
    private final AtomicLong perceived;
    /** The wall-clock moment a test starts at under DATE; Long.MIN_VALUE without a DATE strategy. */
    private final long dateStartMillis;
    private volatile Rebase rebase;
    /** The test epoch whose budget is spent (the fast path of {@link #grant}); -1 for none. */
    private volatile int spentEpoch = -1;
    private int budgetEpoch = -1;
    private long budgetLeft;
    /** TIME_SLOW: the calling thread's CPU time at its previous reading, and the test epoch of that reading. */
    private final ThreadLocal<long[]> lastCpu = new ThreadLocal<>();

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
        this.incrementNanos = TimeUnit.MILLISECONDS.toNanos(c.timeIncrementMs);
        this.budgetNanos = TimeUnit.MILLISECONDS.toNanos(c.timeBudgetMs);
        this.granularityMillis = c.timeGranularityMs;
        this.slow = c.timeSlow;
        this.baseMillis = real.currentTimeMillis();
        this.baseNanos = real.nanoTime();
        this.perceived = new AtomicLong(time == null ? 0 : candidate(0));
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

    /** The perturbed {@code System.currentTimeMillis()} (after the strategy's pause, {@link #stall}). */
    long currentTimeMillis() {
        stall();
        long elapsed = elapsed();
        if (dateStartMillis == Long.MIN_VALUE) {
            return baseMillis + Math.floorDiv(elapsed, 1_000_000L);
        }
        Rebase r = rebased(elapsed);
        return r.startMillis + Math.floorDiv(elapsed - r.elapsedNanos, 1_000_000L);
    }

    /** The perceived wall clock as an instant (nanosecond precision), after the strategy's pause. */
    Instant instant() {
        stall();
        long elapsed = elapsed();
        if (dateStartMillis == Long.MIN_VALUE) {
            return Instant.ofEpochMilli(baseMillis).plusNanos(elapsed);
        }
        Rebase r = rebased(elapsed);
        return Instant.ofEpochMilli(r.startMillis).plusNanos(elapsed - r.elapsedNanos);
    }

    /** Reports whether a TIME strategy paces the elapsed time ({@code nanoTime} included). */
    boolean pacesElapsedTime() {
        return time != null;
    }

    /** The perturbed {@code System.nanoTime()}, after the strategy's pause. */
    long nanoTime() {
        stall();
        return baseNanos + elapsed();
    }

    /**
     * The current test's wall-clock start (taking this reading, at perceived {@code elapsed}, as the first): DATE's
     * moment.
     */
    private Rebase rebased(long elapsed) {
        int epoch = Channel.testEpoch();
        Rebase r = rebase;
        if (r == null || r.epoch != epoch) {
            r = new Rebase(epoch, elapsed, dateStartMillis);
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
        if (time != Strategy.TIME_ROUNDING) {
            return realNanos;
        }
        // A coarse clock: the real wall-clock time rounded down to the last tick.
        long realMillis = baseMillis + Math.floorDiv(realNanos, 1_000_000L);
        long rounded = Math.floorDiv(realMillis, granularityMillis) * granularityMillis;
        return (rounded - baseMillis) * 1_000_000L;
    }

    /**
     * Pauses the calling thread before it reads the clock, as a loaded machine (TIME_INCREMENT) or a slow CPU
     * (TIME_SLOW) does, within what is left of the current test's budget; nothing under the other strategies. An
     * interrupt ends the pause early and stays set for the caller to see. Returns the pause granted (nanoseconds).
     */
    long stall() {
        long wanted = wantedPause();
        if (wanted <= 0) {
            return 0;
        }
        long granted = grant(wanted);
        if (granted <= 0) {
            return 0;
        }
        try {
            Pauses.nanos(granted);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return granted;
    }

    /** The pause the strategy wants before this reading, in nanoseconds (before the budget). */
    private long wantedPause() {
        if (time == Strategy.TIME_INCREMENT) {
            return incrementNanos;
        }
        if (time != Strategy.TIME_SLOW || spentEpoch == Channel.testEpoch()) {
            return 0;
        }
        long cpu = real.threadCpuNanos();
        if (cpu < 0) {
            return 0;
        }
        int epoch = Channel.testEpoch();
        long[] last = lastCpu.get();
        if (last == null) {
            last = new long[2];
            lastCpu.set(last);
        } else if (last[1] == epoch) {
            long used = cpu - last[0];
            last[0] = cpu;
            return (long) (used * (slow - 1));
        }
        // The thread's first reading in this test: the CPU it used before belongs to no interval of the test.
        last[0] = cpu;
        last[1] = epoch;
        return 0;
    }

    /** Takes up to {@code wanted} nanoseconds from the current test's budget and returns what it took. */
    private long grant(long wanted) {
        int epoch = Channel.testEpoch();
        if (spentEpoch == epoch) {
            return 0;
        }
        synchronized (this) {
            if (budgetEpoch != epoch) {
                budgetEpoch = epoch;
                budgetLeft = budgetNanos;
            }
            long granted = Math.min(wanted, budgetLeft);
            budgetLeft -= granted;
            if (budgetLeft <= 0) {
                spentEpoch = epoch;
            }
            return granted;
        }
    }
}
