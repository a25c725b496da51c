/**
 * Warm runs: one JVM runs several orders one after another, each in a fresh class loader over the test class path
 * (the project's classes, its dependencies and the test framework, and the runner itself), with the JDK state that
 * outlives a class loader (system properties, default locale and time zone, files, stream and handler defaults)
 * reset between orders. Only the JDK and this bootstrap are shared by the orders.
 */
package dev.flaky.runner.warm;
