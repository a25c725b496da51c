package dev.flaky.runner;

import org.junit.Test;

import static org.junit.Assert.assertEquals;

public class ClassPatternTest {
    private static boolean matches(String pattern, String path) {
        return ClassPattern.parse(pattern).matches(path);
    }

    @Test
    public void globsMatchClassFilesLikeSurefire() {
        String[][] cases = {
            // pattern, path, expected
            {"**/*Test.java", "FooTest.class", "true"},
            {"**/*Test.java", "a/b/FooTest.class", "true"},
            {"**/*Test.java", "a/b/FooTests.class", "false"},
            {"**/Test*.java", "a/TestFoo.class", "true"},
            {"**/*$*", "a/Outer$Inner.class", "true"},
            {"**/*$*", "a/Outer.class", "false"},
            {"a/*Test", "a/FooTest.class", "true"},
            {"a/*Test", "a/b/FooTest.class", "false"},
            {"a/?Test.class", "a/XTest.class", "true"},
            {"**/FooTest#someMethod", "x/FooTest.class", "true"},
            {"%regex[.*Legacy.*]", "a/LegacyTest.class", "true"},
            {"%regex[.*Legacy.*]", "a/NewTest.class", "false"},
        };
        for (String[] c : cases) {
            assertEquals(c[0] + " vs " + c[1], Boolean.parseBoolean(c[2]), matches(c[0], c[1]));
        }
    }

    @Test
    public void commasSeparatePatterns() {
        assertEquals(2, ClassPattern.parseAll("**/ATest.java, **/BTest.java").size());
    }
}
