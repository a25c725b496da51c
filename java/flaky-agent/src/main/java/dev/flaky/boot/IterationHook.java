package dev.flaky.boot;

import java.util.function.Consumer;

/**
 * The hook that {@code chaos.iteration.scope=all} puts into the JDK's own hash iteration (HashMap's iterators,
 * forEach loops and spliterators, ConcurrentHashMap's traverser): it maps the bucket index a loop is about to read to
 * another one, visiting the buckets of a table in reverse, so every caller (the JDK, libraries, the project) sees a
 * different order wherever entries lie in two or more buckets. Loaded by the bootstrap class loader from a jar the
 * agent appends to its search path, so it may use only JDK classes. Public for the rewritten JDK classes.
 */
public final class IterationHook {
    /** Told the table when an iteration of it begins (the agent reports the first project frame); may be null. */
    public static volatile Consumer<Object[]> observer;
    private static final ThreadLocal<boolean[]> BUSY = new ThreadLocal<>();

    private IterationHook() {
    }

    /** The bucket to read at step {@code i} of a loop over {@code table} (a power-of-two length). */
    public static int bucket(Object[] table, int i) {
        int n = table.length;
        if (i == 0) {
            observe(table);
        }
        return i < 0 || i >= n ? i : n - 1 - i;
    }

    /**
     * ConcurrentHashMap's traverser: the bin to read for index {@code i} of a table whose initial size was
     * {@code baseSize}. Only the low bits (the base bin) are reversed, so the bins of a larger table that a resize
     * forwarded from one base bin stay together and every bin is still visited once.
     */
    public static int bin(Object[] table, int i, int baseSize) {
        if (i == 0) {
            observe(table);
        }
        if (baseSize <= 1 || Integer.bitCount(baseSize) != 1 || i < 0) {
            return i;
        }
        int mask = baseSize - 1;
        return (i & ~mask) | (mask - (i & mask));
    }

    private static void observe(Object[] table) {
        Consumer<Object[]> o = observer;
        if (o == null) {
            return;
        }
        boolean[] busy = BUSY.get();
        if (busy == null) {
            busy = new boolean[1];
            BUSY.set(busy);
        }
        if (busy[0]) {
            return;
        }
        busy[0] = true;
        try {
            o.accept(table);
        } finally {
            busy[0] = false;
        }
    }
}
