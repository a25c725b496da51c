package dev.flaky.runner;

import dev.flaky.agent.MessageTypes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the protocol's JVM-to-driver events (see agent/PROTOCOL.md) and hands them to a sink, and to an in-process
 * {@link RunnerListener}.
 */
public final class Events {
    private final EventSink sink;
    private final RunnerListener listener;
    private final boolean embedded;
    private int testEnds;
    /** The order's handoff state while the runner accepts the driver's {@code handoff} command, else null. */
    private Handoff handoff;
    /** Ends the JVM once the runner stopped for a handoff; must not return. */
    private Runnable exit;
    /** Whether the runner stopped for a handoff (sent its {@code run-end}). */
    private boolean stopped;

    /** Sends events to {@code sink} (none when null) and to {@code listener}. */
    Events(EventSink sink, RunnerListener listener) {
        this(sink, listener, false);
    }

    private Events(EventSink sink, RunnerListener listener, boolean embedded) {
        this.sink = sink;
        this.listener = listener;
        this.embedded = embedded;
    }

    /** Opens the agent's channel when the agent is present and connected, standard output otherwise. */
    static Events open() {
        EventSink sink = channel();
        return new Events(sink != null ? sink : new StdoutSink(), RunnerListener.NONE);
    }

    /**
     * Events for a runner embedded in another program: they go to {@code listener}, and to the driver as well when
     * the agent is connected (never to standard output, which belongs to the embedding program).
     */
    static Events embedded(RunnerListener listener) {
        return new Events(channel(), listener, true);
    }

    /**
     * Whether the runner is embedded in another program (a Surefire fork) whose JVM then runs the tests: listing
     * there must not run test code (a TestNG data provider), which could change what the tests find.
     */
    public boolean embedded() {
        return embedded;
    }

    /**
     * Accepts the driver's {@code handoff} command for {@code order}, the order this runner runs (the {@code run}
     * command): the runner then stops before the class run the answer names, ending the JVM with status 0.
     */
    void acceptHandoffs(List<OrderEntry> order) {
        acceptHandoffs(order, Events::exitJvm);
    }

    /**
     * Accepts handoffs for {@code order} as {@link #acceptHandoffs(List)} does, ending the JVM with {@code exit}
     * when the runner stops, which must not return (a test throws). Returns the handoff state, whose
     * {@link Handoff#handoff} answers the commands.
     */
    Handoff acceptHandoffs(List<OrderEntry> order, Runnable exit) {
        Handoff h = new Handoff(order);
        this.exit = exit;
        this.handoff = h;
        if (sink != null) {
            sink.onHandoff(h::handoff);
        }
        return h;
    }

    /** Exits the JVM with status 0, halting it when a security manager forbids the exit. */
    private static void exitJvm() {
        try {
            System.exit(0);
        } catch (SecurityException e) {
            Runtime.getRuntime().halt(0);
        }
    }

    /**
     * The runner is about to start on a class run ({@code run}, its entries), before any of its code runs: when the
     * driver handed the order from that run on to another JVM, ends the order instead ({@code run-end}, then the
     * JVM exits with status 0) and does not return. Engines call it for each class run; an event of a run begins it
     * too.
     */
    public void beginRun(List<OrderEntry> run) {
        if (handoff != null && !run.isEmpty() && !handoff.beginRun(run.get(0).index)) {
            stop();
        }
    }

    /**
     * Stops for a handoff: sends {@code run-end} (once, should several threads get here), flushes the sink and the
     * standard streams and ends the JVM. Does not return.
     */
    private void stop() {
        boolean first;
        synchronized (this) {
            first = !stopped;
            stopped = true;
        }
        if (first) {
            runEnd();
        }
        flush();
        System.out.flush();
        System.err.flush();
        exit.run();
        throw new IllegalStateException("the runner's exit after a handoff returned");
    }

