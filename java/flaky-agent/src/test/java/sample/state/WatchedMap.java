package sample.state;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/** A HashMap that records whether its entries were read (a walker that cuts it by its size reads only that). */
public class WatchedMap extends HashMap<Integer, Integer> {
    public boolean read;

    @Override
    public Set<Map.Entry<Integer, Integer>> entrySet() {
        read = true;
        return super.entrySet();
    }

    @Override
    public Set<Integer> keySet() {
        read = true;
        return super.keySet();
    }

    @Override
    public Collection<Integer> values() {
        read = true;
        return super.values();
    }

    @Override
    public void forEach(BiConsumer<? super Integer, ? super Integer> action) {
        read = true;
        super.forEach(action);
    }
}
