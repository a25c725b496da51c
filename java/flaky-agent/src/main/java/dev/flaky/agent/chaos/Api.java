package dev.flaky.agent.chaos;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.Date;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.Spliterator;
import java.util.concurrent.BlockingQueue;
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
    private static final double LARGEST_BELOW_ONE = Math.nextDown(1.0);

    private static ChaosConfig.RandomMode randomMode = ChaosConfig.RandomMode.MAX;
    private static double randomValue;
    private static PerceivedClock clock;
    private static long dateMillis;
    private static long sleepDelta;
    private static boolean sleepIncrease;
    private static double concurrencyFactor;
    private static double networkFactor;
    private static long resolveDelayMs;

    private Api() {
    }

    /** Sets the parameters; called once by {@link Chaos#install} before any project class is loaded. */
    static void configure(ChaosConfig c) {
        randomMode = c.randomMode;
        randomValue = c.randomValue;
        Strategy time = c.inGroup("TIME");
        clock = time == null ? null
                : new PerceivedClock(time, c.timeIncrementMs, c.timeGranularityMs, c.timeFast, c.timeSlow);
        dateMillis = c.dateMillis;
        sleepDelta = c.sleepMs;
        sleepIncrease = c.enabled(Strategy.SLEEP_INCREASE);
        concurrencyFactor = c.concurrencyFactor;
        networkFactor = c.networkFactor;
        resolveDelayMs = c.resolveDelayMs;
        Shuffler.seed(c.seed);
    }

    // ---- RANDOM ----

    /** {@code Random.nextInt()} and {@code ThreadLocalRandom.nextInt()}. */
    public static int nextInt(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextInt();
        }
        Sites.hit(site);
        return (int) clamp(Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** {@code Random.nextInt(int)} and {@code ThreadLocalRandom.nextInt(int)}: n-1 for the maximum. */
    public static int nextInt(Random r, int bound, int site) {
        if (bound <= 0 || Seeded.contains(r)) {
            return r.nextInt(bound);
        }
        Sites.hit(site);
        return (int) clamp(0, bound - 1L);
    }

    /** {@code ThreadLocalRandom.nextInt(int, int)}: b-1 for the maximum. */
    public static int nextInt(ThreadLocalRandom r, int origin, int bound, int site) {
        if (origin >= bound) {
            return r.nextInt(origin, bound);
        }
        Sites.hit(site);
        return (int) clamp(origin, bound - 1L);
    }

    /** {@code Random.nextLong()} and {@code ThreadLocalRandom.nextLong()}. */
    public static long nextLong(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextLong();
        }
        Sites.hit(site);
        switch (randomMode) {
            case MAX:
                return Long.MAX_VALUE;
            case MIN:
                return Long.MIN_VALUE;
            default:
                return (long) randomValue;
        }
    }

    /** {@code Random.nextDouble()} and {@code ThreadLocalRandom.nextDouble()}: the largest double below 1. */
    public static double nextDouble(Random r, int site) {
        if (Seeded.contains(r)) {
            return r.nextDouble();
        }
        Sites.hit(site);
        return unitDouble();
    }

    /** {@code Math.random()}. */
    public static double random(int site) {
        Sites.hit(site);
        return unitDouble();
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

    private static long clamp(long min, long max) {
        switch (randomMode) {
            case MAX:
                return max;
            case MIN:
                return min;
            default:
                return (long) Math.max(min, Math.min(max, randomValue));
        }
    }

    private static double unitDouble() {
        switch (randomMode) {
            case MAX:
                return LARGEST_BELOW_ONE;
            case MIN:
                return 0.0;
            default:
                return Math.max(0.0, Math.min(LARGEST_BELOW_ONE, randomValue));
        }
    }

    // ---- TIME ----

    /** {@code System.currentTimeMillis()} on the perceived clock. */
    public static long currentTimeMillis(int site) {
        Sites.hit(site);
        return clock.currentTimeMillis();
    }

    /** {@code System.nanoTime()} on the perceived clock. */
    public static long nanoTime(int site) {
        Sites.hit(site);
        return clock.nanoTime();
    }

    // ---- DATE ----

    /** {@code new Date()}: the configured moment. */
    public static Date newDate(int site) {
        Sites.hit(site);
        return new Date(dateMillis);
    }

    // ---- LOCALE ----

    /** Placed before a project call that reads the default locale, which the agent has changed in the JDK. */
    public static void locale(int site) {
        Sites.hit(site);
    }

    // ---- SLEEP ----

    /** {@code Thread.sleep(long)}: longer by the configured delta, or shorter (floored at 0). */
    public static void sleep(long millis, int site) throws InterruptedException {
        if (millis < 0) {
            Thread.sleep(millis);
            return;
        }
        long perturbed = sleepIncrease
                ? (millis > Long.MAX_VALUE - sleepDelta ? Long.MAX_VALUE : millis + sleepDelta)
                : Math.max(0, millis - sleepDelta);
        if (perturbed != millis) {
            Sites.hit(site);
        }
        Thread.sleep(perturbed);
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
        return Math.max(1, (long) (nanos * concurrencyFactor));
    }

    // ---- NETWORK ----

    /**
     * {@code Socket.connect(SocketAddress, int)}: a name-resolution delay, then a pre-delay of (timeout - shrunk
     * timeout) and the connect with the shrunk timeout, so the connect's own budget stays within the original.
     */
    public static void connect(Socket socket, SocketAddress address, int timeout, int site) throws IOException {
        if (timeout < 0) {
            socket.connect(address, timeout);
            return;
        }
        Sites.hit(site);
        pause(resolveDelayMs);
        int perturbed = timeout;
        if (timeout > 0) {
            perturbed = (int) Math.max(1, (long) (timeout * networkFactor));
            pause(timeout - perturbed);
        }
        socket.connect(address, perturbed);
    }

    private static void pause(long millis) throws InterruptedIOException {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while connecting");
        }
    }

    // ---- ITERATION_ORDER ----

    /** {@code Map.keySet()}: a shuffled view for HashMap and ConcurrentHashMap. */
    public static Set<?> keySet(Map<?, ?> map, int site) {
        Set<?> keys = map.keySet();
        if (!Shuffler.shuffles(map)) {
            return keys;
        }
        Sites.hit(site);
        return new ShuffledSet<>(keys);
    }

    /** {@code Map.values()}: a shuffled view for HashMap and ConcurrentHashMap. */
    public static Collection<?> values(Map<?, ?> map, int site) {
        Collection<?> values = map.values();
        if (!Shuffler.shuffles(map)) {
            return values;
        }
        Sites.hit(site);
        return new ShuffledCollection<>(values);
    }

    /** {@code Map.entrySet()}: a shuffled view for HashMap and ConcurrentHashMap. */
    public static Set<?> entrySet(Map<?, ?> map, int site) {
        Set<?> entries = map.entrySet();
        if (!Shuffler.shuffles(map)) {
            return entries;
        }
        Sites.hit(site);
        return new ShuffledSet<>(entries);
    }

    /** {@code Iterable.iterator()}: shuffled for HashSet and the hash maps' views. */
    public static Iterator<?> iterator(Iterable<?> iterable, int site) {
        if (!Shuffler.shuffles(iterable)) {
            return iterable.iterator();
        }
        Sites.hit(site);
        return Shuffler.view((Collection<?>) iterable).iterator();
    }

    /** {@code Iterable.forEach(Consumer)}: in the shuffled order for HashSet and the hash maps' views. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void forEach(Iterable iterable, Consumer action, int site) {
        if (!Shuffler.shuffles(iterable)) {
            iterable.forEach(action);
            return;
        }
        Sites.hit(site);
        Shuffler.view((Collection<?>) iterable).forEach(action);
    }

    /** {@code Map.forEach(BiConsumer)}: in the shuffled order for HashMap and ConcurrentHashMap. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void forEachEntry(Map map, BiConsumer action, int site) {
        if (!Shuffler.shuffles(map)) {
            map.forEach(action);
            return;
        }
        Sites.hit(site);
        new ShuffledMap<>(map).forEach(action);
    }

    /** {@code Iterable.spliterator()}. */
    public static Spliterator<?> spliterator(Iterable<?> iterable, int site) {
        if (!Shuffler.shuffles(iterable)) {
            return iterable.spliterator();
        }
        Sites.hit(site);
        return Shuffler.view((Collection<?>) iterable).spliterator();
    }

    /** {@code Collection.stream()}. */
    public static Stream<?> stream(Collection<?> collection, int site) {
        if (!Shuffler.shuffles(collection)) {
            return collection.stream();
        }
        Sites.hit(site);
        return Shuffler.view(collection).stream();
    }

    /** {@code Collection.parallelStream()}. */
    public static Stream<?> parallelStream(Collection<?> collection, int site) {
        if (!Shuffler.shuffles(collection)) {
            return collection.parallelStream();
        }
        Sites.hit(site);
        return Shuffler.view(collection).parallelStream();
    }

    /** {@code Collection.toArray()}. */
    public static Object[] toArray(Collection<?> collection, int site) {
        if (!Shuffler.shuffles(collection)) {
            return collection.toArray();
        }
        Sites.hit(site);
        return Shuffler.permute(collection.toArray());
    }

    /** {@code Collection.toArray(T[])}. */
    public static Object[] toArray(Collection<?> collection, Object[] array, int site) {
        if (!Shuffler.shuffles(collection)) {
            return collection.toArray(array);
        }
        Sites.hit(site);
        return Shuffler.view(collection).toArray(array);
    }

    /** {@code toString()} of a map or collection, which lists the elements in iteration order. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static String toString(Object o, int site) {
        if (!Shuffler.shuffles(o)) {
            return o.toString();
        }
        Sites.hit(site);
        return o instanceof Map ? new ShuffledMap<>((Map) o).toString() : Shuffler.view((Collection<?>) o).toString();
    }

    /** Filters a collection argument that the callee copies in iteration order (ArrayList(Collection), addAll). */
    public static Collection<?> ordered(Collection<?> collection, int site) {
        if (!Shuffler.shuffles(collection)) {
            return collection;
        }
        Sites.hit(site);
        return Shuffler.view(collection);
    }

    /** Filters an iterable argument that the callee walks in order ({@code String.join}). */
    public static Iterable<?> orderedIterable(Iterable<?> iterable, int site) {
        if (!Shuffler.shuffles(iterable)) {
            return iterable;
        }
        Sites.hit(site);
        return Shuffler.view((Collection<?>) iterable);
    }

    /** Filters a map argument that the callee copies in iteration order (LinkedHashMap(Map), putAll). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Map<?, ?> orderedMap(Map<?, ?> map, int site) {
        if (!Shuffler.shuffles(map)) {
            return map;
        }
        Sites.hit(site);
        return new ShuffledMap<>((Map) map);
    }

    /** {@code Class.getDeclaredMethods()} in the shuffled order. */
    public static Method[] getDeclaredMethods(Class<?> c, int site) {
        return shuffled(c.getDeclaredMethods(), site);
    }

    /** {@code Class.getMethods()} in the shuffled order. */
    public static Method[] getMethods(Class<?> c, int site) {
        return shuffled(c.getMethods(), site);
    }

    /** {@code Class.getDeclaredFields()} in the shuffled order. */
    public static Field[] getDeclaredFields(Class<?> c, int site) {
        return shuffled(c.getDeclaredFields(), site);
    }

    /** {@code Class.getFields()} in the shuffled order. */
    public static Field[] getFields(Class<?> c, int site) {
        return shuffled(c.getFields(), site);
    }

    private static <T> T[] shuffled(T[] members, int site) {
        if (members.length < 2) {
            return members;
        }
        Sites.hit(site);
        return Shuffler.permute(members);
    }
}
