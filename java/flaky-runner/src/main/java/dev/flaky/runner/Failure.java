package dev.flaky.runner;

/** What a {@code test-end} or {@code class-error} event says about a failure, skip reason or missing test. */
public final class Failure {
    /** {@code failureType} of a test id the runner cannot find. */
    public static final String TEST_NOT_FOUND = "flaky.TestNotFound";

    private static final int MAX_MESSAGE = 64 * 1024;

    final String type;
    final String message;
    final String stack;
    private final Throwable throwable;

    private Failure(String type, String message, String stack, Throwable throwable) {
        this.type = type;
        this.message = message;
        this.stack = stack;
        this.throwable = throwable;
    }

    /** Describes a throwable, with its stack trimmed to the frames that matter for {@code testClass}. */
    public static Failure of(Throwable t, Class<?> testClass) {
        return new Failure(t.getClass().getName(), cap(describe(t)), StackTraces.trim(t, testClass), t);
    }

    /**
     * Returns the throwable's message; for one without a message, and for linkage errors (a static initialiser
     * that threw: {@code ExceptionInInitializerError}, then {@code NoClassDefFoundError}), followed by its root
     * cause's type and message and the first frame of project code that the cause passed through. A throwable
     * without a message and without a cause is described by its type and its first project frame: the message is
     * never empty.
     */
    static String describe(Throwable t) {
        String own = t.getMessage();
        boolean hasOwn = own != null && !own.isEmpty();
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root == t && !hasOwn) {
            StringBuilder b = new StringBuilder(t.getClass().getName()).append(" (no message)");
            appendProjectFrame(b, t);
            return b.toString();
        }
        if (root == t || hasOwn && !(t instanceof LinkageError)) {
            return own;
        }
        StringBuilder b = new StringBuilder();
        if (hasOwn) {
            b.append(own).append("; ");
        }
        b.append("caused by ").append(root.getClass().getName());
        if (root.getMessage() != null && !root.getMessage().isEmpty()) {
            b.append(": ").append(root.getMessage());
        }
        appendProjectFrame(b, root);
        return b.toString();
    }

    /** Appends " (at FRAME)" for the first frame of project code in {@code t}'s stack, if any. */
    private static void appendProjectFrame(StringBuilder b, Throwable t) {
        for (StackTraceElement frame : t.getStackTrace()) {
            if (isProjectFrame(frame.getClassName())) {
                b.append(" (at ").append(frame).append(')');
                return;
            }
        }
    }

    private static final String[] NOT_PROJECT = {
        "java.", "javax.", "jdk.", "sun.", "com.sun.", "org.junit.", "junit.", "org.testng.", "org.opentest4j.",
        "dev.flaky.agent."};

    private static boolean isProjectFrame(String className) {
        for (String prefix : NOT_PROJECT) {
            if (className.startsWith(prefix)) {
                return false;
            }
        }
        return true;
    }

    /** A bare message, such as the reason a test was skipped (null for none). */
    public static Failure reason(String message) {
        return new Failure(null, cap(message), null, null);
    }

    /** A test the runner cannot find or run. */
    public static Failure notFound(String message) {
        return new Failure(TEST_NOT_FOUND, message, null, null);
    }

    /** The {@code failureType}: the throwable's class name, {@link #TEST_NOT_FOUND}, or null for a bare reason. */
    public String type() {
        return type;
    }

    /** The message (capped at 64 KiB), or null. */
    public String message() {
        return message;
    }

    /** The trimmed stack trace, or null when there is no throwable. */
    public String stack() {
        return stack;
    }

    /** The throwable itself, or null; available in process only, never sent to the driver. */
    public Throwable throwable() {
        return throwable;
    }

    private static String cap(String s) {
        if (s == null || s.length() <= MAX_MESSAGE) {
            return s;
        }
        return s.substring(0, MAX_MESSAGE) + "... (" + (s.length() - MAX_MESSAGE) + " more characters)";
    }
}
