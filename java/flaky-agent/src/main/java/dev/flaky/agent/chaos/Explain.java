package dev.flaky.agent.chaos;

import dev.flaky.agent.Channel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The perturbation log of {@code chaos.explain=true} ({@code flaky chaos --explain}): every perturbed call is sent
 * as a {@code perturbation} event that also carries the value the API would have given ({@code original}) and the
 * one the program got ({@code perturbed}), at most {@value #LIMIT} per test.
 */
final class Explain {
    /** Set once by {@link Chaos#install} before any project class is loaded; wrappers check it before logging. */
    static boolean on;
    private static final int LIMIT = 2000;
    private static int epoch = -1;
    private static int sent;

    private Explain() {
    }

    /** Logs one perturbed call of site {@code id}: the original and the perturbed value (or argument). */
    static void log(int id, Object original, Object perturbed) {
        if (!on) {
            return;
        }
        synchronized (Explain.class) {
            int e = Channel.testEpoch();
            if (e != epoch) {
                epoch = e;
                sent = 0;
            }
            if (sent++ >= LIMIT) {
                return;
            }
        }
        Map<String, Object> event = Sites.event(Sites.get(id));
        event.put("original", String.valueOf(original));
        event.put("perturbed", String.valueOf(perturbed));
        Sites.sink.accept(event);
    }
}
