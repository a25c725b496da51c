package dev.flaky.agent.chaos;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.TimeZone;

/** Installs the chaos instrumentation when the agent options enable strategies ({@code chaos=...}). */
public final class Chaos {
    private Chaos() {
    }

    /**
     * Returns what the chaos options of {@code options} parse to (strategies, lists decoded, parameters with their
     * defaults), keyed by option name without the {@code chaos.} prefix; null without a {@code chaos} option.
     *
     * @throws IllegalArgumentException when the chaos options are invalid
     */
    public static Map<String, Object> describe(Map<String, String> options) {
        ChaosConfig config = ChaosConfig.parse(options);
        return config == null ? null : config.describe();
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
        if (config.enabled(Strategy.TIMEZONE)) {
            // Like LOCALE, for the JDK's and libraries' code too; a program may still set its own default zone.
            TimeZone.setDefault(TimeZone.getTimeZone(config.timezone));
        }
        if (config.enabled(Strategy.DATE_DST) && !PerceivedClock.hasTransitions(TimeZone.getDefault().toZoneId())) {
            CallSiteTransformer.warn("chaos: the default time zone " + TimeZone.getDefault().getID()
                    + " has no DST transitions; DATE_DST moves the clock to one of " + config.dstZone
                    + " instead (combine it with TIMEZONE to run in a zone with DST)");
        }
        Strategy time = config.inGroup("TIME");
        if (time != null || config.inGroup("DATE") != null) {
            TimeApi.configure(new PerceivedClock(time, config));
        }
        Api.configure(config);
        AsyncApi.configure(config);
        NetApi.configure(config);
        Explain.on = config.explain;
        if (config.enabled(Strategy.LOCALE)) {
            LocaleLock.install(config.locale, inst);
        }
        Targets targets = Targets.of(config);
        ClassSelection selection = new ClassSelection(config.roots, config.include, config.exclude);
        CallSiteTransformer transformer = new CallSiteTransformer(targets, selection);
        if (config.enabled(Strategy.ITERATION_ORDER) && config.iterationAll) {
            try {
                IterationAll.install(inst, transformer.projectClasses);
            } catch (IOException e) {
                CallSiteTransformer.warn("chaos: " + e.getMessage() + "; only project call sites are shuffled");
                targets = Targets.of(config, false);
                transformer = new CallSiteTransformer(targets, selection);
            }
        }
        inst.addTransformer(transformer, false);
    }
}
