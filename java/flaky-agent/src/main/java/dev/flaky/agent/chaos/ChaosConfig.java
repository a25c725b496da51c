package dev.flaky.agent.chaos;

import dev.flaky.agent.OptionList;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The agent's chaos options (see agent/PROTOCOL.md): enabled strategies, their parameters, the classes to touch. */
final class ChaosConfig {
    /** How RANDOM_MAX picks values: the maximum, the minimum, or a fixed number clamped into each call's range. */
    enum RandomMode { MAX, MIN, VALUE }

    final Set<Strategy> strategies;
    final RandomMode randomMode;
    final double randomValue;
    /** TIME_INCREMENT: the pause (ms) before a reading of the clock. */
    final long timeIncrementMs;
    /** TIME_INCREMENT and TIME_SLOW: the pauses (ms) a test may take in all. */
    final long timeBudgetMs;
    final long timeGranularityMs;
    final double timeSlow;
    final long dateMillis;
    final Locale locale;
    final long sleepMs;
    /**
     * SLEEP_INCREASE: per call site and JVM, this many sleeps are lengthened, later ones sleep their real duration;
     * 0 means every sleep is lengthened.
     */
    final int sleepLimit;
    final double concurrencyFactor;
    final double networkFactor;
    /** NETWORK_DELAY: the factor for URLConnection connect/read timeouts and Socket.setSoTimeout. */
    final double networkTimeoutFactor;
    final long resolveDelayMs;
    final long seed;
    /** ITERATION_ORDER for every caller (the JDK's and libraries' too), not only project call sites. */
    final boolean iterationAll;
    /**
     * ITERATION_ORDER only at these call sites ({@code class#method:line}), the others left in real order; empty
     * means every site (how flaky finds, by bisection, the sites whose shuffling alone fails a test).
     */
    final List<String> iterationSites;
    /**
     * RANDOM: per call site and test, this many draws are extremes, later ones real values from a seeded generator;
     * 0 means every draw is the boundary itself.
     */
    final int randomLimit;
    final long dateMarginMs;
    final String dstZone;
    final java.time.ZoneId timezone;
    final long asyncDelayMs;
    /**
     * ASYNC_DELAY: per call site and JVM, this many submissions are delayed, later ones start as they would; 0 means
     * every submission is delayed.
     */
    final int asyncLimit;
    /** Report every perturbed call with its original and perturbed value ({@code flaky chaos --explain}). */
    final boolean explain;
    final List<String> include;
    final List<String> exclude;
    final List<String> roots;

    private ChaosConfig(Map<String, String> o) {
        strategies = parseStrategies(o.get("chaos"));
        String random = o.getOrDefault("chaos.random", "max");
        if ("max".equalsIgnoreCase(random)) {
            randomMode = RandomMode.MAX;
            randomValue = 0;
        } else if ("min".equalsIgnoreCase(random)) {
            randomMode = RandomMode.MIN;
            randomValue = 0;
        } else {
            randomMode = RandomMode.VALUE;
            randomValue = number("chaos.random", random);
        }
        timeIncrementMs = o.containsKey("chaos.time.fast") && !o.containsKey("chaos.time.increment")
                ? Math.round((factorAtLeastOne(o, "chaos.time.fast", 10) - 1) * 1000)
                : nonNegativeLong(o, "chaos.time.increment", 300);
        timeBudgetMs = nonNegativeLong(o, "chaos.time.budget", 600);
        timeGranularityMs = positiveLong(o, "chaos.time.granularity", 16);
        timeSlow = factorAtLeastOne(o, "chaos.time.slow", 10);
        dateMillis = date(o.getOrDefault("chaos.date", "3000-01-01T00:00:00Z"));
        locale = locale(o.getOrDefault("chaos.locale", "tr_TR"));
        sleepMs = nonNegativeLong(o, "chaos.sleep", 2000);
        sleepLimit = (int) Math.min(Integer.MAX_VALUE, nonNegativeLong(o, "chaos.sleep.limit", 3));
        concurrencyFactor = shrinkFactor(o, "chaos.concurrency", 0.2);
        networkFactor = shrinkFactor(o, "chaos.network", 0.01);
        networkTimeoutFactor = shrinkFactor(o, "chaos.network.timeout", 0.1);
        resolveDelayMs = nonNegativeLong(o, "chaos.resolve", 1000);
        seed = o.containsKey("chaos.seed") ? seed(o.get("chaos.seed")) : Shuffler.DEFAULT_SEED;
        iterationAll = scope(o.getOrDefault("chaos.iteration.scope", "project"));
        iterationSites = OptionList.list(o.get("chaos.iteration.sites"));
        randomLimit = (int) Math.min(Integer.MAX_VALUE, nonNegativeLong(o, "chaos.random.limit", 3));
        dateMarginMs = nonNegativeLong(o, "chaos.date.margin", 2000);
        dstZone = zone("chaos.date.zone", o.getOrDefault("chaos.date.zone", "America/New_York")).getId();
        timezone = zone("chaos.timezone", o.getOrDefault("chaos.timezone", "Pacific/Chatham"));
        asyncDelayMs = nonNegativeLong(o, "chaos.async.delay", 1000);
        asyncLimit = (int) Math.min(Integer.MAX_VALUE, nonNegativeLong(o, "chaos.async.limit", 3));
        explain = Boolean.parseBoolean(o.getOrDefault("chaos.explain", "false"));
        include = OptionList.list(o.get("chaos.include"));
        exclude = OptionList.list(o.get("chaos.exclude"));
        roots = OptionList.list(o.get("chaos.roots"));
    }

