package dev.flaky.agent;

/**
 * The {@code type} member of every protocol message (see agent/PROTOCOL.md), for every sender and reader on the
 * Java side: the agent, its features and the runner. The Go side's message set is checked against this file by a
 * unit test (agent/messagetypes_java_test.go), so keep each one a {@code static final String NAME = "..."} line.
 *
 * <p>They are compile-time constants: javac copies them into the classes that use them, so the runner uses them
 * without loading this class, in JVMs that run without the agent too.
 */
public final class MessageTypes {
    /** The agent's first message on a new connection. */
    public static final String HELLO = "hello";
    /** The driver's acceptance of a hello. */
    public static final String WELCOME = "welcome";
    /** The driver's refusal of a hello. */
    public static final String REJECT = "reject";
    /** The runner's list of the tests it found. */
    public static final String TESTS = "tests";
    /** The runner starts an order. */
    public static final String RUN_START = "run-start";
    /** The runner has finished an order. */
    public static final String RUN_END = "run-end";
    /** A test class's fixtures start. */
    public static final String CLASS_START = "class-start";
    /** A test class is done. */
    public static final String CLASS_END = "class-end";
    /** A test class failed outside its tests. */
    public static final String CLASS_ERROR = "class-error";
    /** A test starts. */
    public static final String TEST_START = "test-start";
    /** A test ended, with its outcome. */
    public static final String TEST_END = "test-end";
    /** The driver's command to stop the order before a class run at or after an entry (another JVM runs the rest). */
    public static final String HANDOFF = "handoff";
    /** The answer to a handoff: the first entry the JVM will not run, or -1. */
    public static final String HANDOFF_AT = "handoff-at";
    /** The JVM exits. */
    public static final String EXIT = "exit";
    /** A line for the driver's log. */
    public static final String LOG = "log";
    /** A perturbed call (chaos). */
    public static final String PERTURBATION = "perturbation";
    /** Captured, restored or probed state (state). */
    public static final String STATE = "state";
    /** A test's traced values (invariants). */
    public static final String INVARIANTS = "invariants";
    /** A test's data dependencies (dataflow). */
    public static final String DATAFLOW = "dataflow";

    private MessageTypes() {
    }
}
