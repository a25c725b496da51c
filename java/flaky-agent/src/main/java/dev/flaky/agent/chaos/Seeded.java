package dev.flaky.agent.chaos;

import java.lang.ref.WeakReference;

/**
 * The {@code Random} instances the project seeded explicitly ({@code new Random(seed)}, {@code setSeed}), whose
 * values RANDOM_MAX never perturbs: a weak identity set, open-addressed by identity hash code, that readers probe
 * without locking (every RANDOM wrapper call asks it). Writers insert under a lock and publish a rehashed table
 * through a volatile field; a thread always sees its own inserts, and another thread sees an instance as seeded
 * once the instance was handed to it safely. Cleared references are dropped when the table is rehashed.
 */
final class Seeded {
    private static final Object LOCK = new Object();
    private static volatile WeakReference<?>[] table = new WeakReference<?>[64];
    /** Occupied slots, cleared references included; guarded by LOCK. */
    private static int used;

    private Seeded() {
    }

    static void mark(Object random) {
        if (random == null) {
            return;
        }
        synchronized (LOCK) {
            if (contains(random)) {
                return;
            }
            if ((used + 1) * 2 > table.length) {
                rehash();
            }
            insert(table, random);
            used++;
        }
    }

    static boolean contains(Object random) {
        WeakReference<?>[] t = table;
        int mask = t.length - 1;
        for (int i = System.identityHashCode(random) & mask; ; i = (i + 1) & mask) {
            WeakReference<?> ref = t[i];
            if (ref == null) {
                return false;
            }
            if (ref.get() == random) {
                return true;
            }
        }
    }

    /** Copies the live entries into a table at least four times their number (so half empty after the insert). */
    private static void rehash() {
        WeakReference<?>[] old = table;
        int live = 0;
        for (WeakReference<?> ref : old) {
            if (ref != null && ref.get() != null) {
                live++;
            }
        }
        int capacity = 64;
        while (capacity < (live + 1) * 4) {
            capacity <<= 1;
        }
        WeakReference<?>[] grown = new WeakReference<?>[capacity];
        used = 0;
        for (WeakReference<?> ref : old) {
            Object o = ref == null ? null : ref.get();
            if (o != null) {
                insert(grown, o);
                used++;
            }
        }
        table = grown;
    }

    private static void insert(WeakReference<?>[] t, Object o) {
        int mask = t.length - 1;
        int i = System.identityHashCode(o) & mask;
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = new WeakReference<>(o);
    }
}