    /** The agent's channel when the agent is present and connected, else null. */
    private static EventSink channel() {
        return Classes.present("dev.flaky.agent.Channel") ? ChannelSink.openIfConnected() : null;
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
            m.put("classFixtures", t.classFixtures);
            if (t.dynamic) {
                m.put("dynamic", true);
            }
            list.add(m);
        }
        Map<String, Object> e = event(MessageTypes.TESTS);
        e.put("tests", list);
        send(e);
    }

    /** {@code run-start}; counting {@code test-end} events starts again. */
    void runStart(int count) {
        testEnds = 0;
        Map<String, Object> e = event(MessageTypes.RUN_START);
        e.put("count", count);
        send(e);
        listener.runStart(count);
    }

    /** {@code run-end}, with the number of {@code test-end} events sent. */
    void runEnd() {
        Map<String, Object> e = event(MessageTypes.RUN_END);
        e.put("count", testEnds);
        send(e);
        listener.runEnd(testEnds);
    }

    /** {@code class-start}: class fixtures of a run of methods of {@code className} are about to run. */
    public void classStart(String className) {
        if (handoff != null && !handoff.classStart(className)) {
            stop();
        }
        Map<String, Object> e = event(MessageTypes.CLASS_START);
        e.put("class", className);
        send(e);
        listener.classStart(className);
    }

    /** {@code class-end}: that run of methods is over. */
    public void classEnd(String className) {
        Map<String, Object> e = event(MessageTypes.CLASS_END);
        e.put("class", className);
        send(e);
        listener.classEnd(className);
    }

    /** {@code test-start}. */
    public void testStart(String test, int index) {
        if (handoff != null && !handoff.entry(index)) {
            stop();
        }
        Map<String, Object> e = event(MessageTypes.TEST_START);
        e.put("test", test);
        e.put("index", index);
        send(e);
        listener.testStart(test, index);
    }

    /**
     * Names the order entry that runs next ({@code next} null: none): the agent runs the work due at a test's start
     * (state restores and captures, invariant points) as soon as the entry's class begins to be instantiated, which
     * test frameworks do before they report the test started. {@code segmentClass} is the class being run; it
     * resolves the entry's class. Not an event of the protocol.
     */
    public void upcoming(Class<?> segmentClass, OrderEntry next) {
        if (sink == null) {
            return;
        }
        Class<?> c = null;
        if (next != null) {
            try {
                c = next.className.equals(segmentClass.getName())
                        ? segmentClass : Class.forName(next.className, false, segmentClass.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                c = null;
            }
        }
        sink.upcoming(c, next == null ? null : next.id, next == null ? -1 : next.index);
    }

    /** {@code test-end}; {@code failure} may be null. */
    public void testEnd(String test, int index, String outcome, long timeMs, Failure failure) {
        if (handoff != null && !handoff.entry(index)) {
            stop();
        }
        Map<String, Object> e = event(MessageTypes.TEST_END);
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
        send(e);
        listener.testEnd(test, index, outcome, timeMs, failure);
    }

    /** Reports an order entry the runner cannot find as a {@code test-end} error {@code flaky.TestNotFound}. */
    public void notFound(OrderEntry entry, String why) {
        testEnd(entry.id, entry.index, Outcome.ERROR, 0, Failure.notFound(why));
    }

    /** {@code class-error}: an {@code @AfterClass}/{@code @AfterAll} failure. */
    public void classError(String className, Failure failure) {
        Map<String, Object> e = event(MessageTypes.CLASS_ERROR);
        e.put("class", className);
        putIfPresent(e, "failureType", failure.type);
        putIfPresent(e, "message", failure.message);
        putIfPresent(e, "stack", failure.stack);
        send(e);
        listener.classError(className, failure);
    }

    /** {@code log}: a diagnostic with level {@code info}, {@code warn} or {@code error}. */
    public void log(String level, String message) {
        Map<String, Object> e = event(MessageTypes.LOG);
        e.put("level", level);
        e.put("message", message);
        send(e);
        listener.log(level, message);
    }

    /** Flushes the sink. */
    public void flush() {
        if (sink != null) {
            sink.flush();
        }
    }

    private void send(Map<String, Object> event) {
        if (sink != null) {
            sink.send(event);
        }
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
