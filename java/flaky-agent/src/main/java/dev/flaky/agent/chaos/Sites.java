package dev.flaky.agent.chaos;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.flaky.agent.Channel;
import dev.flaky.agent.MessageTypes;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * The registry of substituted call sites. Sites are registered while classes are transformed and get small int ids
 * that the rewritten code passes to the wrappers; {@link #hit} sends a {@code perturbation} event the first time a
 * site perturbs something during a test, and costs a volatile read and an array read afterwards.
 */
final class Sites {
    /** One substituted call site. */
    static final class Site {
        final Strategy strategy;
        final String api;
        final String className;
        final String method;
        final String file;
        final int line;
        /**
         * The hash of the site's key (class, method, line, API): the same in every JVM, unlike its id, which
         * depends on the order classes load in (ITERATION_ORDER seeds its permutations with it).
         */
        final long hash;
        /** ITERATION_ORDER shuffles at this site ({@link #shuffleOnly} did not leave it out). */
        final boolean shuffled;

        Site(Strategy strategy, String api, String className, String method, String file, int line) {
            this.strategy = strategy;
            this.api = api;
            this.className = className;
            this.method = method;
            this.file = file;
            this.line = line;
            this.hash = stableHash(className + '#' + method + ':' + line + ' ' + api);
            Set<String> only = shuffledSites;
            this.shuffled = only == null || only.contains(className + '#' + method + ':' + line);
        }
    }

    /** A 64-bit FNV-1a hash of {@code s}'s chars. */
    static long stableHash(String s) {
        long h = 0xCBF29CE484222325L;
        for (int i = 0; i < s.length(); i++) {
            h = (h ^ s.charAt(i)) * 0x100000001B3L;
        }
        return h;
    }

    private static final Object LOCK = new Object();
    private static final Map<String, Integer> IDS = new HashMap<>();
    private static Site[] sites = new Site[256];
    private static int count;
    /** Per site: 1 + the test epoch in which it was last reported; 0 when never. Replaced (copied) when it grows. */
    private static volatile AtomicIntegerArray reported = new AtomicIntegerArray(256);
    /** Per site: the test epoch (high half) and the number of {@link #count} calls during it (low half). */
    private static volatile AtomicLongArray counts = new AtomicLongArray(256);
    /** Per site: the number of {@link #countInJvm} calls since the JVM started (saturating). */
    private static volatile AtomicIntegerArray jvmCounts = new AtomicIntegerArray(256);

    /** The sites ({@code class#method:line}) ITERATION_ORDER shuffles; null for all. */
    private static volatile Set<String> shuffledSites;

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();
    private static final Object PRINT_LOCK = new Object();
    private static PrintWriter stderr;
    /** Where {@code perturbation} events go: the driver, or standard error without one (tests replace it). */
    static volatile Consumer<Map<String, Object>> sink = Sites::deliver;

    private Sites() {
    }

    /** Registers a call site and returns its id; the same site (class, method, line, API) keeps one id. */
    static int register(Strategy strategy, String api, String className, String method, String file, int line) {
        String key = className + '#' + method + ':' + line + ' ' + api;
        synchronized (LOCK) {
            Integer known = IDS.get(key);
            if (known != null) {
                return known;
            }
            if (count == sites.length) {
                sites = Arrays.copyOf(sites, count * 2);
                AtomicIntegerArray old = reported;
                AtomicIntegerArray grown = new AtomicIntegerArray(count * 2);
                for (int i = 0; i < count; i++) {
                    grown.set(i, old.get(i));
                }
                reported = grown;
                AtomicLongArray oldCounts = counts;
                AtomicLongArray grownCounts = new AtomicLongArray(count * 2);
                for (int i = 0; i < count; i++) {
                    grownCounts.set(i, oldCounts.get(i));
                }
                counts = grownCounts;
                AtomicIntegerArray oldJvm = jvmCounts;
                AtomicIntegerArray grownJvm = new AtomicIntegerArray(count * 2);
                for (int i = 0; i < count; i++) {
                    grownJvm.set(i, oldJvm.get(i));
                }
                jvmCounts = grownJvm;
            }
            int id = count++;
            sites[id] = new Site(strategy, api, className, method, file, line);
            IDS.put(key, id);
            return id;
        }
    }

    /**
     * Shuffles only at these sites ({@code class#method:line}, chaos.iteration.sites), the others iterating in
     * real order; empty for every site. Called before any site registers.
     */
    static void shuffleOnly(List<String> sites) {
        shuffledSites = sites.isEmpty() ? null : new HashSet<>(sites);
    }

    /** Reports whether ITERATION_ORDER shuffles at site {@code id}. */
    static boolean shuffled(int id) {
        return shuffledSites == null || get(id).shuffled;
    }

    static Site get(int id) {
        synchronized (LOCK) {
            return sites[id];
        }
    }

    /**
     * Records that site {@code id} perturbed a call; reports it unless it was already reported during this test, or
     * the calling thread is one an earlier class left running (its calls are not the running test's).
     */
    static void hit(int id) {
        if (Channel.fromEarlierClass()) {
            return;
        }
        int mark = Channel.testEpoch() + 1;
        AtomicIntegerArray r = reported;
        int seen = r.get(id);
        if (seen != mark && r.compareAndSet(id, seen, mark)) {
            report(get(id));
        }
    }

    /** Counts a call at site {@code id}; returns how many calls it had during the running test, this one included. */
    static int count(int id) {
        long epoch = Channel.testEpoch();
        AtomicLongArray c = counts;
        while (true) {
            long v = c.get(id);
            long next = (v >>> 32) == epoch ? v + 1 : epoch << 32 | 1;
            if (c.compareAndSet(id, v, next)) {
                return (int) next;
            }
        }
    }

    /**
     * Counts a call at site {@code id} over the JVM's life, whatever test runs; returns how many calls it had, this
     * one included (saturating at {@link Integer#MAX_VALUE}).
     */
    static int countInJvm(int id) {
        AtomicIntegerArray c = jvmCounts;
        while (true) {
            int v = c.get(id);
            if (v == Integer.MAX_VALUE) {
                return v;
            }
            if (c.compareAndSet(id, v, v + 1)) {
                return v + 1;
            }
        }
    }

    private static void report(Site site) {
        sink.accept(event(site));
    }

    /** The {@code perturbation} event of a site, for the running test. */
    static Map<String, Object> event(Site site) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("type", MessageTypes.PERTURBATION);
        e.put("test", Channel.runningTest());
        e.put("strategy", site.strategy.name());
        e.put("group", site.strategy.group);
        e.put("api", site.api);
        e.put("class", site.className);
        e.put("method", site.method);
        e.put("file", site.file);
        e.put("line", site.line);
        return e;
    }

    private static void deliver(Map<String, Object> e) {
        if (Channel.connected()) {
            Channel.send(e);
        } else {
            print(e);
        }
    }

    /**
     * Without a driver (a plain Maven reproduce run) perturbations are printed as {@code [flaky] } JSON lines on
     * standard error: never on standard output, which a Surefire fork uses as its channel to Maven ("Corrupted
     * channel" otherwise). Written to the file descriptor, so a test that replaces {@code System.err} misses none.
     */
    private static void print(Map<String, Object> e) {
        synchronized (PRINT_LOCK) {
            if (stderr == null) {
                stderr = new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.err),
                        StandardCharsets.UTF_8));
            }
            stderr.println("[flaky] " + GSON.toJson(e));
            stderr.flush();
        }
    }
}
