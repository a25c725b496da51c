/**
 * The flaky java agent: connects the test JVM to the flaky driver over loopback TCP (see agent/PROTOCOL.md)
 * and carries the runner's events to it, including an {@code exit} event when the JVM exits early.
 */
package dev.flaky.agent;
