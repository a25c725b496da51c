package dev.flaky.agent.invariants;

import dev.flaky.agent.chaos.ClassSelection;
import net.bytebuddy.jar.asm.Type;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a value into the variables Daikon would derive from it: the value itself for primitives and strings, an
 * identity hash for other references (null-ness is what matters), and for non-null references the dynamic type
 * ({@code x.getClass().getName()}), the size of arrays ({@code size(x[])}) and collections or maps
 * ({@code x.size()}), the elements of small arrays and collections and the entries of small maps ({@code x[]}, an
 * entry as {@code key=value}), and, down to the depth bound, the
 * fields of the project's objects ({@code x.f}).
 */
final class Values {
    /** Longest string value kept; longer ones are cut. */
    private static final int STRING_CHARS = 100;
    /** Largest array or collection whose elements are kept. */
    private static final int ELEMENTS = 8;

    final int depth;
    final ClassSelection selection;
    private final Map<Class<?>, List<Field>> staticFields = new HashMap<>();
    private final Map<Class<?>, List<Field>> instanceFields = new HashMap<>();

    Values(int depth, ClassSelection selection) {
        this.depth = depth;
        this.selection = selection;
    }

    /** The representation kind of a declared type. */
    static String kind(Type t) {
        switch (t.getSort()) {
            case Type.BOOLEAN:
                return "boolean";
            case Type.FLOAT:
            case Type.DOUBLE:
                return "double";
            case Type.OBJECT:
                return "java.lang.String".equals(t.getClassName()) ? "string" : "hashcode";
            case Type.ARRAY:
                return "hashcode";
            default:
                return "int";
        }
    }

    static String kind(Class<?> c) {
        return kind(Type.getType(c));
    }

    /** Adds the variables of {@code value}, declared with {@code kind}, under {@code name}. */
    void flatten(Point p, Map<String, Object> sample, String name, String kind, Object value, int levels) {
        p.declare(name, kind);
        switch (kind) {
            case "int":
                sample.put(name, value instanceof Character ? (long) (Character) value : ((Number) value).longValue());
                return;
            case "double":
                double d = ((Number) value).doubleValue();
                if (!Double.isNaN(d) && !Double.isInfinite(d)) {
                    sample.put(name, d);
                }
                return;
            case "boolean":
                sample.put(name, value);
                return;
            case "string":
                sample.put(name, value == null ? null : cut((String) value));
                return;
            default:
                break;
        }
        sample.put(name, value == null ? null : System.identityHashCode(value));
        if (value == null) {
            return;
        }
        Class<?> c = value.getClass();
        put(p, sample, name + ".getClass().getName()", "string", c.getName());
        if (c.isArray()) {
            int n = Array.getLength(value);
            put(p, sample, "size(" + name + "[])", "int", (long) n);
            if (n <= ELEMENTS) {
                List<String> items = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    items.add(render(Array.get(value, i)));
                }
                put(p, sample, name + "[]", "string[]", items);
            }
        } else if (value instanceof Collection) {
            Collection<?> coll = (Collection<?>) value;
            int n = coll.size();
            put(p, sample, name + ".size()", "int", (long) n);
            if (n <= ELEMENTS) {
                List<String> items = new ArrayList<>();
                for (Object o : coll) {
                    items.add(render(o));
                }
                put(p, sample, name + "[]", "string[]", items);
            }
        } else if (value instanceof Map) {
            Map<?, ?> map = (Map<?, ?>) value;
            int n = map.size();
            put(p, sample, name + ".size()", "int", (long) n);
            if (n <= ELEMENTS) {
                List<String> items = new ArrayList<>();
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    items.add(render(e.getKey()) + "=" + render(e.getValue()));
                }
                put(p, sample, name + "[]", "string[]", items);
            }
        } else if (levels > 0 && selection.selects(c.getName(), c.getProtectionDomain())) {
            for (Field f : fields(instanceFields, c, false)) {
                try {
                    flatten(p, sample, name + "." + f.getName(), kind(f.getType()), f.get(value), levels - 1);
                } catch (IllegalAccessException | RuntimeException e) {
                    // An unreadable field is left out (nonsensical at this sample).
                }
            }
        }
    }

    /** Adds the static fields of {@code type} (without constants) as {@code pkg.Class.field}. */
    void statics(Point p, Map<String, Object> sample, Class<?> type) {
        for (Field f : fields(staticFields, type, true)) {
            try {
                flatten(p, sample, type.getName() + "." + f.getName(), kind(f.getType()), f.get(null), depth);
            } catch (IllegalAccessException | RuntimeException e) {
                // Left out.
            }
        }
    }

    /** Adds a static field of another class (one a method reads directly) as {@code pkg.Class.field}. */
    void staticField(Point p, Map<String, Object> sample, Field f) {
        try {
            flatten(p, sample, f.getDeclaringClass().getName() + "." + f.getName(), kind(f.getType()), f.get(null), depth);
        } catch (IllegalAccessException | RuntimeException e) {
            // Left out.
        }
    }

    private static void put(Point p, Map<String, Object> sample, String name, String kind, Object value) {
        p.declare(name, kind);
        sample.put(name, value);
    }

    private static List<Field> fields(Map<Class<?>, List<Field>> cache, Class<?> type, boolean statics) {
        List<Field> list = cache.get(type);
        if (list != null) {
            return list;
        }
        list = new ArrayList<>();
        for (Field f : type.getDeclaredFields()) {
            int m = f.getModifiers();
            if (f.isSynthetic() || Modifier.isStatic(m) != statics) {
                continue;
            }
            if (statics && Modifier.isFinal(m) && (f.getType().isPrimitive() || f.getType() == String.class)) {
                continue;
            }
            try {
                f.setAccessible(true);
                list.add(f);
            } catch (RuntimeException e) {
                // Inaccessible (a module boundary): left out.
            }
        }
        cache.put(type, list);
        return list;
    }

    /** An element as a string: primitives' boxes and strings by value, other objects by their class. */
    private static String render(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof String) {
            return cut((String) o);
        }
        if (o instanceof Number || o instanceof Boolean || o instanceof Character || o instanceof Enum) {
            return String.valueOf(o);
        }
        return o.getClass().getName();
    }

    private static String cut(String s) {
        return s.length() <= STRING_CHARS ? s : s.substring(0, STRING_CHARS);
    }
}
