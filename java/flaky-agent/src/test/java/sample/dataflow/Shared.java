package sample.dataflow;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Every shape of access to shared state that the dataflow instrumentation hooks. */
public final class Shared {
    static int counter;
    static long total;
    static Box box = new Box();
    static final Map<String, List<String>> INDEX = new HashMap<>();
    static final long[] WIDE = new long[2];
    static final Object[] CELLS = new Object[2];

    /** A mutable holder. */
    public static final class Box {
        long value;
        String name;
    }

    private Shared() {
    }

    /** Writes: a primitive static, a wide field of a reachable object, a map put, an array store. */
    public static void write() {
        counter = 1;
        box.value = 42L;
        INDEX.put("k", new ArrayList<String>());
        INDEX.get("k").add("v");
        CELLS[1] = "x";
        System.setProperty("sample.dataflow.mode", "on");
    }

    /** Reads what write wrote, and returns a summary (so nothing is optimised away). */
    public static String read() {
        return counter + ":" + box.value + ":" + INDEX.get("k").size() + ":" + WIDE[0] + ":" + CELLS[1] + ":"
                + System.getProperty("sample.dataflow.mode", "off");
    }

    /** Reads only the box's field. */
    public static long readBox() {
        return box.value;
    }
}
