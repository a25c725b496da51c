package dev.flaky.runner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds the protocol's JVM-to-driver events (see agent/PROTOCOL.md) and hands them to a sink. */
public final class Events {
    private final EventSink sink;
    private int testEnds;

    Events(EventSink sink) {
        this.sink = sink;
    }

    /** Opens the agent's channel when the agent is present and connected, standard output otherwise. */
    static Events open() {
        EventSink sink = null;
        if (Classes.present("dev.flaky.agent.Channel")) {
            sink = ChannelSink.openIfConnected();
        }
        return new Events(sink != null ? sink : new StdoutSink());
    }

    /** {@code tests}: the answer to {@code list}. */
    void tests(List<ListedTest> tests) {
        List<Map<String, Object>> list = new ArrayList<>(tests.size());
        for (ListedTest t : tests) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", t.id);
            m.put("class", t.className);
            m.put("method", t.method);
            m.put("engine", t.engine);
            list.add(m);
        }
        Map<String, Object> e = event("tests");
        e.put("tests", list);
        sink.send(e);
    }

    /** {@code run-start}. */
    void runStart(int count) {
        Map<String, Object> e = event("run-start");
        e.put("count", count);
        sink.send(e);
    }

    /** {@code run-end}, with the number of {@code test-end} events sent. */
    void runEnd() {
        Map<String, Object> e = event("run-end");
        e.put("count", testEnds);
        sink.send(e);
    }

    /** {@code class-start}: class fixtures of a run of methods of {@code className} are about to run. */
    public void classStart(String className) {
        Map<String, Object> e = event("class-start");
        e.put("class", className);
        sink.send(e);
    }

    /** {@code class-end}: that run of methods is over. */
    public void classEnd(String className) {
        Map<String, Object> e = event("class-end");
        e.put("class", className);
        sink.send(e);
    }

    /** {@code test-start}. */
    public void testStart(String test, int index) {
        Map<String, Object> e = event("test-start");
        e.put("test", test);
        e.put("index", index);
        sink.send(e);
    }

    /** {@code test-end}; {@code failure} may be null. */
    public void testEnd(String test, int index, String outcome, long timeMs, Failure failure) {
        Map<String, Object> e = event("test-end");
        e.put("test", test);
        e.put("index", index);
        e.put("outcome", outcome);
        e.put("timeMs", timeMs);
        if (failure != null) {
            putIfPresent(e, "failureType", failure.type);
            putIfPresent(e, "message", failure.message);
            putIfPresent(e, "stack", failure.stack);
        }
        testEnds++;
        sink.send(e);
    }

    /** Reports an order entry the runner cannot find as a {@code test-end} error {@code flaky.TestNotFound}. */
    public void notFound(OrderEntry entry, String why) {
        testEnd(entry.id, entry.index, Outcome.ERROR, 0, Failure.notFound(why));
    }

    /** {@code class-error}: an {@code @AfterClass}/{@code @AfterAll} failure. */
    public void classError(String className, Failure failure) {
        Map<String, Object> e = event("class-error");
        e.put("class", className);
        putIfPresent(e, "failureType", failure.type);
        putIfPresent(e, "message", failure.message);
        putIfPresent(e, "stack", failure.stack);
        sink.send(e);
    }

    /** {@code log}: a diagnostic with level {@code info}, {@code warn} or {@code error}. */
    public void log(String level, String message) {
        Map<String, Object> e = event("log");
        e.put("level", level);
        e.put("message", message);
        sink.send(e);
    }

    /** Flushes the sink. */
    void flush() {
        sink.flush();
    }

    private static Map<String, Object> event(String type) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("type", type);
        return e;
    }

    private static void putIfPresent(Map<String, Object> e, String key, String value) {
        if (value != null) {
            e.put(key, value);
        }
    }
}
