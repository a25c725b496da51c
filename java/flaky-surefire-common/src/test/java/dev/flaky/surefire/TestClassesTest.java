package dev.flaky.surefire;

import org.junit.Test;

import java.util.Arrays;
import java.util.function.BiPredicate;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class TestClassesTest {
    @Test
    public void namesClassesInOrder() {
        assertEquals(Arrays.asList("java.lang.String", "java.lang.Integer"),
                TestClasses.names(Arrays.asList(String.class, Integer.class)));
    }

    @Test
    public void filtersMethodsByClassFileAndPattern() {
        // Stands in for Surefire's resolver of -Dtest=ATest#victim.
        BiPredicate<String, String> resolver = (file, method) -> "p/ATest.class".equals(file) && "victim".equals(method);
        BiPredicate<String, String> filter = TestClasses.methodFilter(c -> c.replace('.', '/') + ".class", resolver);
        assertTrue(filter.test("p.ATest", "victim"));
        assertTrue(filter.test("p.ATest", "victim[1]"));
        assertTrue(filter.test("p.ATest", "victim[a, b]"));
        assertFalse(filter.test("p.ATest", "other"));
        assertFalse(filter.test("p.ATest", "[victim]"));
        assertFalse(filter.test("p.BTest", "victim"));
        assertTrue(TestClasses.ALL_METHODS.test("p.BTest", "anything"));
    }
}
