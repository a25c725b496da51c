package dev.flaky.runner;

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
}
