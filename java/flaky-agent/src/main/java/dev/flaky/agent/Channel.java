package dev.flaky.agent;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.Socket;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntUnaryOperator;

/**
 * The JVM's connection to the flaky driver. The runner sends its events through {@link #send}; every event is
 * written as one frame and flushed at once, so the driver knows the running test even if the JVM dies. The channel
 * watches the events that pass to know the current test and class for the {@code exit} event that a shutdown hook
 * sends when the JVM exits before {@code run-end}.
 */
public final class Channel {
    private static final Object LOCK = new Object();

    /** The driver connection; held so that it stays reachable (and open) for the JVM's lifetime. */
    private static volatile Socket socket;

    // Guarded by LOCK.
    private static DataOutputStream out;
    private static String currentTest = "";
    private static String currentClass = "";
    private static boolean finished;
    /** Set by the exit hook before it shuts the connection's input: the reader's end of input is then expected. */
    private static volatile boolean exiting;
    /** Bumped whenever the running test or class changes; lets the chaos instrumentation report per test cheaply. */
    private static volatile int testEpoch;
    /** The {@link #testEpoch} at the running (or last) class's start. */
    private static volatile int classEpoch;
    /**
     * Per thread: the {@link #classEpoch} when it was created (a thread inherits it at construction); null for a
     * thread created before the first class started, whose origin is unknown.
     */
    private static final InheritableThreadLocal<Integer> ORIGIN = new InheritableThreadLocal<Integer>() {
        @Override
        protected Integer childValue(Integer parent) {
            return classEpoch;
        }
    };
    /** Called at test boundaries (the state capture, the invariant tracer, the dataflow recorder), in the order installed. */
    private static final List<Boundary> BOUNDARIES = new CopyOnWriteArrayList<>();
    /** Guards {@link #upcoming} and {@link #started}. */
    private static final Object STARTING = new Object();
    /** The test the runner runs next, whose start hooks have not run; null when none. */
    private static volatile Next upcoming;
    /** The test whose start hooks ran when its instance was built, until its {@code test-start}; null when none. */
    private static Next started;
    /** Answers the driver's {@code handoff} commands; null while the runner runs no order with {@code run}. */
    private static volatile IntUnaryOperator handoff;

    /**
     * Code that runs on the test's thread at a test boundary: at its start, when the instance of the test's class
     * begins to be built (the runner named the test as {@link #upcoming}) or else right after the runner's
     * {@code test-start} event, so before the test's own fixtures either way; and right after its {@code test-end}
     * event (after them).
     */
    public interface Boundary {
        /** The test at {@code index} of the order is about to run. */
        void testStarting(String test, int index);

        /** The test at {@code index} of the order has finished. */
        void testEnded(String test, int index);
    }

    /** A test of the order: its class's name, its id and its index. */
    private static final class Next {
        final String className;
        final String test;
        final int index;

        Next(String className, String test, int index) {
            this.className = className;
            this.test = test;
            this.index = index;
        }
    }

    /** Adds a boundary hook (the agent's state capture, its invariant tracer, its dataflow recorder). */
    public static void onBoundary(Boundary hook) {
        BOUNDARIES.add(hook);
    }

    /**
     * Sets what answers the driver's {@code handoff} commands (null: nothing, every command is refused): given the
     * command's {@code index}, it commits and returns the entry before which the runner stops, or -1 to refuse (see
     * agent/PROTOCOL.md). It is called on the command reader's thread while the channel's lock is held, so that its
     * answer is sent before any event that follows from it; it must not wait for the test thread, nor send events.
     */
    public static void onHandoff(IntUnaryOperator handler) {
        handoff = handler;
    }

    /** Reports whether a boundary hook is installed. */
    static boolean hasBoundaries() {
        return !BOUNDARIES.isEmpty();
    }

    private Channel() {
    }

    /** Reports whether the agent is connected to a driver; when not, {@link #send} drops events. */
    public static boolean connected() {
        synchronized (LOCK) {
            return out != null;
        }
    }

