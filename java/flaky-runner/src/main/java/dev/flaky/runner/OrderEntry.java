package dev.flaky.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** One test id of an order, with its position (from 0). */
public final class OrderEntry {
    /** Position in the order, reported as {@code index}. */
    public final int index;
    /** The test id, {@code pkg.Class#method} or {@code pkg.Class#method[i]}. */
    public final String id;
    /** The part before {@code #}. */
    public final String className;
    /** The part after {@code #}. */
    public final String method;

    /** Creates the entry at {@code index} for test id {@code id}. */
    public OrderEntry(int index, String id) {
        this.index = index;
        this.id = id;
        int hash = id.indexOf('#');
        this.className = hash < 0 ? id : id.substring(0, hash);
        this.method = hash < 0 ? "" : id.substring(hash + 1);
    }

    /**
     * Splits entries into segments that one execution runs in exactly the requested order: a segment grows while
     * {@code achievable} accepts it with the next entry, and a new one starts where it does not.
     */
    public static List<List<OrderEntry>> segments(List<OrderEntry> entries, Predicate<List<OrderEntry>> achievable) {
        List<List<OrderEntry>> segments = new ArrayList<>();
        List<OrderEntry> current = new ArrayList<>();
        for (OrderEntry e : entries) {
            List<OrderEntry> candidate = new ArrayList<>(current);
            candidate.add(e);
            if (!current.isEmpty() && !achievable.test(candidate)) {
                segments.add(current);
                candidate = new ArrayList<>();
                candidate.add(e);
            }
            current = candidate;
        }
        if (!current.isEmpty()) {
            segments.add(current);
        }
        return segments;
    }
}
