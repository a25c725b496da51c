/**
 * Data dependencies between tests (PraDeT): in one instrumented reference run the agent records which test
 * last wrote each piece of shared state (a static field of a project class and the objects reached through it, a
 * system property) and, when a later test reads it, a dependency of the reader on that writer. Each test's
 * dependencies are sent in one {@code dataflow} event when it ends; the driver refines them by experiment.
 */
package dev.flaky.agent.dataflow;
