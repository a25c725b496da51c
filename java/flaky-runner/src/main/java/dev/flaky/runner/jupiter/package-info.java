/**
 * Runs Jupiter test classes through the JUnit Platform launcher, keeping a requested method order with a
 * {@link org.junit.jupiter.api.MethodOrderer}. Loaded only when the JUnit Platform and Jupiter are on the class
 * path.
 */
package dev.flaky.runner.jupiter;
