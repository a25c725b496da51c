package dev.flaky.agent.state;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import dev.flaky.agent.Channel;
import dev.flaky.agent.MessageTypes;

import java.io.File;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Sets roots back to values captured in another JVM, right before the test at {@link #index} (ODRepair's confirmation
 * step). A static field's tree is rebuilt onto the objects the field holds now wherever their classes match (so
 * parts the walker skipped or cut keep their current value, as ODRepair reuses state it cannot deserialise); new
 * objects are allocated without running constructors ({@code Unsafe.allocateInstance}, what Objenesis does on
 * HotSpot). Properties, defaults and files are set, cleared or rewritten directly.
 *
 * <p>The restore file is JSON: {@code {"index":N,"roots":[{"kind":K,"root":R,"tree":T} or {"kind":K,"root":R,
 * "initial":true}]}}; {@code initial} means the value the JVM started with (a property or file untouched).
 */
final class Restorer {
    final int index;
    private final JsonArray roots;
    private final Capture capture;
    private final Instrumentation inst;

    private Restorer(int index, JsonArray roots, Capture capture, Instrumentation inst) {
        this.index = index;
        this.roots = roots;
        this.capture = capture;
        this.inst = inst;
    }

    /** A restorer with no roots of its own, for {@link Probe}'s puts-back. */
    static Restorer empty(Capture capture, Instrumentation inst) {
        return new Restorer(-1, new JsonArray(), capture, inst);
    }

    static Restorer load(String path, Capture capture, Instrumentation inst) {
        try {
            String text = new String(Files.readAllBytes(new File(path).toPath()), StandardCharsets.UTF_8);
            JsonObject o = JsonParser.parseString(text).getAsJsonObject();
            return new Restorer(o.get("index").getAsInt(), o.getAsJsonArray("roots"), capture, inst);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("state.restore " + path + ": " + e.getMessage(), e);
        }
    }

    /** Restores every root, logging (never throwing) what cannot be restored. */
    void restore() {
        for (JsonElement e : roots) {
            JsonObject r = e.getAsJsonObject();
            String kind = r.get("kind").getAsString();
            String name = r.get("root").getAsString();
            boolean initial = r.has("initial") && r.get("initial").getAsBoolean();
            JsonElement tree = r.get("tree");
            try {
                if (Capture.STATIC.equals(kind)) {
                    if (!initial) {
                        restoreStatic(name, tree);
                    }
                } else if (Capture.PROPERTY.equals(kind)) {
                    String v = initial || tree == null || tree.isJsonNull() ? capture.startProperty(name)
                            : tree.getAsString();
                    if (v == null) {
                        System.clearProperty(name);
                    } else {
                        System.setProperty(name, v);
                    }
                } else if (Capture.DEFAULT.equals(kind)) {
                    restoreDefault(name, tree.getAsString());
                } else if (Capture.FILE.equals(kind)) {
                    restoreFile(name, initial ? null : tree);
                }
            } catch (Throwable t) {
                log("cannot restore " + kind + " " + name + ": " + t);
            }
        }
    }

    private void restoreFile(String name, JsonElement tree) throws IOException {
        File f = capture.files().file(name);
        if (tree == null || tree.isJsonNull()) {
            if (tree != null || !capture.files().existedAtStart(name)) {
                Files.deleteIfExists(f.toPath());
            }
            return;
        }
        JsonObject o = tree.getAsJsonObject();
        if (o.has("base64")) {
            File parent = f.getParentFile();
            if (parent != null) {
                parent.mkdirs();
            }
            Files.write(f.toPath(), Base64.getDecoder().decode(o.get("base64").getAsString()));
        }
    }

    private static void restoreDefault(String name, String value) {
        if (name.startsWith("TimeZone")) {
            TimeZone.setDefault(TimeZone.getTimeZone(value));
        } else if (name.equals("Locale.default")) {
            setBaseLocale(locale(value));
        } else if (name.equals("Locale.default(DISPLAY)")) {
            Locale.setDefault(Locale.Category.DISPLAY, locale(value));
        } else if (name.equals("Locale.default(FORMAT)")) {
            Locale.setDefault(Locale.Category.FORMAT, locale(value));
        }
    }

    /**
     * Sets only the default locale that {@code Locale.getDefault()} returns, leaving the categories' defaults alone
     * (Locale.setDefault(Locale) would set all three), through the field java.base opens to the agent.
     */
    private static void setBaseLocale(Locale l) {
        try {
            Field f = Locale.class.getDeclaredField("defaultLocale");
            f.setAccessible(true);
            f.set(null, l);
        } catch (ReflectiveOperationException | RuntimeException e) {
            Locale.setDefault(l);
        }
    }

    /** Parses Locale.toString's form (language_COUNTRY_variant). */
    static Locale locale(String s) {
        String[] p = s.split("_", 3);
        return new Locale(p[0], p.length > 1 ? p[1] : "", p.length > 2 ? p[2] : "");
    }

