/**
 * The flaky runner: lists a module's tests and runs an order of tests with the project's own JUnit, reporting
 * events through the agent's channel (or as JSON lines on standard output when no agent is connected).
 */
package dev.flaky.runner;
