package dev.flaky.runner.testng;

import org.testng.annotations.AfterClass;
import org.testng.annotations.AfterGroups;
import org.testng.annotations.AfterMethod;
import org.testng.annotations.AfterSuite;
import org.testng.annotations.AfterTest;
import org.testng.annotations.BeforeClass;
import org.testng.annotations.BeforeGroups;
import org.testng.annotations.BeforeMethod;
import org.testng.annotations.BeforeSuite;
import org.testng.annotations.BeforeTest;
import org.testng.annotations.DataProvider;
import org.testng.annotations.Factory;
import org.testng.annotations.Test;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What TestNG makes of a class, found by reflection: its test methods (public methods with {@code @Test}, or public
 * methods of a class with a class-level {@code @Test}, less configuration, data-provider and factory methods and
 * disabled tests), whether its methods have an order of their own ({@code dependsOnMethods},
 * {@code dependsOnGroups}, {@code priority}), which of them run once per data-provider row, and whether it has class
 * fixtures.
 */
final class TestMethods {
    private static final List<Class<? extends Annotation>> NOT_TESTS = Arrays.asList(
            BeforeSuite.class, AfterSuite.class, BeforeTest.class, AfterTest.class, BeforeGroups.class,
            AfterGroups.class, BeforeClass.class, AfterClass.class, BeforeMethod.class, AfterMethod.class,
            DataProvider.class, Factory.class);

    /** The configuration annotations that make a class's methods one scope that orders keep together. */
    private static final List<Class<? extends Annotation>> CLASS_FIXTURES = Arrays.asList(
            BeforeClass.class, AfterClass.class, BeforeTest.class, AfterTest.class, BeforeGroups.class,
            AfterGroups.class);

    private final Class<?> testClass;
    /** The test methods by name (overloads are one test), in TestNG's default order. */
    private final Map<String, Test> tests;

    private TestMethods(Class<?> testClass, Map<String, Test> tests) {
        this.testClass = testClass;
        this.tests = tests;
    }

    /** The test methods of {@code c}. */
    static TestMethods of(Class<?> c) {
        Test classLevel = classLevel(c);
        Map<String, Test> found = new LinkedHashMap<>();
        for (Method m : c.getMethods()) {
            if (m.getDeclaringClass() == Object.class
                    || Modifier.isStatic(m.getModifiers()) && !m.isAnnotationPresent(Test.class)) {
                continue;
            }
            Test t = m.getAnnotation(Test.class);
            if (t == null && (classLevel == null || configuration(m))) {
                continue;
            }
            boolean enabled = (t == null || t.enabled()) && (classLevel == null || classLevel.enabled());
            if (enabled) {
                found.putIfAbsent(m.getName(), t != null ? t : classLevel);
            }
        }
        return new TestMethods(c, order(found));
    }

    /** The names of the test methods, in TestNG's default order (priority, dependencies, then name). */
    List<String> names() {
        return new ArrayList<>(tests.keySet());
    }

    /** Whether {@code method} names a test method. */
    boolean has(String method) {
        return tests.containsKey(method);
    }

    /**
     * Whether the test method {@code method} has a data provider and runs once per row ({@code invocationCount} 1):
     * each invocation is a test of its own, {@code m[params](n)}, as Surefire's TestNG reporter names it. A
     * data-provider test with a larger {@code invocationCount} stays one test.
     */
    boolean invocations(String method) {
        Test t = tests.get(method);
        return t != null && !t.dataProvider().isEmpty() && t.invocationCount() == 1;
    }

    /** Whether some test method has {@link #invocations}. */
    boolean anyInvocations() {
        for (String name : tests.keySet()) {
            if (invocations(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether TestNG orders the class's methods itself ({@code dependsOnMethods}, {@code dependsOnGroups},
     * {@code priority}): flaky then runs them only in that order, the whole class at a time.
     */
    boolean fixedOrder() {
        Test classLevel = classLevel(testClass);
        if (classLevel != null && (classLevel.priority() != 0 || classLevel.dependsOnMethods().length > 0
                || classLevel.dependsOnGroups().length > 0)) {
            return true;
        }
        for (Test t : tests.values()) {
            if (t.priority() != 0 || t.dependsOnMethods().length > 0 || t.dependsOnGroups().length > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the class has class fixtures or a fixed order. Class fixtures are its (or a superclass's)
     * {@code @BeforeClass}/{@code @AfterClass}, and also {@code @BeforeTest}/{@code @AfterTest} and
     * {@code @BeforeGroups}/{@code @AfterGroups}: TestNG runs those once around the class's methods in a
     * {@code <test>} (Surefire runs one), and an order that splits the class's methods would run them again for
     * each part, in a {@code <test>} of its own.
     */
    boolean classFixtures() {
        if (fixedOrder()) {
            return true;
        }
        for (Class<?> k = testClass; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                for (Class<? extends Annotation> a : CLASS_FIXTURES) {
                    if (m.isAnnotationPresent(a)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static Test classLevel(Class<?> c) {
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            Test t = k.getAnnotation(Test.class);
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    private static boolean configuration(Method m) {
        for (Class<? extends Annotation> a : NOT_TESTS) {
            if (m.isAnnotationPresent(a)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sorts tests as TestNG runs them by default: by priority, then by name, with every method after the methods it
     * depends on.
     */
    private static Map<String, Test> order(Map<String, Test> found) {
        List<String> names = new ArrayList<>(found.keySet());
        names.sort(Comparator.<String>comparingInt(n -> found.get(n).priority()).thenComparing(n -> n));
        Map<String, Test> ordered = new LinkedHashMap<>();
        Set<String> visiting = new LinkedHashSet<>();
        for (String n : names) {
            visit(n, found, ordered, visiting);
        }
        return ordered;
    }

    private static void visit(String n, Map<String, Test> found, Map<String, Test> ordered, Set<String> visiting) {
        if (ordered.containsKey(n) || !visiting.add(n)) {
            return;
        }
        for (String dep : found.get(n).dependsOnMethods()) {
            String name = dep.substring(dep.lastIndexOf('.') + 1);
            if (found.containsKey(name)) {
                visit(name, found, ordered, visiting);
            }
        }
        ordered.put(n, found.get(n));
    }
}
