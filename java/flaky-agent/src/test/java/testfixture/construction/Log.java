package testfixture.construction;

import java.util.ArrayList;
import java.util.List;

/** What happened, in order, while a test's instance was built (shared by the test and the rewritten classes). */
public final class Log {
    public static final List<String> EVENTS = new ArrayList<>();

    private Log() {
    }

    public static String add(String event) {
        EVENTS.add(event);
        return event;
    }
}
