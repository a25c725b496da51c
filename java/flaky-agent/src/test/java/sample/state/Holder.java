package sample.state;

import java.util.ArrayList;
import java.util.List;

/** A class with a static initialiser (for the init hook's tests). */
public final class Holder {
    public static final List<String> NAMES = new ArrayList<>();
    public static int plain;

    static {
        NAMES.add("first");
    }

    private Holder() {
    }
}
