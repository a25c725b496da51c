package dev.flaky.agent;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One thing the agent can do in a test JVM, turned on and tuned by the agent options of its {@link #name}
 * (chaos, state, invariants, dataflow). {@link Agent} installs every feature in turn, or only describes them.
 */
interface Feature {
    /** The feature's option key (and prefix of its other options), and its member in the agent's dump. */
    String name();

    /**
     * Returns what the feature's options parse to, as the agent's dump prints it; null (or false) when the options
     * do not ask for the feature.
     *
     * @throws IllegalArgumentException when the feature's options are invalid
     */
    Object describe(Map<String, String> options);

    /**
     * Installs the feature as the options ask; does nothing when they do not ask for it.
     *
     * @throws IllegalArgumentException when the feature's options are invalid
     */
    void install(Map<String, String> options, Instrumentation inst);

    /** Returns the feature {@code name} made of a describe and an install function. */
    static Feature of(String name, Function<Map<String, String>, Object> describe,
            BiConsumer<Map<String, String>, Instrumentation> install) {
        return new Feature() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Object describe(Map<String, String> options) {
                return describe.apply(options);
            }

            @Override
            public void install(Map<String, String> options, Instrumentation inst) {
                install.accept(options, inst);
            }
        };
    }
}
