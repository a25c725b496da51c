package sample.state;

/** A class without a static initialiser (for the init hook's tests). */
public final class Bare {
    public static int count;

    private Bare() {
    }
}
