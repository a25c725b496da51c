package dev.flaky.agent.state;

import java.lang.reflect.Field;

/** {@code sun.misc.Unsafe} (module jdk.unsupported, open to all): allocation without constructors, static finals. */
final class Unsafes {
    private static Object unsafe;

    private Unsafes() {
    }

    static synchronized Object get() throws ReflectiveOperationException {
        if (unsafe == null) {
            Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = f.get(null);
        }
        return unsafe;
    }

    /** Allocates an instance without running a constructor, as Objenesis does on HotSpot. */
    static Object allocate(Class<?> type) throws ReflectiveOperationException {
        Object u = get();
        return u.getClass().getMethod("allocateInstance", Class.class).invoke(u, type);
    }
}
