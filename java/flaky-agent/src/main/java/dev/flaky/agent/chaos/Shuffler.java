package dev.flaky.agent.chaos;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ITERATION_ORDER: which receivers have an unspecified iteration order that gets shuffled (exactly HashMap, HashSet,
 * ConcurrentHashMap and their key, value and entry views; never subclasses such as LinkedHashMap), and the seeded
 * permutations. Each collection instance gets a token when it is first iterated shuffled: the seed mixed with its
 * call site (the site's stable hash, not its id) and how many instances that site met before during the running
 * test, so a run is reproducible from its seed and two maps with the same keys are permuted differently. A
 * permutation depends on the token and the number of elements: an unchanged collection iterated twice keeps its
 * order, and a map's keys, values and entries (whose token is the map's) stay aligned, as in a real JDK; a change
 * may give another order. Class members are permuted by a token of the class name and the method, so a class's
 * fields keep one order in a JVM as they do in a real one. A permutation is never the identity, so every shuffled
 * iteration of two or more elements differs from the real order.
 */
final class Shuffler {
    private static final Class<?>[] SHUFFLED = shuffledClasses();
    /** The seed without a {@code chaos.seed} option. */
    static final long DEFAULT_SEED = 0x5EEDL;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static volatile long seed = DEFAULT_SEED;
    /** Tokens made at sites whose id is unknown (outside the agent's call sites: unit tests). */
    private static final AtomicInteger UNSITED = new AtomicInteger();

    private Shuffler() {
    }

    static void seed(long value) {
        seed = value;
    }

    /** Reports whether {@code o}'s exact class has an iteration order that is shuffled. */
    static boolean shuffles(Object o) {
        if (o == null) {
            return false;
        }
        Class<?> c = o.getClass();
        for (Class<?> s : SHUFFLED) {
            if (c == s) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reports whether {@code o}'s iteration at call site {@code site} is shuffled: its exact class's order is
     * shuffled and the site is among those {@code chaos.iteration.sites} leaves perturbed.
     */
    static boolean shuffles(Object o, int site) {
        return shuffles(o) && Sites.shuffled(site);
    }

    /**
     * The token of {@code owner} (a collection, or the map whose view is iterated), made from the seed, call site
     * {@code site} (-1 for none) and the site's count of instances during the running test when it has none yet.
     */
    static long token(Object owner, int site) {
        long known = Tokens.get(owner);
        if (known != 0) {
            return known;
        }
        return Tokens.of(owner, () -> {
            if (site < 0) {
                return mix(seed ^ GOLDEN * UNSITED.incrementAndGet());
            }
            return mix(mix(seed ^ Sites.get(site).hash) + GOLDEN * Sites.count(site));
        });
    }

    /** The token of class {@code c}'s members as {@code method} lists them. */
    static long memberToken(Class<?> c, String method) {
        return mix(seed ^ Sites.stableHash(c.getName() + '#' + method));
    }

    /**
     * Returns a copy of {@code a} in the order of {@code token} (same array type); {@code a} itself when it is
     * short.
     */
    static <T> T[] permute(T[] a, long token) {
        int n = a.length;
        if (n < 2) {
            return a;
        }
        int[] p = permutation(n, token);
        T[] out = a.clone();
        for (int i = 0; i < n; i++) {
            out[i] = a[p[i]];
        }
        return out;
    }

    /** A permutation of {@code 0..n-1} (n >= 2) drawn from {@code token} that is not the identity. */
    static int[] permutation(int n, long token) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        long state = token ^ (n * GOLDEN);
        for (int i = n - 1; i > 0; i--) {
            state += GOLDEN;
            int j = (int) Long.remainderUnsigned(mix(state), i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        boolean identity = true;
        for (int i = 0; i < n && identity; i++) {
            identity = p[i] == i;
        }
        if (identity) {
            for (int i = 0; i < n; i++) {
                p[i] = (i + 1) % n;
            }
        }
        return p;
    }

    /** SplitMix64's finalizer. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * A view of {@code c} that iterates in the shuffled order of {@code c}'s token, made at {@code site}: a set view
     * when {@code c} is a set.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Collection<?> view(Collection<?> c, int site) {
        return c instanceof Set ? new ShuffledSet((Set) c, c, site) : new ShuffledCollection(c, c, site);
    }

    private static Class<?>[] shuffledClasses() {
        Map<Object, Object> hash = new HashMap<>();
        ConcurrentHashMap<Object, Object> concurrent = new ConcurrentHashMap<>();
        return new Class<?>[] {
            HashMap.class, HashSet.class, ConcurrentHashMap.class,
            hash.keySet().getClass(), hash.values().getClass(), hash.entrySet().getClass(),
            concurrent.keySet().getClass(), concurrent.values().getClass(), concurrent.entrySet().getClass(),
        };
    }
}