    /**
     * Parses the chaos options of {@code options}; returns null when {@code chaos} is absent or empty.
     *
     * @throws IllegalArgumentException on an unknown strategy, two strategies of one group, or a bad parameter
     */
    static ChaosConfig parse(Map<String, String> options) {
        String chaos = options.get("chaos");
        if (chaos == null || chaos.trim().isEmpty()) {
            return null;
        }
        return new ChaosConfig(options);
    }

    /** Returns the parsed options keyed by option name without the {@code chaos.} prefix (strategies as "chaos"). */
    Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        for (Strategy s : strategies) {
            names.add(s.name());
        }
        d.put("chaos", names);
        d.put("roots", roots);
        d.put("include", include);
        d.put("exclude", exclude);
        d.put("random", randomMode == RandomMode.VALUE ? String.valueOf(randomValue) : randomMode.name().toLowerCase(Locale.ROOT));
        d.put("random.limit", randomLimit);
        d.put("time.increment", timeIncrementMs);
        d.put("time.budget", timeBudgetMs);
        d.put("time.granularity", timeGranularityMs);
        d.put("time.slow", timeSlow);
        d.put("date", Instant.ofEpochMilli(dateMillis).toString());
        d.put("date.margin", dateMarginMs);
        d.put("date.zone", dstZone);
        d.put("locale", locale.toLanguageTag());
        d.put("timezone", timezone.getId());
        d.put("sleep", sleepMs);
        d.put("sleep.limit", sleepLimit);
        d.put("concurrency", concurrencyFactor);
        d.put("network", networkFactor);
        d.put("network.timeout", networkTimeoutFactor);
        d.put("resolve", resolveDelayMs);
        d.put("seed", seed);
        d.put("iteration.scope", iterationAll ? "all" : "project");
        d.put("iteration.sites", iterationSites);
        d.put("async.delay", asyncDelayMs);
        d.put("async.limit", asyncLimit);
        d.put("explain", explain);
        return d;
    }

    boolean enabled(Strategy s) {
        return strategies.contains(s);
    }

    /** Returns the enabled strategy of {@code group}, or null. */
    Strategy inGroup(String group) {
        for (Strategy s : strategies) {
            if (s.group.equals(group)) {
                return s;
            }
        }
        return null;
    }

    private static Set<Strategy> parseStrategies(String value) {
        Set<Strategy> set = EnumSet.noneOf(Strategy.class);
        for (String name : OptionList.list(value)) {
            Strategy s;
            try {
                String id = name.toUpperCase(Locale.ROOT);
                s = Strategy.valueOf("TIME_FAST".equals(id) ? "TIME_INCREMENT" : id);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown chaos strategy " + name);
            }
            for (Strategy other : set) {
                if (other != s && other.group.equals(s.group)) {
                    throw new IllegalArgumentException("chaos strategies " + other + " and " + s
                            + " both perturb " + s.group + "; enable at most one strategy per group");
                }
            }
            set.add(s);
        }
        return Collections.unmodifiableSet(set);
    }

    private static double number(String key, String value) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + key + "=" + value + " is not a number");
        }
    }

    private static long nonNegativeLong(Map<String, String> o, String key, long dflt) {
        String v = o.get(key);
        if (v == null) {
            return dflt;
        }
        double d = number(key, v);
        if (d < 0) {
            throw new IllegalArgumentException("option " + key + "=" + v + " must not be negative");
        }
        return (long) d;
    }

    private static long positiveLong(Map<String, String> o, String key, long dflt) {
        long v = nonNegativeLong(o, key, dflt);
        if (v == 0) {
            throw new IllegalArgumentException("option " + key + " must be positive");
        }
        return v;
    }

    private static double factorAtLeastOne(Map<String, String> o, String key, double dflt) {
        String v = o.get(key);
        double d = v == null ? dflt : number(key, v);
        if (!(d >= 1)) {
            throw new IllegalArgumentException("option " + key + "=" + v + " must be at least 1");
        }
        return d;
    }

    private static double shrinkFactor(Map<String, String> o, String key, double dflt) {
        String v = o.get(key);
        double d = v == null ? dflt : number(key, v);
        if (!(d > 0 && d <= 1)) {
            throw new IllegalArgumentException("option " + key + "=" + v + " must be in (0, 1]");
        }
        return d;
    }

    private static long seed(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option chaos.seed=" + value + " is not a whole number");
        }
    }

    private static long date(String value) {
        try {
            return Instant.parse(value).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("option chaos.date=" + value + " is no ISO-8601 instant");
        }
    }

    private static boolean scope(String value) {
        if ("all".equalsIgnoreCase(value)) {
            return true;
        }
        if ("project".equalsIgnoreCase(value)) {
            return false;
        }
        throw new IllegalArgumentException("option chaos.iteration.scope=" + value + ": want project or all");
    }

    private static java.time.ZoneId zone(String key, String value) {
        try {
            return java.time.ZoneId.of(value);
        } catch (java.time.DateTimeException e) {
            throw new IllegalArgumentException("option " + key + "=" + value + " names no time zone");
        }
    }

    /** Accepts {@code tr_TR} (Java's form) and {@code tr-TR} (a language tag). */
    private static Locale locale(String value) {
        Locale l = Locale.forLanguageTag(value.replace('_', '-'));
        if (l.getLanguage().isEmpty()) {
            throw new IllegalArgumentException("option chaos.locale=" + value + " names no locale");
        }
        return l;
    }
}
