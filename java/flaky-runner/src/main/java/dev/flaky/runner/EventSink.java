package dev.flaky.runner;

import java.util.Map;

/** Destination of the runner's events. */
interface EventSink {
    /** Delivers one event. */
    void send(Map<String, Object> event);

    /** Makes sure every event sent so far has been delivered. */
    void flush();
}
