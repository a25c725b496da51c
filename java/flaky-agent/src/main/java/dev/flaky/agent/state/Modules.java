package dev.flaky.agent.state;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Opens the packages of {@code java.base} to the agent through {@code Instrumentation.redefineModule} (JDK 9+), so
 * that restoring state can use the JDK's private collection classes (a synchronized or unmodifiable wrapper)
 * without {@code --add-opens} flags on the user's command line. Called reflectively: the agent is Java 8 bytecode.
 */
final class Modules {
    private Modules() {
    }

    /** Opens every package of java.base to the agent's module; does nothing on Java 8. */
    static void openJavaBase(Instrumentation inst) {
        try {
            Method getModule = Class.class.getMethod("getModule");
            Object javaBase = getModule.invoke(Object.class);
            Object agent = getModule.invoke(Modules.class);
            Class<?> moduleType = javaBase.getClass();
            @SuppressWarnings("unchecked")
            Set<String> packages = (Set<String>) moduleType.getMethod("getPackages").invoke(javaBase);
            Map<String, Set<Object>> opens = new HashMap<>();
            for (String p : packages) {
                opens.put(p, Collections.singleton(agent));
            }
            Method redefine = Instrumentation.class.getMethod("redefineModule", moduleType, Set.class, Map.class,
                    Map.class, Set.class, Map.class);
            redefine.invoke(inst, javaBase, Collections.emptySet(), Collections.emptyMap(), opens,
                    Collections.emptySet(), Collections.<Class<?>, List<Class<?>>>emptyMap());
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Java 8 has no modules; elsewhere restoring falls back to public constructors.
        }
    }
}