    /**
     * Sends one event (a JSON object with a string member {@code type}) to the driver. Thread-safe. When the
     * connection breaks the JVM is halted with status 86, since its results could no longer be delivered.
     *
     * @throws IllegalArgumentException when the event does not fit in one frame (16 MiB)
     */
    public static void send(Map<String, Object> event) {
        synchronized (LOCK) {
            observe(event);
            if (out == null) {
                return;
            }
            try {
                Frames.write(out, event);
                out.flush();
            } catch (IOException e) {
                Agent.fail("lost the connection to the flaky driver: " + e.getMessage());
            }
        }
        Object type = event.get("type");
        if (MessageTypes.TEST_START.equals(type) || MessageTypes.TEST_END.equals(type)) {
            Object index = event.get("index");
            int i = index instanceof Number ? ((Number) index).intValue() : -1;
            String test = String.valueOf(event.get("test"));
            if (MessageTypes.TEST_START.equals(type) && startedEarly(test, i)) {
                return;
            }
            for (Boundary hook : BOUNDARIES) {
                if (MessageTypes.TEST_START.equals(type)) {
                    hook.testStarting(test, i);
                } else {
                    hook.testEnded(test, i);
                }
            }
        }
    }

    /**
     * Names the test the runner runs next ({@code testClass} null: none), so that its start hooks run as soon as
     * an instance of {@code testClass} begins to be built, if that comes before its {@code test-start}. The runner
     * calls this before the class fixtures of a run of tests and after each test.
     */
    public static void upcoming(Class<?> testClass, String test, int index) {
        if (BOUNDARIES.isEmpty()) {
            return;
        }
        synchronized (STARTING) {
            upcoming = testClass == null ? null : new Next(testClass.getName(), test, index);
        }
        if (testClass != null) {
            Construction.watch(testClass);
        }
    }

    /**
     * Called first by every constructor of a class {@link #upcoming} named: when it is the upcoming test's class,
     * runs that test's start hooks now, before the instance is built. Public for the rewritten classes.
     */
    public static void constructing(String className) {
        if (upcoming == null) {
            return;
        }
        Next next;
        synchronized (STARTING) {
            next = upcoming;
            if (next == null || !next.className.equals(className)) {
                return;
            }
            upcoming = null;
            started = next;
        }
        for (Boundary hook : BOUNDARIES) {
            hook.testStarting(next.test, next.index);
        }
    }

    /** At {@code test-start}: reports whether the test's start hooks already ran, and forgets the upcoming test. */
    private static boolean startedEarly(String test, int index) {
        synchronized (STARTING) {
            boolean early = started != null && started.index == index && started.test.equals(test);
            started = null;
            upcoming = null;
            return early;
        }
    }

    /** Flushes buffered frames; events are flushed as they are sent, so this only guards the last write. */
    public static void flush() {
        synchronized (LOCK) {
            if (out == null) {
                return;
            }
            try {
                out.flush();
            } catch (IOException e) {
                Agent.fail("lost the connection to the flaky driver: " + e.getMessage());
            }
        }
    }

    /** Takes over a connection whose handshake succeeded: starts the command reader and the exit hook. */
    static void open(Socket connected, DataInputStream in, DataOutputStream output) {
        socket = connected;
        synchronized (LOCK) {
            out = output;
        }
        Thread reader = new Thread(() -> readCommands(in), "flaky-channel-reader");
        reader.setDaemon(true);
        reader.start();
        Runtime.getRuntime().addShutdownHook(new Thread(Channel::reportExit, "flaky-exit-reporter"));
    }

    /**
     * Returns a number that changes whenever a test or a class's run of tests starts or ends (used by the chaos
     * instrumentation to report each call site once per test). Only events passing through {@link #send} move it,
     * so it stays 0 while the runner prints its events itself (no driver).
     */
    public static int testEpoch() {
        return testEpoch;
    }

    /**
     * Reports whether the calling thread was created before the running class started: a thread an earlier class
     * left running (a never-stopped background thread), whose calls are not the running test's. Threads of unknown
     * origin count as the running test's.
     */
    public static boolean fromEarlierClass() {
        Integer origin = ORIGIN.get();
        return origin != null && origin < classEpoch;
    }

    /**
     * Returns the running test's id; outside a test (class fixtures) the running class's name; "" when neither is
     * known.
     */
    public static String runningTest() {
        synchronized (LOCK) {
            return currentTest.isEmpty() ? currentClass : currentTest;
        }
    }

