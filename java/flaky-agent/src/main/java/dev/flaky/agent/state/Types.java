package dev.flaky.agent.state;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/** What the walker knows about types: value types, JDK classes, what to skip, and the fields it reads. */
final class Types {
    /** Name markers of classes that mocking and proxy libraries, and the JVM, generate at run time. */
    private static final String[] GENERATED = {"$MockitoMock$", "$ByteBuddy$", "$$EnhancerBy", "$$FastClassBy",
        "$$Lambda", "$Proxy", "$HibernateProxy$", "$$SpringCGLIB$$", "$auxiliary$"};

    private static final Map<Class<?>, Map<String, Field>> FIELDS = new ConcurrentHashMap<>();

    private Types() {
    }

    /** Reports whether the class comes with the JDK (bootstrap or platform class loader). */
    static boolean jdk(Class<?> type) {
        while (type.isArray()) {
            type = type.getComponentType();
        }
        if (type.isPrimitive()) {
            return true;
        }
        ClassLoader loader = type.getClassLoader();
        return loader == null || loader == platformLoader();
    }

    private static volatile ClassLoader platform;

    /** The platform class loader on Java 9+, the extension loader on Java 8. */
    static ClassLoader platformLoader() {
        ClassLoader p = platform;
        if (p == null) {
            p = ClassLoader.getSystemClassLoader().getParent();
            platform = p;
        }
        return p;
    }

    /** Reports whether a class's name marks it as generated at run time (mocks, proxies, lambdas). */
    static boolean generated(String name) {
        for (String marker : GENERATED) {
            if (name.contains(marker)) {
                return true;
            }
        }
        return name.contains("/0x");
    }

    /** Returns why objects of {@code type} are not walked, or null when they are. */
    static String skipReason(Class<?> type) {
        if (ClassLoader.class.isAssignableFrom(type)) {
            return "class loader";
        }
        if (Thread.class.isAssignableFrom(type) || ThreadGroup.class.isAssignableFrom(type)) {
            return "thread";
        }
        if (java.lang.ref.Reference.class.isAssignableFrom(type)) {
            return "reference";
        }
        if (ThreadLocal.class.isAssignableFrom(type)) {
            return "thread local";
        }
        String name = type.getName();
        if (name.startsWith("java.lang.reflect.") || name.startsWith("java.lang.invoke.")
                || name.startsWith("jdk.internal.reflect.") || name.startsWith("sun.reflect.")) {
            return "reflection";
        }
        if (generated(name) || hidden(type)) {
            return "generated";
        }
        if (name.startsWith("dev.flaky.")) {
            return "flaky";
        }
        return null;
    }

    /** Class.isHidden on Java 15+; false before. */
    private static boolean hidden(Class<?> type) {
        try {
            return (Boolean) Class.class.getMethod("isHidden").invoke(type);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** Reports whether collections and maps of this type are read through their interface (JDK types). */
    static boolean iterable(Class<?> type) {
        return jdk(type) || jdkSuper(type);
    }

    private static boolean jdkSuper(Class<?> type) {
        Class<?> s = type.getSuperclass();
        return s != null && jdk(s) && (Collection.class.isAssignableFrom(s) || Map.class.isAssignableFrom(s));
    }

    /** Returns the text of a value type's leaf, or null when {@code type} is none. */
    static String valueText(Object value, Class<?> type) {
        if (value instanceof Number && jdk(type) && !(value instanceof AtomicInteger || value instanceof AtomicLong)) {
            return value.toString();
        }
        if (value instanceof AtomicInteger || value instanceof AtomicLong || value instanceof AtomicBoolean) {
            return value.toString();
        }
        if (type == Character.class || type == BigDecimal.class || type == BigInteger.class || type == UUID.class) {
            return value.toString();
        }
        if (value instanceof Class) {
            return ((Class<?>) value).getName();
        }
        if (value instanceof Locale) {
            return ((Locale) value).toString();
        }
        if (value instanceof TimeZone) {
            return ((TimeZone) value).getID();
        }
        if (value instanceof Date) {
            return String.valueOf(((Date) value).getTime());
        }
        if (value instanceof Pattern) {
            return ((Pattern) value).pattern() + "/" + ((Pattern) value).flags();
        }
        if (value instanceof CharSequence && jdk(type)) {
            return value.toString();
        }
        String name = type.getName();
        if (jdk(type) && (name.startsWith("java.time.") || name.equals("java.io.File") || name.equals("java.net.URI")
                || name.equals("java.net.URL") || name.startsWith("sun.nio.fs.") || name.startsWith("java.nio.charset."))) {
            return value.toString();
        }
        return null;
    }

    /**
     * Returns the instance fields the walker reads, by name, sorted: every non-static field declared by a non-JDK
     * class of the hierarchy (a field shadowed by a subclass's as {@code Declaring.name}), made accessible.
     */
    static Map<String, Field> instanceFields(Class<?> type) {
        Map<String, Field> known = FIELDS.get(type);
        if (known != null) {
            return known;
        }
        Map<String, Field> fields = new TreeMap<>();
        for (Class<?> c = type; c != null && !jdk(c); c = c.getSuperclass()) {
            Field[] declared;
            try {
                declared = c.getDeclaredFields();
            } catch (LinkageError e) {
                continue;
            }
            List<Field> own = new ArrayList<>();
            Collections.addAll(own, declared);
            for (Field f : own) {
                if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic() || !accessible(f)) {
                    continue;
                }
                String key = fields.containsKey(f.getName()) ? c.getSimpleName() + "." + f.getName() : f.getName();
                fields.put(key, f);
            }
        }
        Map<String, Field> result = Collections.unmodifiableMap(fields);
        FIELDS.put(type, result);
        return result;
    }

    /** Makes a field accessible; false when the module system refuses. */
    static boolean accessible(Field f) {
        try {
            f.setAccessible(true);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
