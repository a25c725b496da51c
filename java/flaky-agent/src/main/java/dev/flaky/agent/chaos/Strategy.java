package dev.flaky.agent.chaos;

/** A perturbation strategy; its name is the id used in agent options, events and reports. */
public enum Strategy {
    RANDOM_MAX("RANDOM"),
    TIME_INCREMENT("TIME"),
    TIME_ROUNDING("TIME"),
    TIME_FAST("TIME"),
    TIME_SLOW("TIME"),
    DATE_FIXED("DATE"),
    LOCALE("LOCALE"),
    SLEEP_INCREASE("SLEEP"),
    SLEEP_DECREASE("SLEEP"),
    CONCURRENCY_SHRINK("CONCURRENCY"),
    NETWORK_DELAY("NETWORK"),
    ITERATION_ORDER("ITERATION_ORDER");

    /** The group: strategies of one group perturb the same APIs, so at most one of them is enabled at a time. */
    public final String group;

    Strategy(String group) {
        this.group = group;
    }
}
