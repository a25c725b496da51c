/**
 * The invariant tracer (Takuan with Daikon hooks): on the {@code invariants} option it traces the entry
 * and exit of the project's methods (arguments, receiver fields, return values, the declaring class's static
 * fields, as Daikon sees them), keeps a bounded sample per program point and test, and sends the samples of each
 * test to the driver at its end; the driver infers the invariants.
 */
package dev.flaky.agent.invariants;
