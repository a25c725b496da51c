package dev.flaky.agent.state;

import dev.flaky.agent.OptionList;
import dev.flaky.agent.chaos.ClassSelection;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@code state} agent options (see agent/PROTOCOL.md): where to capture, which classes' static fields count,
 * the bounds per root, and a restore file.
 */
final class StateConfig {
    /** Classes of test frameworks, mocking and logging libraries whose statics are nobody's test state. */
    static final List<String> DEFAULT_EXCLUDES = Collections.unmodifiableList(java.util.Arrays.asList(
            "org.junit.**", "junit.**", "org.testng.**", "com.beust.**", "org.opentest4j.**", "org.apiguardian.**",
            "org.hamcrest.**",
            "org.mockito.**", "net.bytebuddy.**", "org.objenesis.**", "org.apache.maven.**", "org.jacoco.**",
            "org.slf4j.**", "ch.qos.logback.**", "org.apache.logging.**", "org.apache.log4j.**",
            "org.apache.commons.logging.**", "kotlin.**", "org.assertj.core.internal.**", "org.easymock.**",
            "org.powermock.**", "org.jmock.**", "com.sun.**", "sun.**", "jdk.**"));

    /** Capture before and after every test. */
    final boolean every;
    /** Order indexes to capture right before (when not every). */
    final List<Integer> before = new ArrayList<>();
    /** Order indexes to capture right after (when not every). */
    final List<Integer> after = new ArrayList<>();
    /** File with the roots to restore (see {@link Restorer}), or null. */
    final String restore;
    /** File with the reset candidates to probe (see {@link Probe}), or null. */
    final String probe;
    /** The {@code state.include} and {@code state.exclude} patterns as given (decoded). */
    final List<String> includeGlobs, excludeGlobs;
    final List<Pattern> include = new ArrayList<>();
    final List<Pattern> exclude = new ArrayList<>();
    final List<Pattern> defaultExclude = new ArrayList<>();
    final Walker.Limits limits;

    private StateConfig(Map<String, String> options) {
        String points = options.get("state");
        every = "all".equals(points);
        if (!every) {
            for (String p : OptionList.list(points)) {
                int colon = p.indexOf(':');
                if (colon < 0) {
                    throw new IllegalArgumentException("state point " + p + ": want before:N or after:N");
                }
                int index = integer("state", p.substring(colon + 1));
                String where = p.substring(0, colon);
                if ("before".equals(where)) {
                    before.add(index);
                } else if ("after".equals(where)) {
                    after.add(index);
                } else if (!"init".equals(where)) {
                    throw new IllegalArgumentException("state point " + p + ": want before:N or after:N");
                }
            }
        }
        String r = options.get("state.restore");
        restore = r == null || r.isEmpty() ? null : OptionList.decode(r);
        String pr = options.get("state.probe");
        probe = pr == null || pr.isEmpty() ? null : OptionList.decode(pr);
        includeGlobs = OptionList.list(options.get("state.include"));
        excludeGlobs = OptionList.list(options.get("state.exclude"));
        for (String p : includeGlobs) {
            include.add(ClassSelection.pattern(p));
        }
        for (String p : excludeGlobs) {
            exclude.add(ClassSelection.pattern(p));
        }
        for (String p : DEFAULT_EXCLUDES) {
            defaultExclude.add(ClassSelection.pattern(p));
        }
        limits = new Walker.Limits(bound(options, "state.depth", 24), bound(options, "state.nodes", 20_000),
                bound(options, "state.bytes", 1 << 20));
    }

    /** Returns the configuration, or null without a {@code state} option. */
    static StateConfig parse(Map<String, String> options) {
        return options.containsKey("state") || options.containsKey("state.restore") || options.containsKey("state.probe") ? new StateConfig(options) : null;
    }

    /** Returns the parsed options keyed by option name without the {@code state.} prefix (the points as "state"). */
    Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        Map<String, Object> points = new LinkedHashMap<>();
        points.put("all", every);
        points.put("before", before);
        points.put("after", after);
        d.put("state", points);
        d.put("restore", restore);
        d.put("probe", probe);
        d.put("include", includeGlobs);
        d.put("exclude", excludeGlobs);
        d.put("depth", limits.depth);
        d.put("nodes", limits.nodes);
        d.put("bytes", limits.bytes);
        return d;
    }

    /** Reports whether the static fields of class {@code name} are captured. */
    boolean selects(String name) {
        if (name.startsWith("dev.flaky.") || Types.generated(name)) {
            return false;
        }
        for (Pattern p : exclude) {
            if (p.matcher(name).matches()) {
                return false;
            }
        }
        for (Pattern p : include) {
            if (p.matcher(name).matches()) {
                return true;
            }
        }
        for (Pattern p : defaultExclude) {
            if (p.matcher(name).matches()) {
                return false;
            }
        }
        return include.isEmpty();
    }

    /** Reports whether any capture is asked for (a restore-only run captures nothing). */
    boolean capturing() {
        return every || !before.isEmpty() || !after.isEmpty();
    }

    boolean capturesBefore(int index) {
        return every || before.contains(index);
    }

    boolean capturesAfter(int index) {
        return every || after.contains(index);
    }

    private static int bound(Map<String, String> options, String key, int fallback) {
        String v = options.get(key);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        int n = integer(key, v);
        if (n < 1) {
            throw new IllegalArgumentException("option " + key + "=" + v + " must be at least 1");
        }
        return n;
    }

    private static int integer(String key, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + key + "=" + v + " is not a number");
        }
    }
}
