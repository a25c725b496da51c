package dev.flaky.surefire;

import java.util.Locale;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The per-test timeout of the provider, from the fork's system property {@code flaky.testTimeout}: a test that makes
 * no progress for this long is cut (see {@link TimedRun}). The default is the one of the JVMs the flaky driver
 * launches ({@code flaky verify --test-timeout}, two minutes).
 */
public final class TestTimeout {
    /** System property setting the timeout: a duration such as {@code 90s}, {@code 2m}, {@code 1m30s}, {@code 500ms}, a
     * number of seconds, or {@code 0}/{@code off} for none. */
    public static final String PROPERTY = "flaky.testTimeout";
    /** The default timeout in milliseconds. */
    static final long DEFAULT_MS = 2 * 60 * 1000;

    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h)");

    private TestTimeout() {
    }

    /**
     * Returns the timeout in milliseconds that {@code properties} set, {@link #DEFAULT_MS} when they set none, and 0
     * when it is off.
     *
     * @throws IllegalArgumentException when the value is not a duration
     */
    public static long millis(Properties properties) {
        String v = properties.getProperty(PROPERTY);
        if (v == null || v.trim().isEmpty()) {
            return DEFAULT_MS;
        }
        return parse(v.trim().toLowerCase(Locale.ROOT));
    }

    static long parse(String v) {
        if (v.equals("off")) {
            return 0;
        }
        try {
            if (v.matches("\\d+")) {
                return Math.multiplyExact(Long.parseLong(v), 1000L);
            }
            Matcher m = PART.matcher(v);
            long total = 0;
            int at = 0;
            while (at < v.length() && m.find(at) && m.start() == at) {
                long n = Long.parseLong(m.group(1));
                switch (m.group(2)) {
                    case "ms":
                        break;
                    case "s":
                        n = Math.multiplyExact(n, 1000L);
                        break;
                    case "m":
                        n = Math.multiplyExact(n, 60_000L);
                        break;
                    default:
                        n = Math.multiplyExact(n, 3_600_000L);
                        break;
                }
                total = Math.addExact(total, n);
                at = m.end();
            }
            if (at == v.length() && at > 0) {
                return total;
            }
        } catch (ArithmeticException | NumberFormatException e) {
            // too large: reported below
        }
        throw new IllegalArgumentException("-D" + PROPERTY + " must be a duration such as 90s, 2m or 500ms (0 or off "
                + "for none), got " + v);
    }

    /** Formats a timeout for messages: {@code 2m}, {@code 90s}, {@code 1500ms}. */
    static String format(long ms) {
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
