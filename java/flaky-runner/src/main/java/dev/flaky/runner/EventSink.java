package dev.flaky.runner;

import java.util.Map;
import java.util.function.IntUnaryOperator;

/** Destination of the runner's events. */
interface EventSink {
    /** Delivers one event. */
    void send(Map<String, Object> event);

    /** Makes sure every event sent so far has been delivered. */
    void flush();

    /**
     * Names the test that runs next ({@code testClass} null: none), so that work due at its start can happen before
     * its class is instantiated; nothing by default.
     */
    default void upcoming(Class<?> testClass, String test, int index) {
    }

    /**
     * Lets {@code handler} answer the driver's {@code handoff} commands (given the command's index, it commits and
     * returns the stop, or -1); nothing by default, where no driver sends commands.
     */
    default void onHandoff(IntUnaryOperator handler) {
    }
}
