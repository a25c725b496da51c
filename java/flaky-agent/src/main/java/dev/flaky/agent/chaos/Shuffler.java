package dev.flaky.agent.chaos;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * ITERATION_ORDER: which receivers have an unspecified iteration order that gets shuffled (exactly HashMap, HashSet,
 * ConcurrentHashMap and their key, value and entry views; never subclasses such as LinkedHashMap), and the seeded
 * permutation. The permutation depends only on the seed and the number of elements, so two iterations of an
 * unchanged collection agree (as do a map's keys and values), and it never is the identity, so every shuffled
 * iteration of two or more elements differs from the real order.
 */
final class Shuffler {
    private static final Class<?>[] SHUFFLED = shuffledClasses();
    /** Permutations of small sizes, computed once per size (they depend only on the seed and the size). */
    private static final int CACHED = 256;
    private static volatile int[][] cache = new int[CACHED + 1][];
    /** The seed without a {@code chaos.seed} option. */
    static final long DEFAULT_SEED = 0x5EEDL;
    private static volatile long seed = DEFAULT_SEED;

    private Shuffler() {
    }

    static void seed(long value) {
        seed = value;
        cache = new int[CACHED + 1][];
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

    /** Returns a copy of {@code a} in the seeded order (same array type); {@code a} itself when it is short. */
    static <T> T[] permute(T[] a) {
        int n = a.length;
        if (n < 2) {
            return a;
        }
        int[] p = cachedPermutation(n);
        T[] out = a.clone();
        for (int i = 0; i < n; i++) {
            out[i] = a[p[i]];
        }
        return out;
    }

    private static int[] cachedPermutation(int n) {
        if (n > CACHED) {
            return permutation(n);
        }
        int[][] c = cache;
        int[] p = c[n];
        if (p == null) {
            p = permutation(n);
            c[n] = p;
        }
        return p;
    }

    /** A seeded permutation of {@code 0..n-1} (n >= 2) that is not the identity. */
    static int[] permutation(int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        long state = seed ^ (n * 0x9E3779B97F4A7C15L);
        for (int i = n - 1; i > 0; i--) {
            state += 0x9E3779B97F4A7C15L;
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
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A view of {@code c} that iterates in the shuffled order: a set view when {@code c} is a set. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Collection<?> view(Collection<?> c) {
        return c instanceof Set ? new ShuffledSet((Set) c) : new ShuffledCollection(c);
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
