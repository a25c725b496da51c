package dev.flaky.agent.state;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Serialises the object graph under one root into a canonical JSON tree: equal state gives equal trees in any JVM.
 * No identity hash codes or addresses appear; unordered collections are sorted by their elements' serialised form;
 * a reference back to an object on the current path becomes {@code {"@cycle":k}} (k levels up). Depth, nodes and
 * bytes are bounded per root: what is cut is marked {@code {"@cut":"depth"|"nodes"|"bytes"}} (a collection too large
 * for the remaining nodes keeps only its size) and {@link #cut()} names the first bound reached.
 *
 * <p>Node forms: JSON null, string ({@code String}, {@code char}), number ({@code int} and other primitives of
 * primitive fields, {@code Integer}), boolean; {@code {"@class":C,"@value":S}} for other value types (boxed numbers,
 * {@code BigDecimal}, {@code Class}, {@code Locale}, ...); {@code {"@enum":C,"@value":NAME}};
 * {@code {"@class":C,"@items":[...]}} for arrays and collections, {@code {"@class":C,"@entries":[[k,v],...]}} for
 * maps, {@code {"@class":C,"field":...}} for other objects (fields sorted, a shadowed field as
 * {@code Declaring.field}); {@code {"@skip":reason}} for class loaders, threads, reflection objects, references and
 * generated classes, {@code {"@opaque":C}} for other JDK objects.
 */
final class Walker {
    /** Limits of one root's walk. */
    static final class Limits {
        final int depth;
        final int nodes;
        final int bytes;

        Limits(int depth, int nodes, int bytes) {
            this.depth = depth;
            this.nodes = nodes;
            this.bytes = bytes;
        }
    }

    private static final Comparator<JsonElement> CANONICAL = Comparator.comparing(JsonElement::toString);

    private final Limits limits;
    private final IdentityHashMap<Object, Boolean> onPath = new IdentityHashMap<>();
    private final List<Object> path = new ArrayList<>();
    private int nodes;
    private long bytes;
    private String cut;

    Walker(Limits limits) {
        this.limits = limits;
    }

    /** Returns the first bound the walk reached ("depth", "nodes", "bytes"), or null when nothing was cut. */
    String cut() {
        return cut;
    }

    /** Serialises {@code value}; {@code declared} is its field's type (primitive fields give plain JSON values). */
    JsonElement walk(Object value, Class<?> declared) {
        return node(value, declared, 0, true);
    }

    private JsonElement node(Object value, Class<?> declared, int depth, boolean root) {
        nodes++;
        if (value == null) {
            return JsonNull.INSTANCE;
        }
        if (nodes > limits.nodes) {
            return cut("nodes");
        }
        if (bytes > limits.bytes) {
            return cut("bytes");
        }
        Class<?> type = value.getClass();
        JsonElement leaf = leaf(value, type, declared != null && declared.isPrimitive());
        if (leaf != null) {
            bytes += leaf.toString().length();
            return leaf;
        }
        String skip = Types.skipReason(type);
        if (skip != null) {
            return tagged("@skip", skip);
        }
        if (type.isEnum() || (type.getSuperclass() != null && type.getSuperclass().isEnum())) {
            Class<?> enumType = type.isEnum() ? type : type.getSuperclass();
            if (!root) {
                JsonObject e = new JsonObject();
                e.addProperty("@enum", enumType.getName());
                e.addProperty("@value", ((Enum<?>) value).name());
                return e;
            }
        }
        if (onPath.containsKey(value)) {
            int up = path.size() - path.lastIndexOf(value);
            JsonObject c = new JsonObject();
            c.addProperty("@cycle", up);
            return c;
        }
        if (depth >= limits.depth) {
            return cut("depth");
        }
        onPath.put(value, Boolean.TRUE);
        path.add(value);
        try {
            if (type.isArray()) {
                return array(value, type, depth);
            }
            if (value instanceof Map && Types.iterable(type)) {
                return map((Map<?, ?>) value, type, depth);
            }
            if (value instanceof Collection && Types.iterable(type)) {
                return collection((Collection<?>) value, type, depth);
            }
            if (Types.jdk(type)) {
                return tagged("@opaque", type.getName());
            }
            JsonObject o = object(value, type, depth);
            if (value instanceof Enum) {
                o.addProperty("@value", ((Enum<?>) value).name());
            }
            return o;
        } finally {
            path.remove(path.size() - 1);
            onPath.remove(value);
        }
    }

    private JsonElement cut(String why) {
        if (cut == null) {
            cut = why;
        }
        return tagged("@cut", why);
    }

    private static JsonObject tagged(String tag, String value) {
        JsonObject o = new JsonObject();
        o.addProperty(tag, value);
        return o;
    }

    /** Returns the leaf form of a value type, or null when {@code value} is no value type. */
    static JsonElement leaf(Object value, Class<?> type, boolean primitiveField) {
        if (type == String.class) {
            return new JsonPrimitive((String) value);
        }
        if (type == Integer.class || (primitiveField && value instanceof Number)) {
            Number n = (Number) value;
            if (n instanceof Double && (((Double) n).isNaN() || ((Double) n).isInfinite())
                    || n instanceof Float && (((Float) n).isNaN() || ((Float) n).isInfinite())) {
                return new JsonPrimitive(n.toString());
            }
            return new JsonPrimitive(n);
        }
        if (type == Boolean.class) {
            return new JsonPrimitive((Boolean) value);
        }
        if (primitiveField && type == Character.class) {
            return new JsonPrimitive(value.toString());
        }
        String text = Types.valueText(value, type);
        if (text == null) {
            return null;
        }
        JsonObject o = new JsonObject();
        o.addProperty("@class", type.getName());
        o.addProperty("@value", text);
        return o;
    }

    private JsonElement array(Object array, Class<?> type, int depth) {
        int length = Array.getLength(array);
        JsonObject o = new JsonObject();
        o.addProperty("@class", type.getName());
        if (length > limits.nodes - nodes) {
            o.addProperty("@size", length);
            o.add("@items", cutList("nodes"));
            return o;
        }
        Class<?> component = type.getComponentType();
        JsonArray items = new JsonArray();
        for (int i = 0; i < length; i++) {
            items.add(node(Array.get(array, i), component, depth + 1, false));
        }
        o.add("@items", items);
        return o;
    }

    private JsonArray cutList(String why) {
        JsonArray a = new JsonArray();
        a.add(cut(why));
        return a;
    }

    private JsonElement collection(Collection<?> c, Class<?> type, int depth) {
        JsonObject o = new JsonObject();
        o.addProperty("@class", type.getName());
        int size;
        try {
            size = c.size();
        } catch (RuntimeException e) {
            return tagged("@opaque", type.getName());
        }
        if (size > limits.nodes - nodes) {
            o.addProperty("@size", size);
            o.add("@items", cutList("nodes"));
            return o;
        }
        List<JsonElement> items = new ArrayList<>();
        try {
            for (Object item : c.toArray()) {
                items.add(node(item, null, depth + 1, false));
            }
        } catch (RuntimeException e) {
            return tagged("@opaque", type.getName());
        }
        if (unordered(c)) {
            items.sort(CANONICAL);
        }
        JsonArray a = new JsonArray();
        items.forEach(a::add);
        o.add("@items", a);
        return o;
    }

    private JsonElement map(Map<?, ?> m, Class<?> type, int depth) {
        JsonObject o = new JsonObject();
        o.addProperty("@class", type.getName());
        int size;
        try {
            size = m.size();
        } catch (RuntimeException e) {
            return tagged("@opaque", type.getName());
        }
        if (2 * size > limits.nodes - nodes) {
            o.addProperty("@size", size);
            o.add("@entries", cutList("nodes"));
            return o;
        }
        List<JsonArray> entries = new ArrayList<>();
        try {
            for (Map.Entry<?, ?> e : new ArrayList<>(m.entrySet())) {
                JsonArray pair = new JsonArray();
                pair.add(node(e.getKey(), null, depth + 1, false));
                pair.add(node(e.getValue(), null, depth + 1, false));
                entries.add(pair);
            }
        } catch (RuntimeException e) {
            return tagged("@opaque", type.getName());
        }
        if (!(m instanceof SortedMap) && !(m instanceof LinkedHashMap)) {
            entries.sort(Comparator.comparing(p -> p.get(0).toString()));
        }
        JsonArray a = new JsonArray();
        entries.forEach(a::add);
        o.add("@entries", a);
        return o;
    }

    /** Sets other than sorted and linked ones iterate in an order that depends on hash codes. */
    private static boolean unordered(Collection<?> c) {
        return c instanceof java.util.Set && !(c instanceof SortedSet) && !(c instanceof LinkedHashSet);
    }

    private JsonObject object(Object value, Class<?> type, int depth) {
        JsonObject o = new JsonObject();
        o.addProperty("@class", type.getName());
        for (Map.Entry<String, Field> e : Types.instanceFields(type).entrySet()) {
            Object v;
            try {
                v = e.getValue().get(value);
            } catch (IllegalAccessException | RuntimeException ex) {
                o.add(e.getKey(), tagged("@skip", "inaccessible"));
                continue;
            }
            o.add(e.getKey(), node(v, e.getValue().getType(), depth + 1, false));
        }
        return o;
    }

    /** Reports whether a static field can hold state that changes: not a compile-time-like final constant. */
    static boolean mutableRoot(Field f) {
        int m = f.getModifiers();
        if (!Modifier.isStatic(m) || f.isSynthetic()) {
            return false;
        }
        if (!Modifier.isFinal(m)) {
            return true;
        }
        Class<?> t = f.getType();
        return !(t.isPrimitive() || t == String.class || Number.class.isAssignableFrom(t) && Types.jdk(t)
                || t == Boolean.class || t == Character.class);
    }
}