    /** Tracks the running test and class, and whether the runner has finished its order, from the events that pass. */
    private static void observe(Map<String, Object> event) {
        Object type = event.get("type");
        if (MessageTypes.TEST_START.equals(type)) {
            currentTest = String.valueOf(event.get("test"));
            testEpoch++;
            ORIGIN.set(classEpoch); // the thread running the test is the running class's
        } else if (MessageTypes.TEST_END.equals(type)) {
            currentTest = "";
            testEpoch++;
        } else if (MessageTypes.CLASS_START.equals(type)) {
            currentClass = String.valueOf(event.get("class"));
            testEpoch++;
            classEpoch = testEpoch;
            ORIGIN.set(classEpoch); // the runner's thread, and the threads it creates from now on
        } else if (MessageTypes.CLASS_END.equals(type)) {
            currentClass = "";
            testEpoch++;
        } else if (MessageTypes.RUN_START.equals(type)) {
            // A JVM may run several orders (the Surefire provider runs one per class when forks are per class).
            finished = false;
        } else if (MessageTypes.RUN_END.equals(type) || MessageTypes.TESTS.equals(type)) {
            finished = true;
        }
    }

    /**
     * Reads driver commands until the connection closes: {@code handoff} is answered with {@code handoff-at}; every
     * other type is ignored, as unknown types must be. When the connection ends (the driver closed it, died, or sent
     * an invalid frame) the JVM is halted: its results could no longer be delivered, and a test JVM must not outlive
     * its driver.
     */
    private static void readCommands(DataInputStream in) {
        String why;
        try {
            while (true) {
                JsonObject command = Frames.read(in);
                // The answer is chosen and sent under the lock, so an event the choice leads to (the run-end of a
                // runner that stops for it) cannot overtake it.
                synchronized (LOCK) {
                    Map<String, Object> answer = answer(command);
                    if (answer != null) {
                        send(answer);
                    }
                }
            }
        } catch (java.io.EOFException e) {
            why = "the flaky driver closed the connection";
        } catch (IOException e) {
            why = "lost the connection to the flaky driver: " + e.getMessage();
        }
        if (!exiting) {
            Agent.fail(why + "; ending this JVM");
        }
    }

    /**
     * Returns the event that answers a driver command, or null for a command that gets none (every type but
     * {@code handoff}). A {@code handoff} is answered {@code {"type":"handoff-at","at":M}} with M from the handler
     * {@link #onHandoff} set, or -1 (refused) when none is set, its {@code index} is no integer of at least 0, or the
     * handler fails.
     */
    static Map<String, Object> answer(JsonObject command) {
        if (!MessageTypes.HANDOFF.equals(Frames.string(command, "type"))) {
            return null;
        }
        int index = index(command.get("index"));
        IntUnaryOperator handler = handoff;
        int at = -1;
        if (handler != null && index >= 0) {
            try {
                at = handler.applyAsInt(index);
            } catch (RuntimeException e) {
                at = -1;
            }
        }
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("type", MessageTypes.HANDOFF_AT);
        event.put("at", at);
        return event;
    }

    /** Returns {@code value} when it is an integral JSON number of at least 0 that fits an int, else -1. */
    private static int index(JsonElement value) {
        if (value == null || !value.isJsonPrimitive() || !((JsonPrimitive) value).isNumber()) {
            return -1;
        }
        try {
            BigDecimal number = value.getAsBigDecimal();
            return number.signum() < 0 ? -1 : number.intValueExact();
        } catch (ArithmeticException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Shutdown hook: sends the {@code exit} event unless the runner finished normally, then lets the command reader
     * end (see {@link #stopReading}).
     */
    private static void reportExit() {
        sendExit();
        stopReading();
    }

    /**
     * Shuts the connection's input, so that the command reader returns from its blocking read and ends. The JVM's
     * exit waits up to 300 ms for threads blocked in native code, such as a socket read, to stop: without this every
     * JVM took 300 ms longer to exit. The output stays open for events sent later.
     */
    private static void stopReading() {
        exiting = true;
        Socket s = socket;
        if (s == null) {
            return;
        }
        try {
            s.shutdownInput();
        } catch (IOException e) {
            // The reader then ends on its own when the connection goes.
        }
    }

    /** Sends the {@code exit} event unless the runner finished normally or no driver is connected. */
    private static void sendExit() {
        synchronized (LOCK) {
            if (finished || out == null) {
                return;
            }
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("type", MessageTypes.EXIT);
            // Java offers no way to read the exit status from a shutdown hook; the driver has the process's.
            event.put("status", -1);
            event.put("test", currentTest);
            event.put("class", currentClass);
            event.put("stack", ExitStack.find());
            finished = true;
            try {
                Frames.write(out, event);
                out.flush();
            } catch (IOException e) {
                // The JVM is going down anyway; the driver sees the process exit.
            }
        }
    }
}
