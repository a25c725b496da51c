package dev.flaky.surefire;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Properties;

/**
 * Which order the provider runs, from the fork's system properties: {@code flaky.order=FILE} (exactly the tests of
 * an order file; a relative path resolves against the module directory), {@code flaky.shuffle=SEED} (a seeded
 * method-level shuffle), or the project's default order.
 */
public final class OrderChoice {
    /** System property naming an order file. */
    public static final String ORDER_PROPERTY = "flaky.order";
    /** System property giving a shuffle seed. */
    public static final String SHUFFLE_PROPERTY = "flaky.shuffle";

    /** Kind of the default order: Surefire's classes in its order, methods in JUnit's. */
    public static final String DEFAULT = "default";
    /** Kind of an order read from a file. */
    public static final String FILE = "file";
    /** Kind of a seeded shuffle. */
    public static final String SHUFFLE = "shuffle";

    /** {@link #DEFAULT}, {@link #FILE} or {@link #SHUFFLE}. */
    public final String kind;
    /** The order file, for {@link #FILE}. */
    public final Path file;
    /** The seed, for {@link #SHUFFLE}. */
    public final long seed;

    private OrderChoice(String kind, Path file, long seed) {
        this.kind = kind;
        this.file = file;
        this.seed = seed;
    }

    /**
     * Reads the choice from system properties; the module directory is {@code basedir} (set by Surefire) or else
     * {@code user.dir}.
     *
     * @throws IllegalArgumentException when both properties are set or the seed is not a number
     */
    public static OrderChoice from(Properties properties) {
        String order = value(properties, ORDER_PROPERTY);
        String shuffle = value(properties, SHUFFLE_PROPERTY);
        if (order != null && shuffle != null) {
            throw new IllegalArgumentException("set -D" + ORDER_PROPERTY + " or -D" + SHUFFLE_PROPERTY + ", not both");
        }
        if (order != null) {
            Path file = Paths.get(order);
            if (!file.isAbsolute()) {
                String base = value(properties, "basedir");
                file = Paths.get(base != null ? base : properties.getProperty("user.dir", ".")).resolve(file);
            }
            return new OrderChoice(FILE, file.normalize(), 0);
        }
        if (shuffle != null) {
            try {
                return new OrderChoice(SHUFFLE, null, Long.parseLong(shuffle));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + SHUFFLE_PROPERTY + " must be a whole number (the seed), got "
                        + shuffle, e);
            }
        }
        return new OrderChoice(DEFAULT, null, 0);
    }

    /** Describes the choice for the console. */
    String describe(int count) {
        switch (kind) {
            case FILE:
                return "running " + count + " tests in the order of " + file;
            case SHUFFLE:
                return "running " + count + " tests shuffled with seed " + seed + " (-D" + SHUFFLE_PROPERTY + "="
                        + seed + ")";
            default:
                return "running " + count + " tests in the default order";
        }
    }

    private static String value(Properties properties, String key) {
        String v = properties.getProperty(key);
        return v == null || v.trim().isEmpty() ? null : v.trim();
    }
}
