package dev.flaky.runner.jupiter;

import dev.flaky.runner.OrderEntry;

import java.util.ArrayList;
import java.util.List;

/** An order entry as Jupiter sees it: a method name and, for one invocation, its index path. */
final class Requested {
    final OrderEntry entry;
    /** The method name, without an invocation suffix. */
    final String method;
    /** The invocation index path ({@code m[2]} is [2], {@code m[1][3]} is [1, 3]), or null for the whole method. */
    final int[] invocation;

    private Requested(OrderEntry entry, String method, int[] invocation) {
        this.entry = entry;
        this.method = method;
        this.invocation = invocation;
    }

    /** Parses an entry; returns null when its invocation suffix is not a list of {@code [number]}. */
    static Requested parse(OrderEntry entry) {
        String m = entry.method;
        int bracket = m.indexOf('[');
        if (bracket < 0) {
            return new Requested(entry, m, null);
        }
        List<Integer> indexes = new ArrayList<>();
        int i = bracket;
        while (i < m.length()) {
            int close = m.indexOf(']', i);
            if (m.charAt(i) != '[' || close < 0) {
                return null;
            }
            try {
                indexes.add(Integer.parseInt(m.substring(i + 1, close)));
            } catch (NumberFormatException e) {
                return null;
            }
            i = close + 1;
        }
        int[] path = new int[indexes.size()];
        for (int k = 0; k < path.length; k++) {
            path[k] = indexes.get(k);
        }
        return new Requested(entry, m.substring(0, bracket), path);
    }

    /** Reports whether this entry asks for the reported test {@code id} (itself or one of its invocations). */
    boolean covers(String id) {
        return entry.id.equals(id) || id.startsWith(entry.id + "[");
    }

    /** Reports whether this entry asks for {@code id} or for something below it (one of its invocations). */
    boolean within(String id) {
        return entry.id.equals(id) || entry.id.startsWith(id + "[");
    }

    /** Compares invocation index paths lexicographically. */
    static int compare(int[] a, int[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            if (a[i] != b[i]) {
                return Integer.compare(a[i], b[i]);
            }
        }
        return Integer.compare(a.length, b.length);
    }
}
