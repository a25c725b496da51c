package dev.flaky.agent.chaos;

import java.lang.ref.WeakReference;

/**
 * ITERATION_ORDER's permutation token per collection instance: a weak identity map from a collection (a map for
 * its views) to the non-zero token that seeds its permutations, open-addressed by identity hash code. Readers probe
 * without locking (every shuffled iteration asks); a token is created under a lock, once per instance, and the
 * rehashed table is published through a volatile field, so an instance handed safely to another thread keeps its
 * token there. Cleared references are dropped when the table is rehashed.
 */
final class Tokens {
    /** A weak key and its token. */
    private static final class Entry extends WeakReference<Object> {
        final long token;

        Entry(Object key, long token) {
            super(key);
            this.token = token;
        }
    }

    /** Makes the token of an instance seen for the first time. */
    interface Maker {
        long make();
    }

    private static final Object LOCK = new Object();
    private static volatile Entry[] table = new Entry[64];
    /** Occupied slots, cleared references included; guarded by LOCK. */
    private static int used;

    private Tokens() {
    }

    /** Returns {@code o}'s token, made by {@code maker} (under the lock) when {@code o} has none yet. */
    static long of(Object o, Maker maker) {
        long t = get(o);
        if (t != 0) {
            return t;
        }
        synchronized (LOCK) {
            t = get(o);
            if (t != 0) {
                return t;
            }
            t = maker.make();
            if (t == 0) {
                t = 1;
            }
            if ((used + 1) * 2 > table.length) {
                rehash();
            }
            insert(table, new Entry(o, t));
            used++;
            return t;
        }
    }

    /** Returns {@code o}'s token, 0 when it has none. */
    static long get(Object o) {
        Entry[] t = table;
        int mask = t.length - 1;
        for (int i = System.identityHashCode(o) & mask; ; i = (i + 1) & mask) {
            Entry e = t[i];
            if (e == null) {
                return 0;
            }
            if (e.get() == o) {
                return e.token;
            }
        }
    }

    /** Copies the live entries into a table at least four times their number (so half empty after the insert). */
    private static void rehash() {
        Entry[] old = table;
        int live = 0;
        for (Entry e : old) {
            if (e != null && e.get() != null) {
                live++;
            }
        }
        int capacity = 64;
        while (capacity < (live + 1) * 4) {
            capacity <<= 1;
        }
        Entry[] grown = new Entry[capacity];
        used = 0;
        for (Entry e : old) {
            Object o = e == null ? null : e.get();
            if (o != null) {
                insert(grown, new Entry(o, e.token));
                used++;
            }
        }
        table = grown;
    }

    private static void insert(Entry[] t, Entry e) {
        int mask = t.length - 1;
        int i = System.identityHashCode(e.get()) & mask;
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = e;
    }
}
