package dev.flaky.runner.junit4;

import junit.framework.Test;
import junit.framework.TestCase;
import junit.framework.TestResult;
import junit.framework.TestSuite;
import org.junit.runner.Describable;
import org.junit.runner.Description;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * One test method of a plain JUnit 3 {@code TestCase}, instantiated when it runs rather than when the suite is
 * built (as {@code TestSuite} does for all its tests at once), so that what is due at the test's start happens
 * before its constructor and field initialisers run. A constructor that throws fails the test with its exception,
 * reported under the test's own name.
 */
final class Junit3Test implements Test, Describable {
    private final Class<?> testClass;
    private final String method;

    Junit3Test(Class<?> testClass, String method) {
        this.testClass = testClass;
        this.method = method;
    }

    /**
     * A suite of the class's test methods as {@code TestSuite} finds them (public, void, no parameters, named
     * {@code test...}), none of them instantiated; their order is not {@code TestSuite}'s.
     */
    static TestSuite suite(Class<?> testClass) {
        Set<String> names = new LinkedHashSet<>();
        for (Class<?> c = testClass; c != null && Test.class.isAssignableFrom(c); c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && m.getParameterTypes().length == 0
                        && m.getName().startsWith("test") && m.getReturnType() == Void.TYPE) {
                    names.add(m.getName());
                }
            }
        }
        TestSuite suite = new TestSuite(testClass.getName());
        for (String name : names) {
            suite.addTest(new Junit3Test(testClass, name));
        }
        return suite;
    }

    @Override
    public int countTestCases() {
        return 1;
    }

    @Override
    public Description getDescription() {
        return Description.createTestDescription(testClass, method);
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
