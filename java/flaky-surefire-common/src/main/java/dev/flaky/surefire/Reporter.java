package dev.flaky.surefire;

import dev.flaky.runner.Failure;

/**
 * Reports to Surefire the way its own JUnit providers do; one implementation per Surefire SPI generation. Calls for
 * one test set (test class) come together: {@code testSetStarting}, its tests and output, {@code testSetCompleted}.
 *
 * @param <O> Surefire's type of a captured chunk of test output
 */
public interface Reporter<O> {
    /** A test set (a test class Surefire gave, whose TEST-*.xml this is) starts. */
    void testSetStarting(String testSet);

    /** A test starts ({@code test.outcome} is null). */
    void testStarting(TestResult test);

    /** A test finished with {@code test.outcome}. */
    void testFinished(TestResult test);

    /** An {@code @AfterClass}/{@code @AfterAll} failure of {@code className}, which belongs to no single test. */
    void classError(String testSet, String className, Failure failure);

    /**
     * Test output written while {@code test} ran (null between tests) in {@code testSet} (null outside any test
     * class, then it is written at once).
     */
    void output(TestResult test, String testSet, O chunk);

    /** The test set is done; its tests ran for {@code elapsedMs} in all. */
    void testSetCompleted(String testSet, long elapsedMs);

    /** A diagnostic for the console; {@code level} is {@code info}, {@code warn} or {@code error}. */
    void log(String level, String message);
}
