package dev.flaky.agent.chaos;

/**
 * A perturbation strategy; its name is the id used in agent options, events and reports. The TIME strategies are one
 * model of a slow or disturbed machine ({@link PerceivedClock}): a loaded machine's pauses (TIME_INCREMENT), a coarse
 * clock (TIME_ROUNDING), a slow CPU (TIME_SLOW), never a clock that runs at another rate than sleeps and waits.
 * TIME_FAST, once a clock running faster by a factor, is accepted as TIME_INCREMENT ({@code chaos.time.fast=F} as
 * {@code chaos.time.increment=(F-1)*1000}).
 */
public enum Strategy {
    RANDOM_MAX("RANDOM"),
    TIME_INCREMENT("TIME"),
    TIME_ROUNDING("TIME"),
    TIME_SLOW("TIME"),
    DATE_FIXED("DATE"),
    DATE_YEAR_END("DATE"),
    DATE_DST("DATE"),
    LOCALE("LOCALE"),
    TIMEZONE("LOCALE"),
    SLEEP_INCREASE("SLEEP"),
    SLEEP_DECREASE("SLEEP"),
    CONCURRENCY_SHRINK("CONCURRENCY"),
    NETWORK_DELAY("NETWORK"),
    ASYNC_DELAY("ASYNC"),
    ITERATION_ORDER("ITERATION_ORDER");

    /** The group: strategies of one group perturb the same APIs, so at most one of them is enabled at a time. */
    public final String group;

    Strategy(String group) {
        this.group = group;
    }
}
