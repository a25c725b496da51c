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
    /** The standard normal's upper 10^-4 quantile. */
    static final double GAUSSIAN_TAIL = 3.719016485455709;
    /** The standard exponential's upper 10^-4 quantile, ln 10^4. */
    static final double EXPONENTIAL_TAIL = 9.210340371976184;

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

    /**
     * The next extreme of {@code nextGaussian()}: about 3.72 standard deviations above the mean for the
     * maximum (below for the minimum), a value a real generator exceeds about once in ten thousand draws, so it is
     * plausible (the normal distribution has no boundary); stepping inwards so no value repeats during a test.
     */
    static double gaussian() {
        return gaussian(0, 1);
    }

    /** The next extreme of {@code nextGaussian(mean, stddev)}: the tail value's deviations from the mean. */
    static double gaussian(double mean, double stddev) {
        if (mode == ChaosConfig.RandomMode.VALUE) {
            return mean + stddev * value;
        }
        double sign = mode == ChaosConfig.RandomMode.MIN ? -1 : 1;
        for (long offset = 0; limit > 0 && stddev > 0 && offset < 1 << 20; offset++) {
            double v = mean + stddev * sign * step(GAUSSIAN_TAIL, offset);
            if (fresh(v)) {
                return v;
            }
        }
        return mean + stddev * sign * GAUSSIAN_TAIL;
    }

    /**
     * The next extreme of {@code nextExponential()} (mean 1, range [0, infinity)): 0 for the minimum; for the maximum
     * the value a real generator exceeds about once in ten thousand draws, stepping inwards.
     */
    static double exponential() {
        if (mode == ChaosConfig.RandomMode.VALUE) {
            return Math.max(0.0, value);
        }
        boolean up = mode == ChaosConfig.RandomMode.MIN;
        for (long offset = 0; limit > 0; offset++) {
            double v = up ? offset * Double.MIN_VALUE : step(EXPONENTIAL_TAIL, offset);
            if (fresh(v)) {
                return v;
            }
        }
        return up ? 0.0 : EXPONENTIAL_TAIL;
    }

    /** The next extreme of the floats in [origin, bound) (origin < bound, both finite). */
    static float inRange(float origin, float bound) {
        float max = Math.max(origin, Math.nextDown(bound));
        if (mode == ChaosConfig.RandomMode.VALUE) {
            return (float) Math.max(origin, Math.min(max, value));
        }
        boolean up = mode == ChaosConfig.RandomMode.MIN;
        float v = up ? origin : max;
        for (int n = 0; limit > 0 && n < 1 << 20 && v >= origin && v <= max; n++) {
            if (fresh(v)) {
                return v;
            }
            v = up ? Math.nextUp(v) : Math.nextDown(v);
        }
        return up ? origin : max;
    }

    /**
     * Fills {@code bytes} with the {@code k}-th extreme of {@code nextBytes}: read as one unsigned big-endian number,
     * the largest value first (all bytes 0xFF; 0x00 for the minimum), stepping inwards as {@link #inRange(long, long,
     * int)} does, so two arrays handed out during a test differ unless they are at most two bytes long.
     */
    static void bytes(byte[] bytes, int k) {
        int n = bytes.length;
        if (n == 0) {
            return;
        }
        if (mode == ChaosConfig.RandomMode.VALUE) {
            Arrays.fill(bytes, (byte) Math.max(0, Math.min(255, (long) value)));
            return;
        }
        boolean up = mode == ChaosConfig.RandomMode.MIN;
        long offset = 0;
        if (limit > 0 && n <= 2) {
            offset = (k - 1) % (1L << (8 * n));
        } else if (limit > 0) {
            while (!fresh("bytes:" + n + ':' + offset)) {
                offset++;
            }
        }
        Arrays.fill(bytes, up ? (byte) 0 : (byte) -1);
        long tail = up ? offset : ~offset;
        for (int i = n - 1, shift = 0; i >= 0 && shift < 64; i--, shift += 8) {
            bytes[i] = (byte) (tail >>> shift);
        }
    }

    /** A real {@code nextBytes}: the bytes of the generator's longs, low byte first, as {@code Random} fills them. */
    static void realBytes(SplittableRandom g, byte[] bytes) {
        for (int i = 0; i < bytes.length; ) {
            for (long r = g.nextLong(), n = Math.min(bytes.length - i, 8); n-- > 0; r >>= 8) {
                bytes[i++] = (byte) r;
            }
        }
    }

    /** A real {@code nextGaussian()} (Marsaglia's polar method, as {@code Random} draws it). */
    static double realGaussian(SplittableRandom g) {
        double v1;
        double s;
        do {
            v1 = 2 * g.nextDouble() - 1;
            double v2 = 2 * g.nextDouble() - 1;
            s = v1 * v1 + v2 * v2;
        } while (s >= 1 || s == 0);
        return v1 * Math.sqrt(-2 * Math.log(s) / s);
    }

    /** A real {@code nextExponential()} (mean 1). */
    static double realExponential(SplittableRandom g) {
        return -Math.log(1 - g.nextDouble());
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
