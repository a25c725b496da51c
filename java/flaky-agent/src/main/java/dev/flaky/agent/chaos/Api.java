package dev.flaky.agent.chaos;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.Spliterator;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The wrappers that substituted call sites in project code call instead of the JDK APIs (ChaosAPI's "wrapper
 * APIs"). Each takes the original receiver and arguments, then the call site's id, perturbs within the API's
 * specification (except SLEEP_DECREASE), and reports the site through {@link Sites#hit} when it perturbed
 * something. Only call sites of enabled strategies are substituted, so a wrapper never checks whether its strategy
 * is on. Public because project classes in any package call it; not an API for people.
 */
public final class Api {
    private static long sleepDelta;
    private static boolean sleepIncrease;
    private static int sleepLimit;
    private static double concurrencyFactor;

    private Api() {
    }

    /** Sets the parameters; called once by {@link Chaos#install} before any project class is loaded. */
    static void configure(ChaosConfig c) {
        Draws.configure(c);
        sleepDelta = c.sleepMs;
        sleepIncrease = c.enabled(Strategy.SLEEP_INCREASE);
        sleepLimit = c.sleepLimit;
        concurrencyFactor = c.concurrencyFactor;
        Shuffler.seed(c.seed);
        Sites.shuffleOnly(c.iterationSites);
    }

    // ---- RANDOM ----
    // Seeded instances keep their specified sequence; an unseeded generator gets the values of Draws: per call site
    // and test the first few draws near the boundary of the range, then real values from the site's seeded generator.

    /** {@code Random.nextInt()} and {@code ThreadLocalRandom.nextInt()}. */
    public static int nextInt(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextInt();
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt()
                : (int) logged(site, Explain.on ? r.nextInt() : null, Draws.inRange(Integer.MIN_VALUE, Integer.MAX_VALUE, k));
    }

    /** {@code Random.nextInt(int)} and {@code ThreadLocalRandom.nextInt(int)}: n-1 first for the maximum. */
    public static int nextInt(Random r, int bound, int site) {
        if (bound <= 0 || Seeded.contains(r)) {
            return r.nextInt(bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt(bound)
                : (int) logged(site, Explain.on ? r.nextInt(bound) : null, Draws.inRange(0, bound - 1L, k));
    }

    /** {@code ThreadLocalRandom.nextInt(int, int)}: b-1 first for the maximum. */
    public static int nextInt(ThreadLocalRandom r, int origin, int bound, int site) {
        if (origin >= bound) {
            return r.nextInt(origin, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt(origin, bound)
                : (int) logged(site, Explain.on ? r.nextInt(origin, bound) : null, Draws.inRange(origin, bound - 1L, k));
    }

    /** {@code Random.nextLong()} and {@code ThreadLocalRandom.nextLong()}. */
    public static long nextLong(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextLong();
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong()
                : logged(site, Explain.on ? r.nextLong() : null, Draws.inRange(Long.MIN_VALUE, Long.MAX_VALUE, k));
    }

    /** {@code Random.nextDouble()} and {@code ThreadLocalRandom.nextDouble()}: just below 1 for the maximum. */
    public static double nextDouble(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextDouble();
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble()
                : logged(site, Explain.on ? r.nextDouble() : null, Draws.unit());
    }

    /** {@code Random.nextBoolean()} and {@code ThreadLocalRandom.nextBoolean()}: true first for the maximum. */
    public static boolean nextBoolean(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextBoolean();
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextBoolean()
                : logged(site, Explain.on ? r.nextBoolean() : null, Draws.inRange(0, 1, k)) == 1;
    }

    /** {@code Random.nextFloat()} and {@code ThreadLocalRandom.nextFloat()}: just below 1 for the maximum. */
    public static float nextFloat(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextFloat();
        }
        return Draws.extreme(site) == 0 ? (Draws.real(site).nextInt() >>> 8) * 0x1.0p-24f
                : (float) logged(site, Explain.on ? r.nextFloat() : null, Draws.unitFloat());
    }

    /** {@code Random.nextGaussian()} and its subclasses': a tail value a real generator reaches (see Draws). */
    public static double nextGaussian(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextGaussian();
        }
        return Draws.extreme(site) == 0 ? Draws.realGaussian(Draws.real(site))
                : logged(site, Explain.on ? r.nextGaussian() : null, Draws.gaussian());
    }

    /** {@code Random.nextBytes(byte[])} and its subclasses': all 0xFF first for the maximum. */
    public static void nextBytes(Random r, byte[] bytes, int site) {
        if (bytes == null || Seeded.contains(r)) {
            r.nextBytes(bytes);
            return;
        }
        fillBytes(bytes, site, () -> r.nextBytes(bytes.clone()));
    }

    /** Fills {@code bytes} with a site's draw; {@code original} draws the generator's own (for the log). */
    private static void fillBytes(byte[] bytes, int site, Runnable original) {
        int k = Draws.extreme(site);
        if (k == 0) {
            Draws.realBytes(Draws.real(site), bytes);
        } else {
            Draws.bytes(bytes, k);
            if (Explain.on) {
                original.run();
                Explain.log(site, bytes.length + " random bytes", java.util.Arrays.toString(bytes));
            }
        }
    }

    /** {@code Math.random()}. */
    public static double random(int site) {
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble()
                : logged(site, Explain.on ? Math.random() : null, Draws.unit());
    }

    /** {@code Random.setSeed(long)}: the instance becomes seeded, so it is never perturbed. */
    public static void setSeed(Random r, long seed) {
        r.setSeed(seed);
        Seeded.mark(r);
    }

    /** Called right after {@code new Random(seed)} (or a subclass's {@code super(seed)}) with the new instance. */
    public static void seeded(Object random) {
        Seeded.mark(random);
    }

    /**
     * Logs a perturbed random value with {@code original}, what the generator returned instead (drawn only with
     * {@code chaos.explain}, so only then does the perturbation consume the generator's values).
     */
    private static long logged(int site, Object original, long value) {
        if (Explain.on) {
            Explain.log(site, original, value);
        }
        return value;
    }

    private static double logged(int site, Object original, double value) {
        if (Explain.on) {
            Explain.log(site, original, value);
        }
        return value;
    }

    /** {@code nextInt(int, int)} of Random and SecureRandom (JDK 17's RandomGenerator): b-1 first for the maximum. */
    public static int nextIntRange(Random r, int origin, int bound, int site) {
        if (origin >= bound || Seeded.contains(r)) {
            return (int) Jdk.call(r, "nextInt", origin, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt(origin, bound) : (int) logged(site,
                Explain.on ? Jdk.call(r, "nextInt", origin, bound) : null, Draws.inRange(origin, bound - 1L, k));
    }

    /** {@code nextLong(long)} (JDK 17's RandomGenerator; ThreadLocalRandom since 8): n-1 first for the maximum. */
    public static long nextLongBound(Random r, long bound, int site) {
        if (bound <= 0 || Seeded.contains(r)) {
            return (long) Jdk.call(r, "nextLong", bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong(bound)
                : logged(site, Explain.on ? Jdk.call(r, "nextLong", bound) : null, Draws.inRange(0, bound - 1, k));
    }

    /** {@code nextLong(long, long)}: b-1 first for the maximum. */
    public static long nextLongRange(Random r, long origin, long bound, int site) {
        if (origin >= bound || Seeded.contains(r)) {
            return (long) Jdk.call(r, "nextLong", origin, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong(origin, bound) : logged(site,
                Explain.on ? Jdk.call(r, "nextLong", origin, bound) : null, Draws.inRange(origin, bound - 1, k));
    }

    /** {@code nextDouble(double)}: just below the bound for the maximum. */
    public static double nextDoubleBound(Random r, double bound, int site) {
        if (!(bound > 0 && bound < Double.POSITIVE_INFINITY) || Seeded.contains(r)) {
            return (double) Jdk.call(r, "nextDouble", bound);
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble(bound)
                : logged(site, Explain.on ? Jdk.call(r, "nextDouble", bound) : null, Draws.inRange(0, bound));
    }

    /** {@code nextDouble(double, double)}. */
    public static double nextDoubleRange(Random r, double origin, double bound, int site) {
        if (!(origin < bound && bound - origin < Double.POSITIVE_INFINITY) || Seeded.contains(r)) {
            return (double) Jdk.call(r, "nextDouble", origin, bound);
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble(origin, bound) : logged(site,
                Explain.on ? Jdk.call(r, "nextDouble", origin, bound) : null, Draws.inRange(origin, bound));
    }

    /** {@code Random.ints()}: every element a draw at the site. */
    public static IntStream ints(Random r, int site) {
        return Seeded.contains(r) ? r.ints() : IntStream.generate(() -> drawInt(site));
    }

    /** {@code Random.ints(long)}. */
    public static IntStream ints(Random r, long size, int site) {
        return size < 0 || Seeded.contains(r) ? r.ints(size) : IntStream.generate(() -> drawInt(site)).limit(size);
    }

    /** {@code Random.ints(int, int)}. */
    public static IntStream ints(Random r, int origin, int bound, int site) {
        return origin >= bound || Seeded.contains(r) ? r.ints(origin, bound)
                : IntStream.generate(() -> drawInt(site, origin, bound));
    }

    /** {@code Random.ints(long, int, int)}. */
    public static IntStream ints(Random r, long size, int origin, int bound, int site) {
        return size < 0 || origin >= bound || Seeded.contains(r) ? r.ints(size, origin, bound)
                : IntStream.generate(() -> drawInt(site, origin, bound)).limit(size);
    }

    /** {@code Random.longs(long)}. */
    public static LongStream longs(Random r, long size, int site) {
        return size < 0 || Seeded.contains(r) ? r.longs(size) : LongStream.generate(() -> drawLong(site)).limit(size);
    }

    /** {@code Random.longs(long, long, long)}. */
    public static LongStream longs(Random r, long size, long origin, long bound, int site) {
        return size < 0 || origin >= bound || Seeded.contains(r) ? r.longs(size, origin, bound)
                : LongStream.generate(() -> drawLong(site, origin, bound)).limit(size);
    }

    /** {@code Random.doubles(long)}. */
    public static DoubleStream doubles(Random r, long size, int site) {
        return size < 0 || Seeded.contains(r) ? r.doubles(size)
                : DoubleStream.generate(() -> drawUnit(site)).limit(size);
    }

    /** {@code Random.longs()}. */
    public static LongStream longs(Random r, int site) {
        return Seeded.contains(r) ? r.longs() : LongStream.generate(() -> drawLong(site));
    }

    /** {@code Random.longs(long, long)}. */
    public static LongStream longs(Random r, long origin, long bound, int site) {
        return origin >= bound || Seeded.contains(r) ? r.longs(origin, bound)
                : LongStream.generate(() -> drawLong(site, origin, bound));
    }

    /** {@code Random.doubles()}. */
    public static DoubleStream doubles(Random r, int site) {
        return Seeded.contains(r) ? r.doubles() : DoubleStream.generate(() -> drawUnit(site));
    }

    /** {@code Random.doubles(double, double)}. */
    public static DoubleStream doubles(Random r, double origin, double bound, int site) {
        return !(origin < bound && bound - origin < Double.POSITIVE_INFINITY) || Seeded.contains(r)
                ? r.doubles(origin, bound) : DoubleStream.generate(() -> drawDouble(site, origin, bound));
    }

    /** {@code Random.doubles(long, double, double)}. */
    public static DoubleStream doubles(Random r, long size, double origin, double bound, int site) {
        return size < 0 || !(origin < bound && bound - origin < Double.POSITIVE_INFINITY) || Seeded.contains(r)
                ? r.doubles(size, origin, bound)
                : DoubleStream.generate(() -> drawDouble(site, origin, bound)).limit(size);
    }

    private static double drawUnit(int site) {
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble() : Draws.unit();
    }

    private static double drawDouble(int site, double origin, double bound) {
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble(origin, bound) : Draws.inRange(origin, bound);
    }

    private static int drawInt(int site) {
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt() : (int) Draws.inRange(Integer.MIN_VALUE, Integer.MAX_VALUE, k);
    }

    private static int drawInt(int site, int origin, int bound) {
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt(origin, bound) : (int) Draws.inRange(origin, bound - 1L, k);
    }

    private static long drawLong(int site) {
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong() : Draws.inRange(Long.MIN_VALUE, Long.MAX_VALUE, k);
    }

    private static long drawLong(int site, long origin, long bound) {
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong(origin, bound) : Draws.inRange(origin, bound - 1, k);
    }

    /** {@code SplittableRandom.nextInt()}. */
    public static int splitNextInt(SplittableRandom r, int site) {
        if (Seeded.contains(r)) {
            return r.nextInt();
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt()
                : (int) logged(site, Explain.on ? r.nextInt() : null, Draws.inRange(Integer.MIN_VALUE, Integer.MAX_VALUE, k));
    }

    /** {@code SplittableRandom.nextInt(int)}. */
    public static int splitNextInt(SplittableRandom r, int bound, int site) {
        if (bound <= 0 || Seeded.contains(r)) {
            return r.nextInt(bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt(bound)
                : (int) logged(site, Explain.on ? r.nextInt(bound) : null, Draws.inRange(0, bound - 1L, k));
    }

    /** {@code SplittableRandom.nextInt(int, int)}. */
    public static int splitNextInt(SplittableRandom r, int origin, int bound, int site) {
        if (origin >= bound || Seeded.contains(r)) {
            return r.nextInt(origin, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt(origin, bound)
                : (int) logged(site, Explain.on ? r.nextInt(origin, bound) : null, Draws.inRange(origin, bound - 1L, k));
    }

    /** {@code SplittableRandom.nextLong()}. */
    public static long splitNextLong(SplittableRandom r, int site) {
        if (Seeded.contains(r)) {
            return r.nextLong();
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong()
                : logged(site, Explain.on ? r.nextLong() : null, Draws.inRange(Long.MIN_VALUE, Long.MAX_VALUE, k));
    }

    /** {@code SplittableRandom.nextLong(long)}. */
    public static long splitNextLong(SplittableRandom r, long bound, int site) {
        if (bound <= 0 || Seeded.contains(r)) {
            return r.nextLong(bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong(bound)
                : logged(site, Explain.on ? r.nextLong(bound) : null, Draws.inRange(0, bound - 1, k));
    }

    /** {@code SplittableRandom.nextLong(long, long)}. */
    public static long splitNextLong(SplittableRandom r, long origin, long bound, int site) {
        if (origin >= bound || Seeded.contains(r)) {
            return r.nextLong(origin, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong(origin, bound)
                : logged(site, Explain.on ? r.nextLong(origin, bound) : null, Draws.inRange(origin, bound - 1, k));
    }

    /** {@code SplittableRandom.nextBoolean()}. */
    public static boolean splitNextBoolean(SplittableRandom r, int site) {
        if (Seeded.contains(r)) {
            return r.nextBoolean();
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextBoolean()
                : logged(site, Explain.on ? r.nextBoolean() : null, Draws.inRange(0, 1, k)) == 1;
    }

    /** {@code SplittableRandom.nextDouble(double)}. */
    public static double splitNextDouble(SplittableRandom r, double bound, int site) {
        if (!(bound > 0 && bound < Double.POSITIVE_INFINITY) || Seeded.contains(r)) {
            return r.nextDouble(bound);
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble(bound)
                : logged(site, Explain.on ? r.nextDouble(bound) : null, Draws.inRange(0, bound));
    }

    /** {@code SplittableRandom.nextDouble(double, double)}. */
    public static double splitNextDouble(SplittableRandom r, double origin, double bound, int site) {
        if (!(origin < bound && bound - origin < Double.POSITIVE_INFINITY) || Seeded.contains(r)) {
            return r.nextDouble(origin, bound);
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble(origin, bound)
                : logged(site, Explain.on ? r.nextDouble(origin, bound) : null, Draws.inRange(origin, bound));
    }

    /** {@code SplittableRandom.nextDouble()}. */
    public static double splitNextDouble(SplittableRandom r, int site) {
        if (Seeded.contains(r)) {
            return r.nextDouble();
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble()
                : logged(site, Explain.on ? r.nextDouble() : null, Draws.unit());
    }

    /** JDK 17's interface of every generator; project calls through it are perturbed like Random's. */
    private static final String GENERATOR = "java.util.random.RandomGenerator";

    /** {@code RandomGeneratorFactory.create(long)} (JDK 17): the generator made is seeded, so never perturbed. */
    public static Object seededGenerator(Object factory, long seed) {
        Object generator = Jdk.call("java.util.random.RandomGeneratorFactory", "create", factory, seed);
        Seeded.mark(generator);
        return generator;
    }

    /** {@code RandomGenerator.nextInt()} (JDK 17). */
    public static int generatorNextInt(Object g, int site) {
        if (Seeded.contains(g)) {
            return (int) Jdk.call(GENERATOR, "nextInt", g);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt() : (int) logged(site,
                Explain.on ? Jdk.call(GENERATOR, "nextInt", g) : null, Draws.inRange(Integer.MIN_VALUE, Integer.MAX_VALUE, k));
    }

    /** {@code RandomGenerator.nextInt(int)} (JDK 17): n-1 first for the maximum. */
    public static int generatorNextInt(Object g, int bound, int site) {
        if (bound <= 0 || Seeded.contains(g)) {
            return (int) Jdk.call(GENERATOR, "nextInt", g, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt(bound) : (int) logged(site,
                Explain.on ? Jdk.call(GENERATOR, "nextInt", g, bound) : null, Draws.inRange(0, bound - 1L, k));
    }

    /** {@code RandomGenerator.nextInt(int, int)} (JDK 17): b-1 first for the maximum. */
    public static int generatorNextInt(Object g, int origin, int bound, int site) {
        if (origin >= bound || Seeded.contains(g)) {
            return (int) Jdk.call(GENERATOR, "nextInt", g, origin, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextInt(origin, bound) : (int) logged(site,
                Explain.on ? Jdk.call(GENERATOR, "nextInt", g, origin, bound) : null, Draws.inRange(origin, bound - 1L, k));
    }

    /** {@code RandomGenerator.nextLong()} (JDK 17). */
    public static long generatorNextLong(Object g, int site) {
        if (Seeded.contains(g)) {
            return (long) Jdk.call(GENERATOR, "nextLong", g);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong() : logged(site,
                Explain.on ? Jdk.call(GENERATOR, "nextLong", g) : null, Draws.inRange(Long.MIN_VALUE, Long.MAX_VALUE, k));
    }

    /** {@code RandomGenerator.nextLong(long)} (JDK 17): n-1 first for the maximum. */
    public static long generatorNextLong(Object g, long bound, int site) {
        if (bound <= 0 || Seeded.contains(g)) {
            return (long) Jdk.call(GENERATOR, "nextLong", g, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong(bound) : logged(site,
                Explain.on ? Jdk.call(GENERATOR, "nextLong", g, bound) : null, Draws.inRange(0, bound - 1, k));
    }

    /** {@code RandomGenerator.nextLong(long, long)} (JDK 17): b-1 first for the maximum. */
    public static long generatorNextLong(Object g, long origin, long bound, int site) {
        if (origin >= bound || Seeded.contains(g)) {
            return (long) Jdk.call(GENERATOR, "nextLong", g, origin, bound);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextLong(origin, bound) : logged(site,
                Explain.on ? Jdk.call(GENERATOR, "nextLong", g, origin, bound) : null, Draws.inRange(origin, bound - 1, k));
    }

    /** {@code RandomGenerator.nextDouble()} (JDK 17). */
    public static double generatorNextDouble(Object g, int site) {
        if (Seeded.contains(g)) {
            return (double) Jdk.call(GENERATOR, "nextDouble", g);
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble()
                : logged(site, Explain.on ? Jdk.call(GENERATOR, "nextDouble", g) : null, Draws.unit());
    }

    /** {@code RandomGenerator.nextDouble(double)} (JDK 17). */
    public static double generatorNextDouble(Object g, double bound, int site) {
        if (!(bound > 0 && bound < Double.POSITIVE_INFINITY) || Seeded.contains(g)) {
            return (double) Jdk.call(GENERATOR, "nextDouble", g, bound);
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble(bound)
                : logged(site, Explain.on ? Jdk.call(GENERATOR, "nextDouble", g, bound) : null, Draws.inRange(0, bound));
    }

    /** {@code RandomGenerator.nextDouble(double, double)} (JDK 17). */
    public static double generatorNextDouble(Object g, double origin, double bound, int site) {
        if (!(origin < bound && bound - origin < Double.POSITIVE_INFINITY) || Seeded.contains(g)) {
            return (double) Jdk.call(GENERATOR, "nextDouble", g, origin, bound);
        }
        return Draws.extreme(site) == 0 ? Draws.real(site).nextDouble(origin, bound) : logged(site,
                Explain.on ? Jdk.call(GENERATOR, "nextDouble", g, origin, bound) : null, Draws.inRange(origin, bound));
    }

    /** {@code RandomGenerator.nextBoolean()} (JDK 17): true first for the maximum. */
    public static boolean generatorNextBoolean(Object g, int site) {
        if (Seeded.contains(g)) {
            return (boolean) Jdk.call(GENERATOR, "nextBoolean", g);
        }
        int k = Draws.extreme(site);
        return k == 0 ? Draws.real(site).nextBoolean()
                : logged(site, Explain.on ? Jdk.call(GENERATOR, "nextBoolean", g) : null, Draws.inRange(0, 1, k)) == 1;
    }

    /** {@code RandomGenerator.nextFloat()} (JDK 17). */
    public static float generatorNextFloat(Object g, int site) {
        if (Seeded.contains(g)) {
            return (float) Jdk.call(GENERATOR, "nextFloat", g);
        }
        return Draws.extreme(site) == 0 ? (Draws.real(site).nextInt() >>> 8) * 0x1.0p-24f
                : (float) logged(site, Explain.on ? Jdk.call(GENERATOR, "nextFloat", g) : null, Draws.unitFloat());
    }

    /**
     * Calls {@code name} of a generator that is not a {@code Random} unperturbed: SplittableRandom's own method, or
     * JDK 17's RandomGenerator interface method (which SplittableRandom implements there too).
     */
    private static Object original(Object g, String name, Object... args) {
        return g instanceof SplittableRandom ? Jdk.call(g, name, args) : Jdk.call(GENERATOR, name, g, args);
    }

    /** {@code nextGaussian()} of SplittableRandom and RandomGenerator (JDK 17). */
    public static double generatorNextGaussian(Object g, int site) {
        if (Seeded.contains(g)) {
            return (double) original(g, "nextGaussian");
        }
        return Draws.extreme(site) == 0 ? Draws.realGaussian(Draws.real(site))
                : logged(site, Explain.on ? original(g, "nextGaussian") : null, Draws.gaussian());
    }

    /** {@code nextGaussian(double, double)} of every generator (JDK 17): the mean plus the tail value's deviations. */
    public static double generatorNextGaussian(Object g, double mean, double stddev, int site) {
        if (!(stddev >= 0) || Seeded.contains(g)) {
            return (double) original(g, "nextGaussian", mean, stddev);
        }
        return Draws.extreme(site) == 0 ? mean + stddev * Draws.realGaussian(Draws.real(site))
                : logged(site, Explain.on ? original(g, "nextGaussian", mean, stddev) : null, Draws.gaussian(mean, stddev));
    }

    /** {@code nextExponential()} of every generator (JDK 17). */
    public static double generatorNextExponential(Object g, int site) {
        if (Seeded.contains(g)) {
            return (double) original(g, "nextExponential");
        }
        return Draws.extreme(site) == 0 ? Draws.realExponential(Draws.real(site))
                : logged(site, Explain.on ? original(g, "nextExponential") : null, Draws.exponential());
    }

    /** {@code nextFloat(float)} of every generator (JDK 17): just below the bound for the maximum. */
    public static float generatorNextFloat(Object g, float bound, int site) {
        return generatorNextFloat(g, 0f, bound, site, true);
    }

    /** {@code nextFloat(float, float)} of every generator (JDK 17). */
    public static float generatorNextFloat(Object g, float origin, float bound, int site) {
        return generatorNextFloat(g, origin, bound, site, false);
    }

    private static float generatorNextFloat(Object g, float origin, float bound, int site, boolean bounded) {
        boolean valid = bounded ? bound > 0 && bound < Float.POSITIVE_INFINITY
                : origin < bound && bound - origin < Float.POSITIVE_INFINITY;
        if (!valid || Seeded.contains(g)) {
            return bounded ? (float) original(g, "nextFloat", bound) : (float) original(g, "nextFloat", origin, bound);
        }
        if (Draws.extreme(site) == 0) {
            float f = origin + (Draws.real(site).nextInt() >>> 8) * 0x1.0p-24f * (bound - origin);
            return f < bound ? f : Math.nextDown(bound);
        }
        Object o = !Explain.on ? null : bounded ? original(g, "nextFloat", bound) : original(g, "nextFloat", origin, bound);
        return (float) logged(site, o, Draws.inRange(origin, bound));
    }

    /** {@code nextBytes(byte[])} of SplittableRandom and RandomGenerator (JDK 17). */
    public static void generatorNextBytes(Object g, byte[] bytes, int site) {
        if (bytes == null || Seeded.contains(g)) {
            original(g, "nextBytes", (Object) bytes);
            return;
        }
        fillBytes(bytes, site, () -> original(g, "nextBytes", (Object) bytes.clone()));
    }

    /** {@code ints()} of SplittableRandom and RandomGenerator: every element a draw at the site. */
    public static IntStream generatorInts(Object g, int site) {
        return Seeded.contains(g) ? (IntStream) original(g, "ints") : IntStream.generate(() -> drawInt(site));
    }

    /** {@code ints(long)} of SplittableRandom and RandomGenerator. */
    public static IntStream generatorInts(Object g, long size, int site) {
        return size < 0 || Seeded.contains(g) ? (IntStream) original(g, "ints", size)
                : IntStream.generate(() -> drawInt(site)).limit(size);
    }

    /** {@code ints(int, int)} of SplittableRandom and RandomGenerator. */
    public static IntStream generatorInts(Object g, int origin, int bound, int site) {
        return origin >= bound || Seeded.contains(g) ? (IntStream) original(g, "ints", origin, bound)
                : IntStream.generate(() -> drawInt(site, origin, bound));
    }

    /** {@code ints(long, int, int)} of SplittableRandom and RandomGenerator. */
    public static IntStream generatorInts(Object g, long size, int origin, int bound, int site) {
        return size < 0 || origin >= bound || Seeded.contains(g) ? (IntStream) original(g, "ints", size, origin, bound)
                : IntStream.generate(() -> drawInt(site, origin, bound)).limit(size);
    }

    /** {@code longs()} of SplittableRandom and RandomGenerator. */
    public static LongStream generatorLongs(Object g, int site) {
        return Seeded.contains(g) ? (LongStream) original(g, "longs") : LongStream.generate(() -> drawLong(site));
    }

    /** {@code longs(long)} of SplittableRandom and RandomGenerator. */
    public static LongStream generatorLongs(Object g, long size, int site) {
        return size < 0 || Seeded.contains(g) ? (LongStream) original(g, "longs", size)
                : LongStream.generate(() -> drawLong(site)).limit(size);
    }

    /** {@code longs(long, long)} of SplittableRandom and RandomGenerator. */
    public static LongStream generatorLongs(Object g, long origin, long bound, int site) {
        return origin >= bound || Seeded.contains(g) ? (LongStream) original(g, "longs", origin, bound)
                : LongStream.generate(() -> drawLong(site, origin, bound));
    }

    /** {@code longs(long, long, long)} of SplittableRandom and RandomGenerator. */
    public static LongStream generatorLongs(Object g, long size, long origin, long bound, int site) {
        return size < 0 || origin >= bound || Seeded.contains(g) ? (LongStream) original(g, "longs", size, origin, bound)
                : LongStream.generate(() -> drawLong(site, origin, bound)).limit(size);
    }

    /** {@code doubles()} of SplittableRandom and RandomGenerator. */
    public static DoubleStream generatorDoubles(Object g, int site) {
        return Seeded.contains(g) ? (DoubleStream) original(g, "doubles") : DoubleStream.generate(() -> drawUnit(site));
    }

    /** {@code doubles(long)} of SplittableRandom and RandomGenerator. */
    public static DoubleStream generatorDoubles(Object g, long size, int site) {
        return size < 0 || Seeded.contains(g) ? (DoubleStream) original(g, "doubles", size)
                : DoubleStream.generate(() -> drawUnit(site)).limit(size);
    }

    /** {@code doubles(double, double)} of SplittableRandom and RandomGenerator. */
    public static DoubleStream generatorDoubles(Object g, double origin, double bound, int site) {
        return !(origin < bound && bound - origin < Double.POSITIVE_INFINITY) || Seeded.contains(g)
                ? (DoubleStream) original(g, "doubles", origin, bound)
                : DoubleStream.generate(() -> drawDouble(site, origin, bound));
    }

    /** {@code doubles(long, double, double)} of SplittableRandom and RandomGenerator. */
    public static DoubleStream generatorDoubles(Object g, long size, double origin, double bound, int site) {
        return size < 0 || !(origin < bound && bound - origin < Double.POSITIVE_INFINITY) || Seeded.contains(g)
                ? (DoubleStream) original(g, "doubles", size, origin, bound)
                : DoubleStream.generate(() -> drawDouble(site, origin, bound)).limit(size);
    }

    // ---- LOCALE ----

    /** Placed before a project call that reads the default locale, which the agent has changed in the JDK. */
    public static void locale(int site) {
        Sites.hit(site);
        if (Explain.on) {
            Explain.log(site, "the machine's default locale", java.util.Locale.getDefault());
        }
    }

    // ---- SLEEP ----

    /**
     * {@code Thread.sleep(long)}: longer by the configured delta, or shorter (floored at 0). SLEEP_INCREASE lengthens
     * only the first {@code chaos.sleep.limit} sleeps per call site and JVM (a plausible extreme: a machine slow for
     * a while, not forever), so a library polling with short sleeps is slowed once, not at every poll; later sleeps
     * at the site sleep their real duration.
     */
    public static void sleep(long millis, int site) throws InterruptedException {
        if (millis < 0) {
            Thread.sleep(millis);
            return;
        }
        long perturbed = perturbs(site) ? sleepMillis(millis) : millis;
        if (perturbed != millis) {
            Sites.hit(site);
            if (Explain.on) {
                Explain.log(site, millis + " ms", perturbed + " ms");
            }
        }
        Pauses.millis(perturbed);
    }

    /** Whether this sleep at {@code site} is perturbed: always for SLEEP_DECREASE, within the limit for SLEEP_INCREASE. */
    private static boolean perturbs(int site) {
        return !sleepIncrease || sleepLimit == 0 || Sites.countInJvm(site) <= sleepLimit;
    }

    private static long sleepMillis(long millis) {
        return sleepIncrease ? (millis > Long.MAX_VALUE - sleepDelta ? Long.MAX_VALUE : millis + sleepDelta)
                : Math.max(0, millis - sleepDelta);
    }

    /** {@code Thread.sleep(Duration)} (JDK 19+), perturbed as {@link #sleep}. */
    public static void sleepDuration(Object duration, int site) throws InterruptedException {
        java.time.Duration d = (java.time.Duration) duration;
        if (d.isNegative()) {
            return;
        }
        long millis = d.getSeconds() >= Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : d.toMillis();
        sleep(millis, site);
    }

    /** {@code TimeUnit.sleep(long)}, perturbed as {@link #sleep} (in milliseconds). */
    public static void sleepUnit(TimeUnit unit, long timeout, int site) throws InterruptedException {
        if (timeout <= 0 || !perturbs(site)) {
            unit.sleep(timeout);
            return;
        }
        long nanos = unit.toNanos(timeout);
        long perturbed = TimeUnit.MILLISECONDS.toNanos(sleepMillis(TimeUnit.NANOSECONDS.toMillis(nanos)))
                + (sleepIncrease ? nanos % 1_000_000L : 0);
        if (perturbed != nanos) {
            Sites.hit(site);
            if (Explain.on) {
                Explain.log(site, timeout + " " + unit, perturbed + " NANOSECONDS");
            }
        }
        Pauses.nanos(perturbed);
    }

    // ---- CONCURRENCY ----

    /** {@code Object.wait(long)} with the timeout shrunk (0, "forever", stays 0). */
    public static void objectWait(Object o, long millis, int site) throws InterruptedException {
        o.wait(shrinkMillis(millis, site));
    }

    /** {@code Thread.join(long)} with the timeout shrunk. */
    public static void join(Thread t, long millis, int site) throws InterruptedException {
        t.join(shrinkMillis(millis, site));
    }

    /** {@code CountDownLatch.await(long, TimeUnit)} with the timeout shrunk. */
    public static boolean await(CountDownLatch latch, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        return nanos <= 0 ? latch.await(timeout, unit) : latch.await(shrinkNanos(nanos, site), TimeUnit.NANOSECONDS);
    }

    /** {@code Future.get(long, TimeUnit)} with the timeout shrunk. */
    public static Object get(Future<?> future, long timeout, TimeUnit unit, int site)
            throws InterruptedException, ExecutionException, TimeoutException {
        long nanos = unit.toNanos(timeout);
        return nanos <= 0 ? future.get(timeout, unit) : future.get(shrinkNanos(nanos, site), TimeUnit.NANOSECONDS);
    }

    /** {@code Semaphore.tryAcquire(long, TimeUnit)} with the timeout shrunk. */
    public static boolean tryAcquire(Semaphore semaphore, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        return nanos <= 0 ? semaphore.tryAcquire(timeout, unit)
                : semaphore.tryAcquire(shrinkNanos(nanos, site), TimeUnit.NANOSECONDS);
    }

    /** {@code BlockingQueue.poll(long, TimeUnit)} with the timeout shrunk. */
    public static Object poll(BlockingQueue<?> queue, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        return nanos <= 0 ? queue.poll(timeout, unit) : queue.poll(shrinkNanos(nanos, site), TimeUnit.NANOSECONDS);
    }

    /** {@code Process.waitFor(long, TimeUnit)} with the timeout shrunk. */
    public static boolean waitFor(Process process, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        return nanos <= 0 ? process.waitFor(timeout, unit)
                : process.waitFor(shrinkNanos(nanos, site), TimeUnit.NANOSECONDS);
    }

    /** {@code Condition.await(long, TimeUnit)} with the timeout shrunk. */
    public static boolean conditionAwait(Condition condition, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        return nanos <= 0 ? condition.await(timeout, unit)
                : condition.await(shrinkNanos(nanos, site), TimeUnit.NANOSECONDS);
    }

    /** {@code ExecutorService.awaitTermination(long, TimeUnit)} with the timeout shrunk. */
    public static boolean awaitTermination(ExecutorService executor, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        return nanos <= 0 ? executor.awaitTermination(timeout, unit)
                : executor.awaitTermination(shrinkNanos(nanos, site), TimeUnit.NANOSECONDS);
    }

    /** {@code CompletableFuture.orTimeout(long, TimeUnit)} (JDK 9+) with the timeout shrunk. */
    public static CompletableFuture<?> orTimeout(CompletableFuture<?> future, long timeout, TimeUnit unit, int site) {
        long nanos = unit.toNanos(timeout);
        long shrunk = nanos <= 0 ? nanos : shrinkNanos(nanos, site);
        return (CompletableFuture<?>) Jdk.call(future, "orTimeout", shrunk, TimeUnit.NANOSECONDS);
    }

    /** {@code LockSupport.parkNanos(long)} with the timeout shrunk. */
    public static void parkNanos(long nanos, int site) {
        LockSupport.parkNanos(nanos <= 0 ? nanos : shrinkNanos(nanos, site));
    }

    /** {@code LockSupport.parkNanos(Object, long)} with the timeout shrunk. */
    public static void parkNanos(Object blocker, long nanos, int site) {
        LockSupport.parkNanos(blocker, nanos <= 0 ? nanos : shrinkNanos(nanos, site));
    }

    /** A positive millisecond timeout times the factor, at least 1 (0 would mean "forever" for wait and join). */
    private static long shrinkMillis(long millis, int site) {
        if (millis <= 0) {
            return millis;
        }
        Sites.hit(site);
        return Math.max(1, (long) (millis * concurrencyFactor));
    }

    private static long shrinkNanos(long nanos, int site) {
        Sites.hit(site);
        long shrunk = Math.max(1, (long) (nanos * concurrencyFactor));
        if (Explain.on) {
            Explain.log(site, nanos + " ns", shrunk + " ns");
        }
        return shrunk;
    }

    // ---- ITERATION_ORDER ----

    /** {@code Map.keySet()}: a shuffled view for HashMap and ConcurrentHashMap. */
    public static Set<?> keySet(Map<?, ?> map, int site) {
        Set<?> keys = map.keySet();
        if (!Shuffler.shuffles(map, site)) {
            return keys;
        }
        Sites.hit(site);
        return new ShuffledSet<>(keys, map, site);
    }

    /** {@code Map.values()}: a shuffled view for HashMap and ConcurrentHashMap. */
    public static Collection<?> values(Map<?, ?> map, int site) {
        Collection<?> values = map.values();
        if (!Shuffler.shuffles(map, site)) {
            return values;
        }
        Sites.hit(site);
        return new ShuffledCollection<>(values, map, site);
    }

    /** {@code Map.entrySet()}: a shuffled view for HashMap and ConcurrentHashMap. */
    public static Set<?> entrySet(Map<?, ?> map, int site) {
        Set<?> entries = map.entrySet();
        if (!Shuffler.shuffles(map, site)) {
            return entries;
        }
        Sites.hit(site);
        return new ShuffledSet<>(entries, map, site);
    }

    /** {@code Iterable.iterator()}: shuffled for HashSet and the hash maps' views. */
    public static Iterator<?> iterator(Iterable<?> iterable, int site) {
        if (!Shuffler.shuffles(iterable, site)) {
            return iterable.iterator();
        }
        Sites.hit(site);
        return Shuffler.view((Collection<?>) iterable, site).iterator();
    }

    /** {@code Iterable.forEach(Consumer)}: in the shuffled order for HashSet and the hash maps' views. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void forEach(Iterable iterable, Consumer action, int site) {
        if (!Shuffler.shuffles(iterable, site)) {
            iterable.forEach(action);
            return;
        }
        Sites.hit(site);
        Shuffler.view((Collection<?>) iterable, site).forEach(action);
    }

    /** {@code Map.forEach(BiConsumer)}: in the shuffled order for HashMap and ConcurrentHashMap. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void forEachEntry(Map map, BiConsumer action, int site) {
        if (!Shuffler.shuffles(map, site)) {
            map.forEach(action);
            return;
        }
        Sites.hit(site);
        new ShuffledMap<>(map, site).forEach(action);
    }

    /** {@code Iterable.spliterator()}. */
    public static Spliterator<?> spliterator(Iterable<?> iterable, int site) {
        if (!Shuffler.shuffles(iterable, site)) {
            return iterable.spliterator();
        }
        Sites.hit(site);
        return Shuffler.view((Collection<?>) iterable, site).spliterator();
    }

    /** {@code Collection.stream()}. */
    public static Stream<?> stream(Collection<?> collection, int site) {
        if (!Shuffler.shuffles(collection, site)) {
            return collection.stream();
        }
        Sites.hit(site);
        return Shuffler.view(collection, site).stream();
    }

    /** {@code Collection.parallelStream()}. */
    public static Stream<?> parallelStream(Collection<?> collection, int site) {
        if (!Shuffler.shuffles(collection, site)) {
            return collection.parallelStream();
        }
        Sites.hit(site);
        return Shuffler.view(collection, site).parallelStream();
    }

    /** {@code Collection.toArray()}. */
    public static Object[] toArray(Collection<?> collection, int site) {
        if (!Shuffler.shuffles(collection, site)) {
            return collection.toArray();
        }
        Sites.hit(site);
        return Shuffler.permute(collection.toArray(), Shuffler.token(collection, site));
    }

    /** {@code Collection.toArray(T[])}. */
    public static Object[] toArray(Collection<?> collection, Object[] array, int site) {
        if (!Shuffler.shuffles(collection, site)) {
            return collection.toArray(array);
        }
        Sites.hit(site);
        return Shuffler.view(collection, site).toArray(array);
    }

    /** {@code toString()} of a map or collection, which lists the elements in iteration order. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static String toString(Object o, int site) {
        if (!Shuffler.shuffles(o, site)) {
            return o.toString();
        }
        Sites.hit(site);
        if (o instanceof Map) {
            return new ShuffledMap<>((Map) o, site).toString();
        }
        return Shuffler.view((Collection<?>) o, site).toString();
    }

    /** Filters a collection argument that the callee copies in iteration order (ArrayList(Collection), addAll). */
    public static Collection<?> ordered(Collection<?> collection, int site) {
        if (!Shuffler.shuffles(collection, site)) {
            return collection;
        }
        Sites.hit(site);
        return Shuffler.view(collection, site);
    }

    /** Filters an iterable argument that the callee walks in order ({@code String.join}). */
    public static Iterable<?> orderedIterable(Iterable<?> iterable, int site) {
        if (!Shuffler.shuffles(iterable, site)) {
            return iterable;
        }
        Sites.hit(site);
        return Shuffler.view((Collection<?>) iterable, site);
    }

    /** Filters a map argument that the callee copies in iteration order (LinkedHashMap(Map), putAll). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Map<?, ?> orderedMap(Map<?, ?> map, int site) {
        if (!Shuffler.shuffles(map, site)) {
            return map;
        }
        Sites.hit(site);
        return new ShuffledMap<>((Map) map, site);
    }

    /** {@code Class.getDeclaredMethods()} in the shuffled order (one per class and JVM, see {@link Shuffler}). */
    public static Method[] getDeclaredMethods(Class<?> c, int site) {
        return shuffled(c.getDeclaredMethods(), Shuffler.memberToken(c, "getDeclaredMethods"), site);
    }

    /** {@code Class.getMethods()} in the shuffled order. */
    public static Method[] getMethods(Class<?> c, int site) {
        return shuffled(c.getMethods(), Shuffler.memberToken(c, "getMethods"), site);
    }

    /** {@code Class.getDeclaredFields()} in the shuffled order. */
    public static Field[] getDeclaredFields(Class<?> c, int site) {
        return shuffled(c.getDeclaredFields(), Shuffler.memberToken(c, "getDeclaredFields"), site);
    }

    /** {@code Class.getFields()} in the shuffled order. */
    public static Field[] getFields(Class<?> c, int site) {
        return shuffled(c.getFields(), Shuffler.memberToken(c, "getFields"), site);
    }

    private static <T> T[] shuffled(T[] members, long token, int site) {
        if (members.length < 2 || !Sites.shuffled(site)) {
            return members;
        }
        Sites.hit(site);
        return Shuffler.permute(members, token);
    }
}
