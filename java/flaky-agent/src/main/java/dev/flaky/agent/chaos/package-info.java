/**
 * API perturbation (ChaosAPI strategies plus NonDex-like iteration-order shuffling): rewrites the project's call
 * sites of nondeterministic JDK APIs to the wrappers in {@link dev.flaky.agent.chaos.Api}, which perturb inputs or
 * results within the APIs' specifications and report each call site the first time a test hits it (the
 * {@code perturbation} event of agent/PROTOCOL.md).
 */
package dev.flaky.agent.chaos;
