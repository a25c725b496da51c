package dev.flaky.agent.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * Replaces the wrappers' sleeper while open: each pause is recorded (in milliseconds, or "ms+ns" with a nanosecond
 * part) instead of slept, so a test asserts on the pause decided, not on the wall time it took. On a fake clock, a
 * pause moves that clock on by its length, as a real pause moves the real one.
 */
final class RecordedPauses implements Pauses.Sleeper, AutoCloseable {
    private final Pauses.Sleeper previous = Pauses.sleeper;
    private final List<String> pauses = new ArrayList<>();
    private final FakeRealClock clock;

    RecordedPauses() {
        this(null);
    }

    /** Records pauses and moves {@code clock} on by each (null: no clock). */
    RecordedPauses(FakeRealClock clock) {
        this.clock = clock;
        Pauses.sleeper = this;
    }

    @Override
    public synchronized void sleep(long millis, int nanos) {
        pauses.add(nanos == 0 ? String.valueOf(millis) : millis + "+" + nanos);
        if (clock != null) {
            clock.advanceNanos(millis * 1_000_000L + nanos);
        }
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
