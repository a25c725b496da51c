package dev.flaky.runner;

import java.util.ArrayList;
import java.util.List;

/** A RunnerListener for the runner's tests: records the events as short strings, and the last test failure. */
final class Recorder implements RunnerListener {
    final List<String> events = new ArrayList<>();
    Throwable failure;
    /** Class names are shortened to what follows the last of this character. */
    private final char cut;

    /** A recorder that names classes by what follows their package. */
    Recorder() {
        this('.');
    }

    /** A recorder that names classes by what follows the last {@code cut} in their names. */
    Recorder(char cut) {
        this.cut = cut;
    }

    @Override
    public void runStart(int count) {
        events.add("run-start " + count);
    }

    @Override
    public void classStart(String className) {
        events.add("class-start " + simple(className));
    }

    @Override
    public void classEnd(String className) {
        events.add("class-end " + simple(className));
    }

    @Override
    public void testStart(String test, int index) {
        events.add("start " + simple(test) + " " + index);
    }

    @Override
    public void testEnd(String test, int index, String outcome, long timeMs, Failure f) {
        events.add("end " + simple(test) + " " + index + " " + outcome);
        if (f != null && f.throwable() != null) {
            failure = f.throwable();
        }
    }

    @Override
    public void runEnd(int count) {
        events.add("run-end " + count);
    }

    private String simple(String name) {
        return name.substring(name.lastIndexOf(cut) + 1);
    }
}
