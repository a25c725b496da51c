package dev.flaky.surefire;

import dev.flaky.runner.ListedTest;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps the class of a test id to its test set, the test class Surefire gave that it is reported under (as Surefire's
 * own providers do): itself, or for a nested class the Surefire class it was listed through or that encloses it.
 */
final class TestSets {
    private final Set<String> surefireClasses;
    private final Map<String, String> listedThrough = new HashMap<>();

    TestSets(List<String> surefireClasses, List<ListedTest> listed) {
        this.surefireClasses = new HashSet<>(surefireClasses);
        for (ListedTest t : listed) {
            listedThrough.putIfAbsent(t.className, t.listedClass);
        }
    }

    /** The test set of tests declared in {@code className}. */
    String of(String className) {
        String listed = listedThrough.get(className);
        if (listed != null) {
            return listed;
        }
        if (surefireClasses.contains(className)) {
            return className;
        }
        for (int dollar = className.lastIndexOf('$'); dollar > 0; dollar = className.lastIndexOf('$', dollar - 1)) {
            String enclosing = className.substring(0, dollar);
            if (surefireClasses.contains(enclosing)) {
                return enclosing;
            }
        }
        return className;
    }

    /** The class part of a test id. */
    static String classOf(String testId) {
        int hash = testId.indexOf('#');
        return hash < 0 ? testId : testId.substring(0, hash);
    }

    /** The part of a test id after {@code #}. */
    static String nameOf(String testId) {
        int hash = testId.indexOf('#');
        return hash < 0 ? "" : testId.substring(hash + 1);
    }
}
