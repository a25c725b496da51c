package dev.flaky.agent.chaos;

import org.junit.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

public class ShufflerTest {
    @Test
    public void permutationsAreSeededAndNeverTheIdentity() {
        for (int n = 2; n < 300; n++) {
            int[] p = Shuffler.permutation(n, 42);
            assertTrue(Arrays.equals(p, Shuffler.permutation(n, 42)));
            boolean identity = true;
            boolean[] seen = new boolean[n];
            for (int i = 0; i < n; i++) {
                identity &= p[i] == i;
                assertFalse(seen[p[i]]);
                seen[p[i]] = true;
            }
            assertFalse("identity for " + n, identity);
        }
    }

    @Test
    public void onlyTheListedSitesAreShuffled() {
        Set<String> set = new HashSet<>(Arrays.asList("a", "b", "c", "d", "e", "f"));
        List<String> real = new ArrayList<>(set);
        try {
            Sites.shuffleOnly(Arrays.asList("only.Listed#test:7"));
            int listed = Sites.register(Strategy.ITERATION_ORDER, "java.util.Set#iterator()", "only.Listed", "test",
                    "Listed.java", 7);
            int other = Sites.register(Strategy.ITERATION_ORDER, "java.util.Set#iterator()", "only.Listed", "test",
                    "Listed.java", 8);
            assertNotEquals(real, drain(Api.iterator(set, listed)));
            assertEquals(real, drain(Api.iterator(set, other)));
            assertEquals(set.toString(), Api.toString(set, other));
        } finally {
            Sites.shuffleOnly(new ArrayList<>());
        }
        int later = Sites.register(Strategy.ITERATION_ORDER, "java.util.Set#iterator()", "only.Listed", "test",
                "Listed.java", 9);
        assertNotEquals(real, drain(Api.iterator(set, later)));
    }

    private static List<Object> drain(Iterator<?> it) {
        List<Object> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    @Test
    public void onlyExactHashClassesAndTheirViewsAreShuffled() {
        Map<String, Integer> hash = new HashMap<>();
        Map<String, Integer> concurrent = new ConcurrentHashMap<>();
        Object[] shuffled = {hash, hash.keySet(), hash.values(), hash.entrySet(), new HashSet<>(), concurrent,
            concurrent.keySet(), concurrent.values(), concurrent.entrySet()};
        for (Object o : shuffled) {
            assertTrue(o.getClass().getName(), Shuffler.shuffles(o));
        }
        Map<String, Integer> linked = new LinkedHashMap<>();
        Object[] kept = {linked, linked.keySet(), new LinkedHashSet<>(), new TreeMap<>(), new ArrayList<>(),
            new HashMap<String, Integer>() { }, null};
        for (Object o : kept) {
            assertFalse(String.valueOf(o), Shuffler.shuffles(o));
        }
    }

    @Test
    public void keysAndValuesStayAlignedAndWritesGoThrough() {
        Map<String, Integer> map = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            map.put("k" + i, i);
        }
        List<String> keys = new ArrayList<>(new ShuffledSet<>(map.keySet(), map, -1));
        List<Integer> values = new ArrayList<>(new ShuffledCollection<>(map.values(), map, -1));
        assertNotEquals(new ArrayList<>(map.keySet()), keys);
        for (int i = 0; i < keys.size(); i++) {
            assertEquals(map.get(keys.get(i)), values.get(i));
        }
        Collection<Map.Entry<String, Integer>> entries = new ShuffledSet<>(map.entrySet(), map, -1);
        for (Iterator<Map.Entry<String, Integer>> it = entries.iterator(); it.hasNext(); ) {
            Map.Entry<String, Integer> e = it.next();
            if (e.getValue() % 2 == 0) {
                it.remove();
            } else {
                e.setValue(-e.getValue());
            }
        }
        assertEquals(10, map.size());
        assertEquals(Integer.valueOf(-1), map.get("k1"));
        Set<String> set = new ShuffledSet<>(map.keySet(), map, -1);
        assertEquals(map.keySet(), set);
        assertEquals(set, map.keySet());
        assertEquals(map.keySet().hashCode(), set.hashCode());
        assertEquals(map, new ShuffledMap<>(map, -1));
    }

    private static final int SITE = Sites.register(Strategy.ITERATION_ORDER, "java.util.Map#toString()",
            "ShufflerTest", "site", "ShufflerTest.java", 1);

    private static Map<String, Integer> keys(int capacity) {
        Map<String, Integer> map = new HashMap<>(capacity);
        for (int i = 0; i < 20; i++) {
            map.put("k" + i, i);
        }
        return map;
    }

    private static String shuffledText(Map<String, Integer> map) {
        return new ShuffledMap<>(map, SITE).toString();
    }

    @Test
    public void twoMapsWithTheSameKeysArePermutedDifferently() {
        Map<String, Integer> a = keys(16);
        Map<String, Integer> b = keys(16);
        assertEquals(a.toString(), b.toString());
        assertNotEquals(shuffledText(a), shuffledText(b));
    }

    @Test
    public void anUnchangedMapKeepsItsOrderAndAChangedOneMayNot() {
        Map<String, Integer> map = keys(16);
        String first = shuffledText(map);
        assertNotEquals(map.toString(), first);
        assertEquals(first, shuffledText(map));
        assertEquals(first, Api.toString(map, SITE));
        List<String> keys = new ArrayList<>(new ShuffledMap<>(map, SITE).keySet());
        List<Object> values = new ArrayList<>(Api.values(map, SITE));
        for (int i = 0; i < keys.size(); i++) {
            assertEquals(map.get(keys.get(i)), values.get(i));
        }
        map.put("k20", 20);
        assertNotEquals(first.replace("}", ", k20=20}"), shuffledText(map));
    }

    @Test
    public void theSeedDecidesTheOrder() {
        try {
            Shuffler.seed(1);
            Map<String, Integer> one = keys(16);
            String underOne = shuffledText(one);
            Shuffler.seed(2);
            Map<String, Integer> two = keys(16);
            assertNotEquals(underOne, shuffledText(two));
            assertEquals(Shuffler.memberToken(String.class, "getDeclaredFields"),
                    Shuffler.memberToken(String.class, "getDeclaredFields"));
            long underTwo = Shuffler.memberToken(String.class, "getDeclaredFields");
            Shuffler.seed(1);
            assertNotEquals(underTwo, Shuffler.memberToken(String.class, "getDeclaredFields"));
        } finally {
            Shuffler.seed(Shuffler.DEFAULT_SEED);
        }
    }
}
