package dev.flaky.surefire;

import dev.flaky.runner.Failure;

/** A test as reported to Surefire: its test set, its class and name, and once finished its outcome. */
public final class TestResult {
    /** The test set (the test class Surefire gave) the test is reported in. */
    public final String testSet;
    /** The class of the test id, e.g. {@code pkg.Outer$Inner} for a nested class. */
    public final String className;
    /** The part of the test id after {@code #}, e.g. {@code m} or {@code m[2]}. */
    public final String name;
    /** The outcome (see {@link dev.flaky.runner.Outcome}), or null while the test runs. */
    public final String outcome;
    /** How long the test ran. */
    public final long timeMs;
    /** The failure, skip reason or missing-test message, or null. */
    public final Failure failure;

    TestResult(String testSet, String className, String name, String outcome, long timeMs, Failure failure) {
        this.testSet = testSet;
        this.className = className;
        this.name = name;
        this.outcome = outcome;
        this.timeMs = timeMs;
        this.failure = failure;
    }

    /** The test id, {@code className#name}. */
    public String id() {
        return className + "#" + name;
    }

    /** The method name: {@link #name} without an invocation suffix such as {@code [2]}. */
    public String methodName() {
        int bracket = name.indexOf('[');
        return bracket < 0 ? name : name.substring(0, bracket);
    }

    /** The failure's message, or null. */
    public String message() {
        return failure == null ? null : failure.message();
    }
}
