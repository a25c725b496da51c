package testfixture.invariants;

/** Static fields another class reads directly (StaticReadsTest). */
public final class Flags {
    public static boolean ready;
    public static int hits;
    public static final int LIMIT = 3;

    /** Its constants are not state. */
    public enum Mode {
        ON
    }

    private Flags() {
    }
}
