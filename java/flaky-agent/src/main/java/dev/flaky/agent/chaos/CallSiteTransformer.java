package dev.flaky.agent.chaos;

import dev.flaky.agent.Channel;
import dev.flaky.agent.MessageTypes;
import net.bytebuddy.pool.TypePool;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The class file transformer of the chaos instrumentation: rewrites the call sites of the project's classes as they
 * are loaded (see {@link CallSiteRewriter}). A plain transformer over ByteBuddy's (relocated) ASM rather than an
 * AgentBuilder: it loads a few dozen classes instead of several hundred, which keeps the cost per test JVM low.
 * Registered as not retransformation-capable, so when another agent (Mockito's inline mock maker) retransforms a
 * project class, the JVM starts from the rewritten bytes and the rewriting is not repeated.
 */
final class CallSiteTransformer implements ClassFileTransformer {
    private final Targets targets;
    private final ClassSelection selection;
    private final Map<ClassLoader, Boolean> seesApi = new WeakHashMap<>();
    /** The binary names of the classes selected as the project's so far. */
    final Set<String> projectClasses = ConcurrentHashMap.newKeySet();

    CallSiteTransformer(Targets targets, ClassSelection selection) {
        this.targets = targets;
        this.selection = selection;
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        if (loader == null || internalName == null) {
            return null;
        }
        String name = internalName.replace('/', '.');
        if (!selection.selects(name, domain) || !seesApi(loader)) {
            return null;
        }
        projectClasses.add(name);
        try {
            return CallSiteRewriter.rewrite(classFile, targets, () -> TypePool.Default.of(loader));
        } catch (Throwable t) {
            warn("chaos: cannot instrument " + name + ", it runs unperturbed: " + t);
            return null;
        }
    }

    /**
     * Reports whether classes of {@code loader} resolve {@link Api} to the agent's class: only those can call the
     * wrappers (the agent jar is on the system class path, so the bootstrap and platform loaders cannot).
     */
    private boolean seesApi(ClassLoader loader) {
        synchronized (seesApi) {
            Boolean known = seesApi.get(loader);
            if (known == null) {
                try {
                    known = Class.forName(Api.class.getName(), false, loader) == Api.class;
                } catch (ClassNotFoundException | LinkageError e) {
                    known = false;
                }
                seesApi.put(loader, known);
            }
            return known;
        }
    }

    /** Sends a {@code log} warning to the driver, or prints it on standard error without one. */
    static void warn(String message) {
        if (Channel.connected()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("type", MessageTypes.LOG);
            e.put("level", "warn");
            e.put("message", message);
            Channel.send(e);
        } else {
            System.err.println("[flaky] " + message);
        }
    }
}
