package dev.flaky.agent.chaos;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.Map;
import java.util.Set;

/**
 * A live view of a map whose key, value and entry iteration is shuffled by the map's token (so the three stay
 * aligned); reads and writes go to the real map.
 */
final class ShuffledMap<K, V> extends AbstractMap<K, V> {
    private final Map<K, V> real;
    /** The call site that made the view (-1 for none). */
    private final int site;

    ShuffledMap(Map<K, V> real, int site) {
        this.real = real;
        this.site = site;
    }

    @Override
    public Set<Entry<K, V>> entrySet() {
        return new ShuffledSet<>(real.entrySet(), real, site);
    }

    @Override
    public Set<K> keySet() {
        return new ShuffledSet<>(real.keySet(), real, site);
    }

    @Override
    public Collection<V> values() {
        return new ShuffledCollection<>(real.values(), real, site);
    }

    @Override
    public int size() {
        return real.size();
    }

    @Override
    public boolean containsKey(Object key) {
        return real.containsKey(key);
    }

    @Override
    public boolean containsValue(Object value) {
        return real.containsValue(value);
    }

    @Override
    public V get(Object key) {
        return real.get(key);
    }

    @Override
    public V put(K key, V value) {
        return real.put(key, value);
    }

    @Override
    public V remove(Object key) {
        return real.remove(key);
    }

    @Override
    public void clear() {
        real.clear();
    }

    @Override
    public boolean equals(Object o) {
        return o == this || real.equals(o);
    }

    @Override
    public int hashCode() {
        return real.hashCode();
    }
}
