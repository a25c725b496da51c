package dev.flaky.agent.chaos;

import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/** Call sites of target APIs; {@link CallSiteRewriterTest} loads a rewritten copy. */
public class Sample {
    public static int roll(Random random, int bound) {
        return random.nextInt(bound);
    }

    /** Ten coin flips, then a thousand draws of a stream in [5, 6): the extremes come first, then real values. */
    public static String flipsAndStream(Random random) {
        StringBuilder flips = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            flips.append(random.nextBoolean() ? 'H' : 'T');
        }
        double[] draws = random.doubles(1000, 5, 6).toArray();
        return flips + " " + draws[0] + " " + draws[1] + " " + draws[2] + " "
                + java.util.Arrays.stream(draws).filter(d -> d < 5.5).count();
    }

    /** Five Gaussian draws, then five 4-byte arrays, space-separated. */
    public static String gaussiansAndBytes(Random random) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            out.append(random.nextGaussian()).append(' ');
        }
        for (int i = 0; i < 5; i++) {
            byte[] bytes = new byte[4];
            random.nextBytes(bytes);
            out.append(java.util.Arrays.toString(bytes).replace(" ", "")).append(' ');
        }
        return out.toString().trim();
    }

    public static int seededRoll() {
        return new Random(42).nextInt(100);
    }

    public static int reseededRoll() {
        Random random = new Random();
        random.setSeed(42);
        return random.nextInt(100);
    }

    public static int rollByReference(Random random) {
        IntUnaryOperator roll = random::nextInt;
        return roll.applyAsInt(6);
    }

    public static long elapsedByReference(long sleepMillis) throws InterruptedException {
        LongSupplier clock = System::nanoTime;
        long start = clock.getAsLong();
        Thread.sleep(sleepMillis);
        return clock.getAsLong() - start;
    }

    public static long elapsedMillis(long sleepMillis) throws InterruptedException {
        long start = System.currentTimeMillis();
        Thread.sleep(sleepMillis);
        return System.currentTimeMillis() - start;
    }

    public static Date now() {
        return new Date();
    }

    public static Date nowByReference() {
        Supplier<Date> now = Date::new;
        return now.get();
    }

    public static Date now(long millis) {
        return new Date(millis);
    }

    public static String joinedKeys(Map<String, Integer> map) {
        return String.join(",", map.keySet());
    }

    /** {@code toString()} on a receiver typed Map, which javac compiles as Object.toString(). */
    public static String mapText(Map<String, Integer> map) {
        return map.toString();
    }

    public static List<String> copiedKeys(Map<String, Integer> map) {
        return new ArrayList<>(map.keySet());
    }

    public static String lambdaJoin(Map<String, Integer> map) {
        Supplier<String> join = () -> String.join(",", map.keySet());
        return join.get();
    }

    public static String iterated(Set<String> set) {
        StringBuilder b = new StringBuilder();
        for (String s : set) {
            b.append(s);
        }
        return b.toString();
    }

    public static String declaredFieldNames(Class<?> type) {
        StringBuilder b = new StringBuilder();
        for (Field f : type.getDeclaredFields()) {
            b.append(f.getName());
        }
        return b.toString();
    }

    public static InetSocketAddress address(String host, int port) {
        return new InetSocketAddress(host, port);
    }

    public static InetAddress lookUp(String host) throws UnknownHostException {
        return InetAddress.getByName(host);
    }

    public static Object poll(BlockingQueue<?> queue, long millis) throws InterruptedException {
        return queue.poll(millis, TimeUnit.MILLISECONDS);
    }

    public static Object get(CompletableFuture<?> future, long millis) throws Exception {
        try {
            return future.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        }
    }

    public static boolean tryAcquire(Semaphore semaphore, long millis) throws InterruptedException {
        return semaphore.tryAcquire(millis, TimeUnit.MILLISECONDS);
    }

    public static void waitOn(Object lock, long millis) throws InterruptedException {
        synchronized (lock) {
            lock.wait(millis);
        }
    }

    public static void join(Thread thread, long millis) throws InterruptedException {
        thread.join(millis);
    }

    public static Map<String, Integer> hashMap(String... keys) {
        Map<String, Integer> map = new HashMap<>();
        for (String k : keys) {
            map.put(k, k.length());
        }
        return map;
    }

    public static Map<String, Integer> linkedHashMap(String... keys) {
        Map<String, Integer> map = new LinkedHashMap<>();
        for (String k : keys) {
            map.put(k, k.length());
        }
        return map;
    }

    public static java.time.LocalDate today() {
        return java.time.LocalDate.now();
    }

    public static Thread worker(Runnable task) {
        return new Thread(task, "worker");
    }
}
