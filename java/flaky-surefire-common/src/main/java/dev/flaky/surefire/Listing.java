package dev.flaky.surefire;

import dev.flaky.runner.ListedTest;
import dev.flaky.runner.TestRunner;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;

/** The tests of Surefire's test classes, listed through the runner once per class. */
public final class Listing {
    private static final String TESTNG = "testng";
    private final TestRunner runner;
    private final Map<String, List<ListedTest>> byClass = new HashMap<>();

    /** Lists through {@code runner}. */
    public Listing(TestRunner runner) {
        this.runner = runner;
    }

    /** Returns the classes of {@code classNames} that have tests, in their order. */
    public List<String> withTests(List<String> classNames) {
        load(classNames);
        List<String> result = new ArrayList<>();
        for (String name : classNames) {
            if (!byClass.get(name).isEmpty()) {
                result.add(name);
            }
        }
        return result;
    }

    /**
     * Returns {@code classNames} with the TestNG classes first when some of them test with TestNG and others with
     * another framework, as Surefire's TestNG provider runs such a module; else {@code classNames} as they are.
     */
    public List<String> testngFirst(List<String> classNames) {
        load(classNames);
        List<String> testng = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (String name : classNames) {
            List<ListedTest> tests = byClass.get(name);
            (!tests.isEmpty() && TESTNG.equals(tests.get(0).engine) ? testng : others).add(name);
        }
        if (testng.isEmpty() || others.isEmpty()) {
            return classNames;
        }
        testng.addAll(others);
        return testng;
    }

    /** Returns {@code classes} in {@link #testngFirst} order. */
    public List<Class<?>> testngFirstClasses(Iterable<Class<?>> classes) {
        Map<String, Class<?>> byName = new LinkedHashMap<>();
        for (Class<?> c : classes) {
            byName.put(c.getName(), c);
        }
        List<Class<?>> out = new ArrayList<>();
        for (String name : testngFirst(new ArrayList<>(byName.keySet()))) {
            out.add(byName.get(name));
        }
        return out;
    }

    /** Returns the tests of {@code classNames}: class by class in that order, methods in JUnit's order. */
    List<ListedTest> tests(List<String> classNames) {
        load(classNames);
        List<ListedTest> tests = new ArrayList<>();
        for (String name : classNames) {
            tests.addAll(byClass.get(name));
        }
        return tests;
    }

    private void load(List<String> classNames) {
        List<String> missing = new ArrayList<>();
        for (String name : classNames) {
            if (!byClass.containsKey(name) && !missing.contains(name)) {
                missing.add(name);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        for (String name : missing) {
            byClass.put(name, new ArrayList<>());
        }
        for (ListedTest t : runner.list(missing)) {
            byClass.computeIfAbsent(t.listedClass, k -> new ArrayList<>()).add(t);
        }
        for (String name : missing) {
            byClass.put(name, Collections.unmodifiableList(byClass.get(name)));
        }
    }
}