    void restoreStatic(String name, JsonElement tree) throws Exception {
        int dot = name.lastIndexOf('.');
        Class<?> type = findClass(name.substring(0, dot));
        Field f = type.getDeclaredField(name.substring(dot + 1));
        f.setAccessible(true);
        Object current = f.get(null);
        Object value = rebuild(tree, current, f.getType(), type.getClassLoader());
        if (value != current || f.getType().isPrimitive()) {
            setStatic(f, value);
        }
    }

    /** Finds a loaded class by name (initialising it when it is not yet: the passing order had it initialised). */
    Class<?> findClass(String name) throws ClassNotFoundException {
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (c.getName().equals(name) && c.getClassLoader() != null) {
                return Class.forName(name, true, c.getClassLoader());
            }
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return Class.forName(name, true, loader != null ? loader : ClassLoader.getSystemClassLoader());
    }

    private static void setStatic(Field f, Object value) throws Exception {
        if (!Modifier.isFinal(f.getModifiers())) {
            f.set(null, value);
            return;
        }
        Object unsafe = Unsafes.get();
        Class<?> u = unsafe.getClass();
        Object base = u.getMethod("staticFieldBase", Field.class).invoke(unsafe, f);
        long offset = (Long) u.getMethod("staticFieldOffset", Field.class).invoke(unsafe, f);
        Class<?> t = f.getType();
        if (!t.isPrimitive()) {
            u.getMethod("putObjectVolatile", Object.class, long.class, Object.class).invoke(unsafe, base, offset, value);
        } else if (t == int.class) {
            u.getMethod("putIntVolatile", Object.class, long.class, int.class).invoke(unsafe, base, offset, value);
        } else if (t == long.class) {
            u.getMethod("putLongVolatile", Object.class, long.class, long.class).invoke(unsafe, base, offset, value);
        } else if (t == boolean.class) {
            u.getMethod("putBooleanVolatile", Object.class, long.class, boolean.class).invoke(unsafe, base, offset,
                    value);
        }
    }

