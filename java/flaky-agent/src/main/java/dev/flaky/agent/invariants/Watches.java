package dev.flaky.agent.invariants;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The watched values of {@code invariants.watch}: static fields ({@code pkg.C.field}), read at the entry and exit of
 * every traced method (Takuan's cleaner methods), and static no-argument methods ({@code pkg.C#method}), called at
 * the entry and exit of the other methods of their class (its return-value modifiers). A traced method during
 * which a watched value changed is recorded with the value before and after, as the variables Daikon would see.
 */
final class Watches {
    /** Distinct changes kept per test. */
    private static final int CHANGES = 200;

    private final List<String> names;
    private final Values values;
    /** Resolved fields and methods by watch name; absent until the class is loaded. */
    private final Map<String, Object> resolved = new LinkedHashMap<>();
    /** Distinct changes of the running test, by watch, method, before and after. Guarded by the tracer. */
    final Map<String, Map<String, Object>> changes = new LinkedHashMap<>();

    Watches(List<String> names, Values values) {
        this.names = names;
        this.values = values;
    }

    boolean any() {
        return !names.isEmpty();
    }

    /** Reads the watches that apply to a method of {@code type}; null entries do not apply. */
    Object[] read(Class<?> type, String method) {
        Object[] out = new Object[names.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = read(names.get(i), type, method);
        }
        return out;
    }

    private Object read(String watch, Class<?> type, String method) {
        int hash = watch.indexOf('#');
        Object target = resolve(watch, type);
        if (target == null) {
            return null;
        }
        Point scratch = new Point(watch);
        Map<String, Object> sample = new LinkedHashMap<>();
        try {
            if (target instanceof Method) {
                Method m = (Method) target;
                if (m.getDeclaringClass() != type || method.startsWith(m.getName() + "(")) {
                    return null;
                }
                values.flatten(scratch, sample, "return", Values.kind(m.getReturnType()), m.invoke(null), values.depth);
            } else {
                Field f = (Field) target;
                values.flatten(scratch, sample, watch.substring(0, hash < 0 ? watch.length() : hash),
                        Values.kind(f.getType()), f.get(null), values.depth);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
        return sample;
    }

    /** Finds the watched field or method once its class is loaded in {@code type}'s loader. */
    private Object resolve(String watch, Class<?> type) {
        Object r = resolved.get(watch);
        if (r != null) {
            return r;
        }
        int hash = watch.indexOf('#');
        int dot = watch.lastIndexOf('.');
        String cls = hash >= 0 ? watch.substring(0, hash) : dot > 0 ? watch.substring(0, dot) : "";
        if (!cls.equals(type.getName()) && hash >= 0) {
            return null;
        }
        try {
            Class<?> c = Class.forName(cls, false, type.getClassLoader());
            if (hash >= 0) {
                Method m = c.getDeclaredMethod(watch.substring(hash + 1));
                if (!Modifier.isStatic(m.getModifiers())) {
                    return null;
                }
                m.setAccessible(true);
                r = m;
            } else {
                Field f = c.getDeclaredField(watch.substring(dot + 1));
                if (!Modifier.isStatic(f.getModifiers())) {
                    return null;
                }
                f.setAccessible(true);
                r = f;
            }
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return null;
        }
        resolved.put(watch, r);
        return r;
    }

    /**
     * Records the watches whose value differs between {@code before} and the exit of {@code point} (a static
     * method when {@code isStatic}, called with {@code args}).
     */
    void compare(Object before, Class<?> type, String method, String point, boolean isStatic, Object[] args,
            String test) {
        if (!(before instanceof Object[])) {
            return;
        }
        Object[] b = (Object[]) before;
        Object[] after = read(type, method);
        List<String> arguments = null;
        for (int i = 0; i < b.length && i < after.length; i++) {
            if (b[i] == null || after[i] == null || b[i].equals(after[i])) {
                continue;
            }
            if (arguments == null) {
                arguments = literals(args);
            }
            String key = names.get(i) + "\n" + point + "\n" + arguments + "\n" + b[i] + "\n" + after[i];
            Map<String, Object> c = changes.get(key);
            if (c == null) {
                if (changes.size() >= CHANGES) {
                    continue;
                }
                c = new LinkedHashMap<>();
                c.put("watch", names.get(i));
                c.put("method", point);
                c.put("static", isStatic);
                c.put("arguments", arguments);
                c.put("test", test);
                c.put("before", b[i]);
                c.put("after", after[i]);
                c.put("count", 0);
                changes.put(key, c);
            }
            c.put("count", (Integer) c.get("count") + 1);
        }
    }

    /**
     * The arguments as Java expressions that reproduce them: literals of primitives, strings and null, enum
     * constants; an empty string for an object no expression writes.
     */
    static List<String> literals(Object[] args) {
        List<String> out = new ArrayList<>();
        if (args == null) {
            return out;
        }
        for (Object a : args) {
            out.add(literal(a));
        }
        return out;
    }

    private static String literal(Object a) {
        if (a == null) {
            return "null";
        }
        if (a instanceof String) {
            return quote((String) a, '"');
        }
        if (a instanceof Character) {
            return quote(String.valueOf(a), '\'');
        }
        if (a instanceof Boolean || a instanceof Integer) {
            return String.valueOf(a);
        }
        if (a instanceof Long) {
            return a + "L";
        }
        if (a instanceof Short || a instanceof Byte) {
            return "(" + (a instanceof Short ? "short" : "byte") + ") " + a;
        }
        if (a instanceof Double || a instanceof Float) {
            double d = ((Number) a).doubleValue();
            String type = a instanceof Double ? "Double" : "Float";
            if (Double.isNaN(d)) {
                return type + ".NaN";
            }
            if (Double.isInfinite(d)) {
                return type + (d > 0 ? ".POSITIVE_INFINITY" : ".NEGATIVE_INFINITY");
            }
            return a instanceof Double ? a + "d" : a + "f";
        }
        if (a instanceof Enum) {
            return ((Enum<?>) a).getDeclaringClass().getName().replace('$', '.') + "." + ((Enum<?>) a).name();
        }
        return "";
    }

    private static String quote(String s, char q) {
        StringBuilder b = new StringBuilder().append(q);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == q || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append(q).toString();
    }

    List<Object> drain() {
        List<Object> out = new ArrayList<>(changes.values());
        changes.clear();
        return out;
    }
}
