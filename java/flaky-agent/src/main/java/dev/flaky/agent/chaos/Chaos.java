package dev.flaky.agent.chaos;

import java.lang.instrument.Instrumentation;
import java.util.Map;

/** Installs the chaos instrumentation when the agent options enable strategies ({@code chaos=...}). */
public final class Chaos {
    private Chaos() {
    }

    /**
     * Installs the transformers for the strategies enabled in {@code options}; does nothing (installs no
     * transformer at all) without a {@code chaos} option.
     *
     * @throws IllegalArgumentException when the chaos options are invalid
     */
    public static void install(Map<String, String> options, Instrumentation inst) {
        ChaosConfig config = ChaosConfig.parse(options);
        if (config == null) {
            return;
        }
        Api.configure(config);
        if (config.enabled(Strategy.LOCALE)) {
            LocaleLock.install(config.locale, inst);
        }
        Targets targets = Targets.of(config);
        ClassSelection selection = new ClassSelection(config.roots, config.include, config.exclude);
        inst.addTransformer(new CallSiteTransformer(targets, selection), false);
    }
}
