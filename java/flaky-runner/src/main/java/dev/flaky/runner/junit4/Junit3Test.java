package dev.flaky.runner.junit4;

import dev.flaky.runner.junit3.LazyTest;
import junit.framework.TestSuite;
import org.junit.runner.Describable;
import org.junit.runner.Description;

/**
 * A {@link LazyTest} that JUnit 4 can describe: one test method of a plain JUnit 3 {@code TestCase}, instantiated
 * when it runs.
 */
final class Junit3Test extends LazyTest implements Describable {
    Junit3Test(Class<?> testClass, String method) {
        super(testClass, method);
    }

    /**
     * A suite of the class's test methods as {@code TestSuite} finds them (public, void, no parameters, named
     * {@code test...}), none of them instantiated; their order is not JUnit 4's {@code TestSuite}'s.
     */
    static TestSuite suite(Class<?> testClass) {
        TestSuite suite = new TestSuite(testClass.getName());
        for (String name : methodNames(testClass)) {
            suite.addTest(new Junit3Test(testClass, name));
        }
        return suite;
    }

    @Override
    public Description getDescription() {
        return Description.createTestDescription(testClass(), method());
    }
}
