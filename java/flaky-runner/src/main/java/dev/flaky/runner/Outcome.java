package dev.flaky.runner;

/** The outcomes of a {@code test-end} event. */
public final class Outcome {
    /** The test passed. */
    public static final String PASS = "pass";
    /** An assertion failed. */
    public static final String FAIL = "fail";
    /** Any other throwable, including class fixture failures and unknown tests. */
    public static final String ERROR = "error";
    /** {@code @Ignore}, {@code @Disabled}. */
    public static final String SKIPPED = "skipped";
    /** An assumption failed. */
    public static final String ASSUMPTION = "assumption";

    private Outcome() {
    }

    /** Returns {@link #FAIL} for an {@link AssertionError} (and subclasses), {@link #ERROR} otherwise. */
    public static String of(Throwable t) {
        return t instanceof AssertionError ? FAIL : ERROR;
    }
}