    /** Rebuilds the value a tree describes, onto {@code current} where the classes match. */
    static Object rebuild(JsonElement t, Object current, Class<?> declared, ClassLoader loader) throws Exception {
        if (t == null || t.isJsonNull()) {
            return null;
        }
        if (t.isJsonPrimitive()) {
            return primitive(t.getAsJsonPrimitive(), declared);
        }
        if (t.isJsonArray()) {
            return current;
        }
        JsonObject o = t.getAsJsonObject();
        if (o.has("@skip") || o.has("@opaque") || o.has("@cut") || o.has("@cycle") || o.has("@size")) {
            return current;
        }
        if (o.has("@enum")) {
            Class<?> e = Class.forName(o.get("@enum").getAsString(), true, loader);
            return enumValue(e, o.get("@value").getAsString());
        }
        String className = o.get("@class").getAsString();
        Class<?> type = Class.forName(className, false, loader);
        if (o.has("@value") && !type.isEnum()) {
            Object v = value(type, o.get("@value").getAsString());
            return v == null ? current : v;
        }
        if (o.has("@items")) {
            return items(o.getAsJsonArray("@items"), type, current, loader);
        }
        if (o.has("@entries")) {
            return entries(o.getAsJsonArray("@entries"), type, current, loader);
        }
        Object target = current != null && current.getClass() == type ? current : Unsafes.allocate(type);
        for (Map.Entry<String, Field> e : Types.instanceFields(type).entrySet()) {
            Field f = e.getValue();
            if (!o.has(e.getKey()) && f.getType().isPrimitive()) {
                continue;
            }
            Object now = f.get(target);
            // The walker writes every field; the protocol's frames leave out the null ones.
            Object v = rebuild(o.get(e.getKey()), now, f.getType(), loader);
            if (v != now || f.getType().isPrimitive()) {
                f.set(target, v);
            }
        }
        return target;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumValue(Class<?> e, String name) {
        return Enum.valueOf((Class) e, name);
    }

    private static Object primitive(JsonPrimitive p, Class<?> declared) {
        Class<?> d = declared == null ? Object.class : declared;
        if (p.isBoolean()) {
            return p.getAsBoolean();
        }
        if (p.isString()) {
            String s = p.getAsString();
            if (d == char.class || d == Character.class) {
                return s.isEmpty() ? '\0' : s.charAt(0);
            }
            if (d == double.class || d == Double.class) {
                return Double.valueOf(s);
            }
            if (d == float.class || d == Float.class) {
                return Float.valueOf(s);
            }
            return s;
        }
        if (d == long.class || d == Long.class) {
            return p.getAsLong();
        }
        if (d == short.class || d == Short.class) {
            return p.getAsShort();
        }
        if (d == byte.class || d == Byte.class) {
            return p.getAsByte();
        }
        if (d == double.class || d == Double.class) {
            return p.getAsDouble();
        }
        if (d == float.class || d == Float.class) {
            return p.getAsFloat();
        }
        return p.getAsInt();
    }

    /** Builds a value type from its leaf text; null when the type is not one the walker writes as text. */
    static Object value(Class<?> type, String text) throws Exception {
        if (type == Long.class) {
            return Long.valueOf(text);
        } else if (type == Short.class) {
            return Short.valueOf(text);
        } else if (type == Byte.class) {
            return Byte.valueOf(text);
        } else if (type == Double.class) {
            return Double.valueOf(text);
        } else if (type == Float.class) {
            return Float.valueOf(text);
        } else if (type == Character.class) {
            return text.charAt(0);
        } else if (type == BigDecimal.class) {
            return new BigDecimal(text);
        } else if (type == BigInteger.class) {
            return new BigInteger(text);
        } else if (type == UUID.class) {
            return UUID.fromString(text);
        } else if (type == AtomicInteger.class) {
            return new AtomicInteger(Integer.parseInt(text));
        } else if (type == AtomicLong.class) {
            return new AtomicLong(Long.parseLong(text));
        } else if (type == AtomicBoolean.class) {
            return new AtomicBoolean(Boolean.parseBoolean(text));
        } else if (type == Class.class) {
            return Class.forName(text, false, Thread.currentThread().getContextClassLoader());
        } else if (Locale.class.isAssignableFrom(type)) {
            return locale(text);
        } else if (TimeZone.class.isAssignableFrom(type)) {
            return TimeZone.getTimeZone(text);
        } else if (Date.class.isAssignableFrom(type)) {
            return new Date(Long.parseLong(text));
        } else if (type == Pattern.class) {
            int slash = text.lastIndexOf('/');
            return Pattern.compile(text.substring(0, slash), Integer.parseInt(text.substring(slash + 1)));
        } else if (type == StringBuilder.class) {
            return new StringBuilder(text);
        } else if (type == StringBuffer.class) {
            return new StringBuffer(text);
        } else if (type == File.class) {
            return new File(text);
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static Object items(JsonArray items, Class<?> type, Object current, ClassLoader loader)
            throws Exception {
        if (type.isArray()) {
            Class<?> component = type.getComponentType();
            Object array = current != null && current.getClass() == type && Array.getLength(current) == items.size()
                    ? current : Array.newInstance(component, items.size());
            for (int i = 0; i < items.size(); i++) {
                Object now = array == current ? Array.get(array, i) : null;
                Array.set(array, i, rebuild(items.get(i), now, component, loader));
            }
            return array;
        }
        List<Object> old = current instanceof Collection ? new ArrayList<>((Collection<Object>) current)
                : new ArrayList<>();
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            values.add(rebuild(items.get(i), i < old.size() ? old.get(i) : null, null, loader));
        }
        if (current instanceof Collection && current.getClass() == type) {
            try {
                Collection<Object> c = (Collection<Object>) current;
                c.clear();
                c.addAll(values);
                return c;
            } catch (UnsupportedOperationException e) {
                // An unmodifiable collection: build a new one below.
            }
        }
        Collection<Object> fresh = (Collection<Object>) newInstance(type);
        if (fresh == null) {
            return current;
        }
        fresh.addAll(values);
        return fresh;
    }

    @SuppressWarnings("unchecked")
    private static Object entries(JsonArray entries, Class<?> type, Object current, ClassLoader loader)
            throws Exception {
        Map<Object, Object> old = current instanceof Map ? new LinkedHashMap<>((Map<Object, Object>) current)
                : new LinkedHashMap<>();
        Map<Object, Object> values = new LinkedHashMap<>();
        for (JsonElement e : entries) {
            JsonArray pair = e.getAsJsonArray();
            Object key = rebuild(pair.get(0), null, null, loader);
            values.put(key, rebuild(pair.get(1), old.get(key), null, loader));
        }
        if (current instanceof Map && current.getClass() == type) {
            try {
                Map<Object, Object> m = (Map<Object, Object>) current;
                m.clear();
                m.putAll(values);
                return m;
            } catch (UnsupportedOperationException e) {
                // An unmodifiable map: build a new one below.
            }
        }
        Map<Object, Object> fresh = (Map<Object, Object>) newInstance(type);
        if (fresh == null) {
            return current;
        }
        fresh.putAll(values);
        return fresh;
    }

    private static Object newInstance(Class<?> type) {
        try {
            Constructor<?> c = type.getDeclaredConstructor();
            c.setAccessible(true);
            return c.newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static void log(String message) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("type", MessageTypes.LOG);
        e.put("level", "warn");
        e.put("message", "state: " + message);
        Channel.send(e);
    }
}
