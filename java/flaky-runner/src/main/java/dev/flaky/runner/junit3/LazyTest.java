package dev.flaky.runner.junit3;

import junit.framework.Test;
import junit.framework.TestCase;
import junit.framework.TestResult;
import junit.framework.TestSuite;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One test method of a plain JUnit 3 {@code TestCase}, instantiated when it runs rather than when the suite is
 * built (as {@code TestSuite} does for all its tests at once), so that what is due at the test's start happens
 * before its constructor and field initialisers run. A constructor that throws fails the test with its exception,
 * reported under the test's own name. Uses only the JUnit 3.8 API.
 */
public class LazyTest implements Test {
    private final Class<?> testClass;
    private final String method;

    /** The test {@code method} of {@code testClass}. */
    public LazyTest(Class<?> testClass, String method) {
        this.testClass = testClass;
        this.method = method;
    }

    /**
     * The class's test methods as JUnit 3.8's {@code TestSuite} finds them, in its order (public, void, no
     * parameters, named {@code test...}; the class's declared methods, then its superclasses').
     */
    public static List<String> methodNames(Class<?> testClass) {
        Set<String> names = new LinkedHashSet<>();
        for (Class<?> c = testClass; c != null && Test.class.isAssignableFrom(c); c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && m.getParameterTypes().length == 0
                        && m.getName().startsWith("test") && m.getReturnType() == Void.TYPE) {
                    names.add(m.getName());
                }
            }
        }
        return new ArrayList<>(names);
    }

    /** The class whose test this is. */
    public final Class<?> testClass() {
        return testClass;
    }

    /** The test method's name. */
    public final String method() {
        return method;
    }

    @Override
    public int countTestCases() {
        return 1;
    }

    @Override
    public void run(TestResult result) {
        Test test;
        try {
            test = instantiate();
        } catch (Throwable t) {
            result.startTest(this);
            result.addError(this, t);
            result.endTest(this);
            return;
        }
        test.run(result);
    }

    /** The test as {@code TestSuite.createTest} builds it, failing with the constructor's own exception. */
    private Test instantiate() throws Throwable {
        Constructor<?> constructor = TestSuite.getTestConstructor(testClass);
        Object test;
        try {
            if (constructor.getParameterTypes().length == 0) {
                test = constructor.newInstance();
                if (test instanceof TestCase) {
                    ((TestCase) test).setName(method);
                }
            } else {
                test = constructor.newInstance(method);
            }
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        return (Test) test;
    }

    @Override
    public String toString() {
        return method + "(" + testClass.getName() + ")";
    }
}
