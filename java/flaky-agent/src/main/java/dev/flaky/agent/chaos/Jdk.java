package dev.flaky.agent.chaos;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Calls JDK methods newer than Java 8 (the agent's bytecode level), such as JDK 17's {@code Random.nextInt(int,
 * int)} or JDK 9's {@code CompletableFuture.orTimeout}, by reflection: the wrappers use it for the calls they do
 * not perturb. Methods are looked up once per receiver class among the public methods of its public JDK
 * supertypes (so an implementation class in a module that does not export it is never touched).
 */
final class Jdk {
    private static final Map<String, Method> METHODS = new ConcurrentHashMap<>();

    private Jdk() {
    }

    /** Calls public method {@code name} on {@code receiver} with {@code args} (boxed primitives matched exactly). */
    static Object call(Object receiver, String name, Object... args) {
        return invoke(find(receiver.getClass(), name, args), receiver, args);
    }

    /** Calls public method {@code name} of interface {@code type} on {@code receiver}. */
    static Object call(String type, String name, Object receiver, Object... args) {
        try {
            return invoke(find(Class.forName(type), name, args), receiver, args);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(type + " is missing", e);
        }
    }

    private static Object invoke(Method m, Object receiver, Object[] args) {
        try {
            return m.invoke(receiver, args);
        } catch (InvocationTargetException e) {
            throw sneaky(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + m, e);
        }
    }

    private static Method find(Class<?> type, String name, Object[] args) {
        String key = type.getName() + '#' + name + '/' + args.length;
        Method m = METHODS.get(key);
        if (m == null) {
            m = lookup(type, name, args);
            METHODS.put(key, m);
        }
        return m;
    }

    private static Method lookup(Class<?> type, String name, Object[] args) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            Method m = declared(c, name, args);
            if (m != null) {
                return m;
            }
            for (Class<?> i : c.getInterfaces()) {
                m = declared(i, name, args);
                if (m != null) {
                    return m;
                }
            }
        }
        throw new IllegalStateException(type.getName() + " has no public method " + name + " for " + args.length
                + " arguments on this JDK");
    }

    /** A public method of a public JDK type with parameters that take {@code args}; null when none. */
    private static Method declared(Class<?> c, String name, Object[] args) {
        if (!java.lang.reflect.Modifier.isPublic(c.getModifiers()) || !c.getName().startsWith("java.")) {
            return null;
        }
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name) && fits(m.getParameterTypes(), args)) {
                return m;
            }
        }
        return null;
    }

    private static boolean fits(Class<?>[] params, Object[] args) {
        if (params.length != args.length) {
            return false;
        }
        for (int i = 0; i < params.length; i++) {
            Class<?> p = params[i];
            Object a = args[i];
            boolean ok = p == int.class ? a instanceof Integer
                    : p == long.class ? a instanceof Long
                    : p == double.class ? a instanceof Double
                    : p == float.class ? a instanceof Float
                    : a == null || p.isInstance(a);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }
}
