package dev.flaky.runner.jupiter;

import dev.flaky.runner.OrderEntry;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

public class SegmentsTest {
    private static List<Requested> requested(String... ids) {
        List<Requested> list = new ArrayList<>();
        for (String id : ids) {
            list.add(Requested.parse(new OrderEntry(list.size(), id)));
        }
        return list;
    }

    private static List<Integer> sizes(List<List<Requested>> segments) {
        List<Integer> sizes = new ArrayList<>();
        for (List<Requested> s : segments) {
            sizes.add(s.size());
        }
        return sizes;
    }

    @Test
    public void parsesInvocationPaths() {
        List<Requested> r = requested("p.C#m", "p.C#m[2]", "p.C#f[3][1]", "p.C#m[x]");
        assertNull(r.get(0).invocation);
        assertEquals("m", r.get(1).method);
        assertArrayEquals(new int[] {2}, r.get(1).invocation);
        assertArrayEquals(new int[] {3, 1}, r.get(2).invocation);
        assertNull(r.get(3));
        assertTrue(r.get(0).covers("p.C#m[4]"));
        assertTrue(r.get(1).within("p.C#m"));
    }

    @Test
    public void splitsWhereOneExecutionCannotKeepTheOrder() {
        assertEquals(Arrays.asList(4), sizes(JupiterEngine.segments(requested("p.C#a", "p.C#m[1]", "p.C#m[3]", "p.C#b"))));
        assertEquals(Arrays.asList(1, 1), sizes(JupiterEngine.segments(requested("p.C#m[3]", "p.C#m[1]"))));
        assertEquals(Arrays.asList(2, 1), sizes(JupiterEngine.segments(requested("p.C#m[1]", "p.C#a", "p.C#m[2]"))));
        assertEquals(Arrays.asList(1, 1), sizes(JupiterEngine.segments(requested("p.C#a", "p.C#a"))));
    }
}
