package dev.flaky.agent.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * Replaces the wrappers' sleeper while open: each pause is recorded (in milliseconds, or "ms+ns" with a nanosecond
 * part) instead of slept, so a test asserts on the pause decided, not on the wall time it took.
 */
final class RecordedPauses implements Pauses.Sleeper, AutoCloseable {
    private final Pauses.Sleeper previous = Pauses.sleeper;
    private final List<String> pauses = new ArrayList<>();

    RecordedPauses() {
        Pauses.sleeper = this;
    }

    @Override
    public synchronized void sleep(long millis, int nanos) {
        pauses.add(nanos == 0 ? String.valueOf(millis) : millis + "+" + nanos);
    }

    /** The pauses so far, in milliseconds. */
    synchronized List<String> millis() {
        return new ArrayList<>(pauses);
    }

    @Override
    public void close() {
        Pauses.sleeper = previous;
    }
}
