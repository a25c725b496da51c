package testfixture.invariants;

/** Reads another project class's static fields directly, as a test does (StaticReadsTest). */
public final class Reader {
    private static int own = 1;

    public static boolean reads() {
        return Flags.ready && Flags.hits == 0 && own == 1 && Flags.LIMIT > 0 && Integer.MAX_VALUE > 0
                && Flags.Mode.ON != null;
    }

    public static int none() {
        return own;
    }
}
