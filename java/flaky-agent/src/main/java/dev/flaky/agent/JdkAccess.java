package dev.flaky.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * JDK state that only reflection reaches, for the runner's warm runs: the registered shutdown hooks. On Java 9 and
 * later the agent opens {@code java.lang} to itself through the instrumentation it was started with.
 */
public final class JdkAccess {
    private static volatile Instrumentation instrumentation;
    private static Field hooks;
    private static boolean tried;

    private JdkAccess() {
    }

    /** Keeps the agent's instrumentation for opening JDK packages later. */
    static void install(Instrumentation inst) {
        instrumentation = inst;
    }

    /** Returns the application shutdown hooks registered now, or null when they cannot be read. */
    public static synchronized Set<Thread> shutdownHooks() {
        if (!tried) {
            tried = true;
            hooks = hooksField();
        }
        if (hooks == null) {
            return null;
        }
        try {
            Class<?> owner = hooks.getDeclaringClass();
            synchronized (owner) {
                Object map = hooks.get(null);
                return map == null ? Collections.<Thread>emptySet() : new HashSet<>(((Map<Thread, ?>) map).keySet());
            }
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    private static Field hooksField() {
        try {
            Class<?> c = Class.forName("java.lang.ApplicationShutdownHooks");
            openJavaLang(c);
            Field f = c.getDeclaredField("hooks");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Opens java.lang to this agent's module (Java 9+; a no-op before). */
    private static void openJavaLang(Class<?> inJavaLang) throws ReflectiveOperationException {
        Instrumentation inst = instrumentation;
        Method getModule;
        try {
            getModule = Class.class.getMethod("getModule");
        } catch (NoSuchMethodException java8) {
            return;
        }
        if (inst == null) {
            return;
        }
        Object base = getModule.invoke(inJavaLang);
        Object mine = getModule.invoke(JdkAccess.class);
        Class<?> module = Class.forName("java.lang.Module");
        Method redefine = Instrumentation.class.getMethod("redefineModule", module, Set.class, Map.class, Map.class,
                Set.class, Map.class);
        redefine.invoke(inst, base, Collections.emptySet(), Collections.emptyMap(),
                Collections.singletonMap("java.lang", Collections.singleton(mine)), Collections.emptySet(),
                Collections.emptyMap());
    }
}
