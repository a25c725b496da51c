package dev.flaky.runner.junit4;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.internal.runners.JUnit38ClassRunner;
import org.junit.runner.Runner;
import org.junit.runners.BlockJUnit4ClassRunner;
import org.junit.runners.Parameterized;
import org.junit.runners.ParentRunner;
import org.junit.runners.model.TestClass;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

/**
 * Tells whether a JUnit 4 or JUnit 3 class has class-level fixtures: {@code @BeforeClass}/{@code @AfterClass}
 * methods or {@code @ClassRule} fields and methods anywhere in its hierarchy, {@code Parameterized}'s
 * {@code @BeforeParam}/{@code @AfterParam}, a static JUnit 3 {@code suite()} (e.g. a {@code TestSetup}), or a runner
 * other than {@code BlockJUnit4ClassRunner}/{@code Parameterized} (whose class-level behaviour is unknown).
 */
final class ClassFixtures {
    /** Methods through which a runner subclass could add behaviour around all of a class's tests. */
    private static final List<String> CLASS_LEVEL_METHODS = Arrays.asList(
            "run", "classBlock", "childrenInvoker", "withBeforeClasses", "withAfterClasses", "classRules");
    /** {@code Parameterized}'s per-parameter-set fixtures (JUnit 4.13), by name so that JUnit 4.12 works too. */
    private static final List<String> PARAMETER_FIXTURES = Arrays.asList(
            "org.junit.runners.Parameterized$BeforeParam", "org.junit.runners.Parameterized$AfterParam");

    private ClassFixtures() {
    }

    /** Reports whether {@code c}, run by {@code runner} (JUnit 4's default runner for it), has class fixtures. */
    static boolean of(Class<?> c, Runner runner) {
        if (hasSuiteMethod(c)) {
            return true;
        }
        if (runner instanceof JUnit38ClassRunner || Junit4Engine.isErrorRunner(runner)) {
            return false;
        }
        if (runner instanceof Parameterized) {
            return annotated(((ParentRunner<?>) runner).getTestClass()) || hasParameterFixtures(c);
        }
        if (runner instanceof BlockJUnit4ClassRunner && !addsClassLevelBehaviour(runner.getClass())) {
            return annotated(((ParentRunner<?>) runner).getTestClass());
        }
        return true;
    }

    private static boolean annotated(TestClass tc) {
        return !tc.getAnnotatedMethods(BeforeClass.class).isEmpty()
                || !tc.getAnnotatedMethods(AfterClass.class).isEmpty()
                || !tc.getAnnotatedMethods(ClassRule.class).isEmpty()
                || !tc.getAnnotatedFields(ClassRule.class).isEmpty();
    }

    private static boolean hasParameterFixtures(Class<?> c) {
        for (Method m : c.getMethods()) {
            for (Annotation a : m.getAnnotations()) {
                if (PARAMETER_FIXTURES.contains(a.annotationType().getName())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A JUnit 3 style {@code public static Test suite()}, which JUnit 4 runs instead of the class's methods. */
    private static boolean hasSuiteMethod(Class<?> c) {
        try {
            Method suite = c.getMethod("suite");
            return Modifier.isStatic(suite.getModifiers())
                    && junit.framework.Test.class.isAssignableFrom(suite.getReturnType());
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** Reports whether a {@code BlockJUnit4ClassRunner} subclass overrides what runs around all tests. */
    private static boolean addsClassLevelBehaviour(Class<?> runnerClass) {
        for (Class<?> k = runnerClass; k != BlockJUnit4ClassRunner.class; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (CLASS_LEVEL_METHODS.contains(m.getName())) {
                    return true;
                }
            }
        }
        return false;
    }
}
