package dev.flaky.agent.chaos;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The {@code Random} instances the project seeded explicitly ({@code new Random(seed)}, {@code setSeed}), whose
 * values RANDOM_MAX never perturbs. Weak, so tracked instances can still be collected; Random does not override
 * equals/hashCode, so the map compares identities.
 */
final class Seeded {
    private static final Map<Object, Boolean> SEEDED = Collections.synchronizedMap(new WeakHashMap<>());
    private static volatile boolean any;

    private Seeded() {
    }

    static void mark(Object random) {
        if (random != null) {
            SEEDED.put(random, Boolean.TRUE);
            any = true;
        }
    }

    static boolean contains(Object random) {
        return any && SEEDED.containsKey(random);
    }
}
