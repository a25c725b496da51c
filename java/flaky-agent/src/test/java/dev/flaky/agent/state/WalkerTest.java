package dev.flaky.agent.state;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import org.junit.Test;
import sample.state.Node;
import sample.state.WatchedMap;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class WalkerTest {
    private static final Walker.Limits LIMITS = new Walker.Limits(24, 20_000, 1 << 20);

    private static String walk(Object o) {
        return new Walker(LIMITS).walk(o, Object.class).toString();
    }

    @Test
    public void unorderedCollectionsAreCanonical() {
        Set<Object> a = new HashSet<>();
        Set<Object> b = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            a.add("k" + i);
            b.add("k" + (99 - i));
        }
        Map<Object, Object> m1 = new HashMap<>();
        Map<Object, Object> m2 = new HashMap<>(1024);
        m1.put("BTC", 1);
        m1.put("ETH", 2);
        m2.put("ETH", 2);
        m2.put("BTC", 1);
        assertEquals(walk(a), walk(b));
        assertEquals(walk(m1), walk(m2));
        assertEquals("{\"@class\":\"java.util.HashMap\",\"@entries\":[[\"BTC\",1],[\"ETH\",2]]}", walk(m1));
    }

    @Test
    public void objectsCyclesAndSkips() {
        Node n = new Node();
        n.name = "a";
        n.next = n;
        n.events.add(7L);
        n.events.add(Thread.currentThread());
        n.count = 3;
        JsonElement tree = JsonParser.parseString(walk(n));
        assertEquals("{\"@class\":\"sample.state.Node\",\"count\":3,\"events\":{\"@class\":"
                + "\"java.util.ArrayList\",\"@items\":[{\"@class\":\"java.lang.Long\",\"@value\":\"7\"},"
                + "{\"@skip\":\"thread\"}]},\"name\":\"a\",\"next\":{\"@cycle\":1}}", tree.toString());
    }

    @Test
    public void hugeMapIsCutFast() {
        WatchedMap big = new WatchedMap();
        for (int i = 0; i < 1_000_000; i++) {
            big.put(i, i);
        }
        Walker w = new Walker(LIMITS);
        String tree = w.walk(big, Object.class).toString();
        assertEquals("nodes", w.cut());
        assertTrue(tree, tree.contains("\"@size\":1000000"));
        assertFalse("cut by its size, without reading a million entries", big.read);
    }

    @Test
    public void deepChainsAreCutAtDepth() {
        Node head = new Node();
        Node n = head;
        for (int i = 0; i < 100; i++) {
            n.next = new Node();
            n = n.next;
        }
        Walker w = new Walker(new Walker.Limits(5, 20_000, 1 << 20));
        w.walk(head, Object.class);
        assertEquals("depth", w.cut());
        Walker small = new Walker(LIMITS);
        small.walk("x", Object.class);
        assertNull(small.cut());
    }

    @Test
    public void restoreRebuildsOntoCurrentObjects() throws Exception {
        Node passing = new Node();
        passing.name = "p";
        passing.events.add("x");
        Node failing = new Node();
        failing.name = "f";
        failing.events.add("x");
        failing.events.add("y");
        List<Object> events = failing.events;
        JsonElement tree = new Walker(LIMITS).walk(passing, Object.class);
        Object rebuilt = Restorer.rebuild(tree, failing, Node.class, getClass().getClassLoader());
        assertTrue(rebuilt == failing);
        assertTrue(failing.events == events);
        assertEquals(walk(passing), walk(failing));
        Object fresh = Restorer.rebuild(tree, null, Node.class, getClass().getClassLoader());
        assertEquals(walk(passing), walk(fresh));
    }
}
