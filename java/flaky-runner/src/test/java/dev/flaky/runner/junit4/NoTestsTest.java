package dev.flaky.runner.junit4;

import junit.framework.TestCase;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

public class NoTestsTest {
    /** JUnit 4 without a test method: initializationError "No runnable methods". */
    @RunWith(JUnit4.class)
    public static class Empty {
    }

    /** JUnit 3 without a test method: the warning "No tests found in ...". */
    public static class EmptyCase extends TestCase {
    }

    /** Has a test but cannot be instantiated by JUnit 4: a class that fails to initialise. */
    public static class NeedsArgument {
        public NeedsArgument(int x) {
        }

        @Test
        public void runs() {
        }
    }

    /** No test method and a bad constructor: not only "nothing to run". */
    @RunWith(JUnit4.class)
    public static class EmptyAndBroken {
        public EmptyAndBroken(int x) {
        }
    }

    /** A JUnit 3 class JUnit cannot instantiate: a class that fails to initialise. */
    public static class CaseNeedsArgument extends TestCase {
        public CaseNeedsArgument(int x) {
        }

        public void testRuns() {
        }
    }

    /** A plain test. */
    public static class Plain {
        @Test
        public void runs() {
        }
    }

    private static String of(Class<?> c) {
        return NoTests.of(c, new NoIgnoreBuilder().safeRunnerForClass(c));
    }

    @Test
    public void aClassWithoutTestsHasNone() {
        assertEquals("No runnable methods", of(Empty.class));
        assertEquals("No tests found in " + EmptyCase.class.getName(), of(EmptyCase.class));
    }

    @Test
    public void aClassThatFailsToInitialiseIsNotWithoutTests() {
        assertNull(of(NeedsArgument.class));
        assertNull(of(EmptyAndBroken.class));
        assertNull(of(CaseNeedsArgument.class));
        assertNull(of(Plain.class));
    }
}
