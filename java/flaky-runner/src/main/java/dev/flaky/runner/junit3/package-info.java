/**
 * The JUnit 3 engine, for class paths with JUnit 3.8 and no JUnit 4: it uses nothing but {@code junit.framework}
 * and runs {@code TestCase} classes and {@code suite()} classes as Surefire's JUnit 3 provider does.
 */
package dev.flaky.runner.junit3;
