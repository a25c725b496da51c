package dev.flaky.agent.chaos;

import dev.flaky.agent.Channel;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The values RANDOM_MAX gives unseeded generators at project call sites: extremes a real generator could produce.
 * Per call site and test, the first {@code chaos.random.limit} draws are at or near the boundary of the call's range
 * (the first one is the boundary itself, so an inclusive bound used as an index fails at once), later draws come
 * from a seeded generator of the site, so a rejection-sampling loop ends and a statistical test sees a uniform
 * sample. Two draws during a test return the same value only where a real generator plausibly would: in a narrow
 * range (at most {@value #NARROW} values) a site's draws step inwards from the boundary (max, max-1, ...); in a
 * wider range an extreme already handed out during the test, by any site, is skipped for the next one in, so values
 * used as unique tokens differ. With {@code chaos.random.limit=0} every draw is the boundary itself.
 */
final class Draws {
    /** Ranges of at most this many values are narrow: a real generator repeats values there often enough. */
    static final long NARROW = 1L << 16;
    private static final double UNIT_STEP = 0x1.0p-53;
    private static final float FLOAT_STEP = 0x1.0p-24f;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private static ChaosConfig.RandomMode mode = ChaosConfig.RandomMode.MAX;
    private static double value;
    private static int limit;
    private static long seed = Shuffler.DEFAULT_SEED;
    private static final Object LOCK = new Object();
    /** Per site id, its generator of real values; created on first use, guarded by LOCK. */
    private static SplittableRandom[] generators = new SplittableRandom[256];
    /** The wide-range extremes handed out during test {@link #handedOutEpoch} (boxed); guarded by LOCK. */
    private static final Set<Object> HANDED_OUT = new HashSet<>();
    private static int handedOutEpoch = -1;

    private Draws() {
    }

    /** Sets the parameters; called once by {@link Api#configure} before any project class is loaded. */
    static void configure(ChaosConfig c) {
        mode = c.randomMode;
        value = c.randomValue;
        limit = c.randomLimit;
        seed = c.seed;
    }

    /**
     * Counts a draw at {@code site}: returns its 1-based index among the site's draws during the running test when
     * it gets an extreme (and reports the site), 0 when it gets a real value.
     */
    static int extreme(int site) {
        int k = limit > 0 ? Sites.count(site) : 1;
        if (limit > 0 && k > limit) {
            return 0;
        }
        Sites.hit(site);
        return k;
    }

    /** The extreme of the {@code k}-th draw of a site from the whole numbers {@code min} to {@code max} (inclusive). */
    static long inRange(long min, long max, int k) {
        if (mode == ChaosConfig.RandomMode.VALUE) {
            return value <= min ? min : value >= max ? max : (long) value;
        }
        boolean up = mode == ChaosConfig.RandomMode.MIN;
        long span = max - min; // negative when the range has more than 2^63 values
        if (limit == 0) {
            return up ? min : max;
        }
        if (span >= 0 && span < NARROW) {
            long offset = (k - 1) % (span + 1);
            return up ? min + offset : max - offset;
        }
        for (long offset = 0; span < 0 || offset <= span; offset++) {
            long v = up ? min + offset : max - offset;
            if (fresh(v)) {
                return v;
            }
        }
        return up ? min : max;
    }

    /** The next extreme of {@code nextDouble()}'s range: multiples of 2^-53 in [0, 1). */
    static double unit() {
        if (mode == ChaosConfig.RandomMode.VALUE) {
            return Math.max(0.0, Math.min(Math.nextDown(1.0), value));
        }
        boolean up = mode == ChaosConfig.RandomMode.MIN;
        for (long offset = 0; limit > 0 && offset < 1L << 53; offset++) {
            double v = up ? offset * UNIT_STEP : 1.0 - (offset + 1) * UNIT_STEP;
            if (fresh(v)) {
                return v;
            }
        }
        return up ? 0.0 : 1.0 - UNIT_STEP;
    }

    /** The next extreme of {@code nextFloat()}'s range: multiples of 2^-24 in [0, 1). */
    static float unitFloat() {
        if (mode == ChaosConfig.RandomMode.VALUE) {
            return (float) Math.max(0.0, Math.min(Math.nextDown(1.0f), value));
        }
        boolean up = mode == ChaosConfig.RandomMode.MIN;
        for (int offset = 0; limit > 0 && offset < 1 << 24; offset++) {
            float v = up ? offset * FLOAT_STEP : 1.0f - (offset + 1) * FLOAT_STEP;
            if (fresh(v)) {
                return v;
            }
        }
        return up ? 0.0f : 1.0f - FLOAT_STEP;
    }

    /** The next extreme of the doubles in [origin, bound) (origin < bound, both finite). */
    static double inRange(double origin, double bound) {
        double max = Math.max(origin, Math.nextDown(bound));
        if (mode == ChaosConfig.RandomMode.VALUE) {
            return Math.max(origin, Math.min(max, value));
        }
        boolean up = mode == ChaosConfig.RandomMode.MIN;
        for (long offset = 0; limit > 0; offset++) {
            double v = up ? -step(-origin, offset) : step(max, offset);
            if (v < origin || v > max) {
                break;
            }
            if (fresh(v)) {
                return v;
            }
        }
        return up ? origin : max;
    }

    /** Records {@code v} as handed out during the running test; false when it already was. */
    private static boolean fresh(Object v) {
        int epoch = Channel.testEpoch();
        synchronized (LOCK) {
            if (epoch != handedOutEpoch) {
                handedOutEpoch = epoch;
                HANDED_OUT.clear();
            }
            return HANDED_OUT.add(v);
        }
    }

    /** The double {@code n} representable values below {@code x}. */
    private static double step(double x, long n) {
        if (n == 0) {
            return x;
        }
        if (x > 0) {
            long bits = Double.doubleToRawLongBits(x) - n;
            return bits >= 0 ? Double.longBitsToDouble(bits) : -Double.longBitsToDouble(-bits);
        }
        return -Double.longBitsToDouble(Double.doubleToRawLongBits(-x) + n);
    }

    /**
     * A generator for one real value at {@code site}: split off the site's own generator, which is seeded from
     * {@code chaos.seed} and the site, so runs repeat their values and two sites do not share a sequence.
     */
    static SplittableRandom real(int site) {
        synchronized (LOCK) {
            if (site >= generators.length) {
                generators = Arrays.copyOf(generators, Math.max(site + 1, generators.length * 2));
            }
            SplittableRandom g = generators[site];
            if (g == null) {
                Sites.Site s = Sites.get(site);
                String key = s.className + '#' + s.method + ':' + s.line + ' ' + s.api;
                g = new SplittableRandom(seed * GOLDEN ^ key.hashCode());
                generators[site] = g;
            }
            return g.split();
        }
    }
}
