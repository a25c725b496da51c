package dev.flaky.runner.junit4;

import org.junit.runner.Description;
import org.junit.runner.Runner;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;
import org.junit.runner.notification.RunNotifier;

import java.util.ArrayList;
import java.util.List;

/**
 * Tells a class without tests from a class that cannot run. For both, JUnit puts a placeholder in the place of the
 * tests: {@code initializationError} (JUnit 4's {@code ErrorReportingRunner}) or JUnit 3's {@code warning} (a
 * {@code TestSuite} of a {@code TestCase}). A class is without tests when the placeholder's only complaint is that
 * there is nothing to run ("No runnable methods", "No tests found in ..."); any other complaint (a constructor with
 * parameters, a non-public class or method, ...) is a class that fails to initialise, a real error.
 */
final class NoTests {
    private static final String JUNIT3_PLACEHOLDER_CLASS = "junit.framework.TestSuite$";
    private static final String JUNIT3_PLACEHOLDER = "warning";
    private static final String NO_RUNNABLE_METHODS = "No runnable methods";
    private static final String NO_TESTS_FOUND = "No tests found in ";

    private NoTests() {
    }

    /**
     * Returns why {@code runner} (JUnit's runner for {@code c}) has no tests, or null when it has some or cannot
     * run. Only a placeholder runner is run, which runs no code of the project.
     */
    static String of(Class<?> c, Runner runner) {
        if (!Junit4Engine.isErrorRunner(runner) && !onlyJunit3Placeholders(runner.getDescription())) {
            return null;
        }
        List<String> complaints = complaints(runner);
        if (complaints.isEmpty()) {
            return null;
        }
        for (String complaint : complaints) {
            if (!complaint.equals(NO_RUNNABLE_METHODS) && !complaint.equals(NO_TESTS_FOUND + c.getName())) {
                return null;
            }
        }
        return complaints.get(0);
    }

    private static boolean onlyJunit3Placeholders(Description tree) {
        List<Description> leaves = Junit4Engine.leaves(tree);
        for (Description leaf : leaves) {
            if (!JUNIT3_PLACEHOLDER.equals(leaf.getMethodName())
                    || !leaf.getClassName().startsWith(JUNIT3_PLACEHOLDER_CLASS)) {
                return false;
            }
        }
        return !leaves.isEmpty();
    }

    /**
     * Runs the placeholder and returns its complaints: each failure's message, split into the numbered list of
     * JUnit 4.13's {@code InvalidTestClassError} ("Invalid test class 'X':\n  1. ...").
     */
    private static List<String> complaints(Runner runner) {
        List<String> messages = new ArrayList<>();
        RunNotifier notifier = new RunNotifier();
        notifier.addListener(new RunListener() {
            @Override
            public void testFailure(Failure f) {
                messages.add(f.getMessage() == null ? "" : f.getMessage());
            }
        });
        runner.run(notifier);
        List<String> complaints = new ArrayList<>();
        for (String m : messages) {
            if (!m.startsWith("Invalid test class")) {
                complaints.add(m.trim());
                continue;
            }
            for (String line : m.split("\n")) {
                String item = line.trim().replaceFirst("^\\d+\\. ", "");
                if (!item.equals(line.trim())) {
                    complaints.add(item);
                }
            }
        }
        return complaints;
    }
}
