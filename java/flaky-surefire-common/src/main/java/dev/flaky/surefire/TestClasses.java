package dev.flaky.surefire;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * What both providers do with the test classes and method patterns Surefire gives them, each through its own
 * generation's types: which scanned classes have tests, their names, and the {@code -Dtest} method filter.
 */
public final class TestClasses {
    /** The filter without {@code -Dtest} method patterns: every method runs. */
    public static final BiPredicate<String, String> ALL_METHODS = (className, method) -> true;

    private TestClasses() {
    }

    /** The classes' names, in their order. */
    public static List<String> names(Iterable<Class<?>> classes) {
        List<String> names = new ArrayList<>();
        for (Class<?> c : classes) {
            names.add(c.getName());
        }
        return names;
    }

    /** The classes of {@code scanned} that have tests, in the order of {@code scanned}, each once. */
    public static Set<Class<?>> withTests(Listing listing, Iterable<Class<?>> scanned) {
        Set<String> withTests = new HashSet<>(listing.withTests(names(scanned)));
        Set<Class<?>> classes = new LinkedHashSet<>();
        for (Class<?> c : scanned) {
            if (withTests.contains(c.getName())) {
                classes.add(c);
            }
        }
        return classes;
    }

    /**
     * Surefire's {@code -Dtest} method patterns as a (class name, method) filter: {@code classFile} turns a class
     * name into the file name Surefire's resolver matches ({@code TestListResolver.toClassFileName}), and
     * {@code shouldRun} is the resolver's {@code shouldRun(file, method)}. A parameterised test's method
     * {@code m[1]} also runs when {@code m} matches.
     */
    public static BiPredicate<String, String> methodFilter(Function<String, String> classFile,
            BiPredicate<String, String> shouldRun) {
        return (className, method) -> {
            String file = classFile.apply(className);
            int bracket = method.indexOf('[');
            return shouldRun.test(file, method) || bracket > 0 && shouldRun.test(file, method.substring(0, bracket));
        };
    }
}
