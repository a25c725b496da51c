package dev.flaky.agent.invariants;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.flaky.agent.chaos.ClassSelection;
import org.junit.Test;
import testfixture.invariants.Holder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

public class ValuesTest {
    private final Values values = new Values(1, new ClassSelection(Collections.<String>emptyList(),
            Collections.singletonList("testfixture.**"), Collections.<String>emptyList()));

    private Map<String, Object> flatten(String kind, Object value) {
        Point p = new Point("p");
        Map<String, Object> sample = new LinkedHashMap<>();
        values.flatten(p, sample, "x", kind, value, values.depth);
        assertTrue("every sampled variable is declared", p.vars.keySet().containsAll(sample.keySet()));
        return sample;
    }

    @Test
    public void primitivesAndStrings() {
        assertEquals(7L, flatten("int", 7).get("x"));
        assertEquals((long) 'a', flatten("int", 'a').get("x"));
        assertEquals(true, flatten("boolean", true).get("x"));
        assertEquals("s", flatten("string", "s").get("x"));
        assertFalse("NaN is nonsensical", flatten("double", Double.NaN).containsKey("x"));
    }

    @Test
    public void nullReferenceHasNoDerivedVariables() {
        Map<String, Object> s = flatten("hashcode", null);
        assertTrue(s.containsKey("x"));
        assertNull(s.get("x"));
        assertEquals(1, s.size());
    }

    @Test
    public void arrayAndCollectionSizesAndElements() {
        Map<String, Object> a = flatten("hashcode", new int[] {4, 5});
        assertEquals("[I", a.get("x.getClass().getName()"));
        assertEquals(2L, a.get("size(x[])"));
        assertEquals(Arrays.asList("4", "5"), a.get("x[]"));
        Map<String, Object> l = flatten("hashcode", new ArrayList<>(Collections.nCopies(20, "z")));
        assertEquals(20L, l.get("x.size()"));
        assertFalse("a large collection's elements are not kept", l.containsKey("x[]"));
        Map<String, Integer> prices = new LinkedHashMap<>();
        prices.put("BTC", 100);
        prices.put("ETH", null);
        Map<String, Object> m = flatten("hashcode", prices);
        assertEquals(2L, m.get("x.size()"));
        assertEquals(Arrays.asList("BTC=100", "ETH=null"), m.get("x[]"));
        Map<Integer, Integer> big = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) {
            big.put(i, i);
        }
        assertFalse("a large map's entries are not kept", flatten("hashcode", big).containsKey("x[]"));
    }

    @Test
    public void projectObjectFieldsToTheDepthBound() {
        Map<String, Object> s = flatten("hashcode", new Holder());
        assertEquals(3L, s.get("x.count"));
        assertEquals(2L, s.get("x.names.size()"));
        assertEquals(Arrays.asList("a", "b"), s.get("x.names[]"));
    }
}
