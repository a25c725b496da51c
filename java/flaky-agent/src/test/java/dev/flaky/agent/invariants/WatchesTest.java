package dev.flaky.agent.invariants;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

public class WatchesTest {
    @Test
    public void argumentsAsJavaExpressions() {
        Object[] args = {null, "a\"b\\c\n", 'x', true, 7, 8L, (short) 3, (byte) 4, 1.5, 2.5f, Double.NaN,
                Float.NEGATIVE_INFINITY, TimeUnit.SECONDS, Thread.State.NEW, new Object()};
        assertEquals(Arrays.asList("null", "\"a\\\"b\\\\c\\u000a\"", "'x'", "true", "7", "8L", "(short) 3", "(byte) 4",
                "1.5d", "2.5f", "Double.NaN", "Float.NEGATIVE_INFINITY", "java.util.concurrent.TimeUnit.SECONDS",
                "java.lang.Thread.State.NEW", ""), Watches.literals(args));
        assertEquals(0, Watches.literals(null).size());
    }
}
