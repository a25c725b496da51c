package dev.flaky.agent;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * A transformer that rewrites the classes it selects so that they call a hook class of the agent: classes defined
 * by the bootstrap loader, and redefinitions, are left alone, and so are the classes of a loader that does not resolve
 * the hook class to the agent's own (a rewritten class could not link); a rewrite that fails leaves the class as it
 * was.
 */
public abstract class HookTransformer implements ClassFileTransformer {
    private final Class<?> hook;
    private final Map<ClassLoader, Boolean> seesHook = new WeakHashMap<>();

    /** A transformer whose rewritten classes call {@code hook}. */
    protected HookTransformer(Class<?> hook) {
        this.hook = hook;
    }

    /** Reports whether the class {@code name} (a binary name) of {@code loader} is to be rewritten. */
    protected abstract boolean selects(ClassLoader loader, String name, ProtectionDomain domain);

    /** Returns the rewritten class file, or null to leave it as it is. */
    protected abstract byte[] instrument(byte[] classFile);

    @Override
    public final byte[] transform(ClassLoader loader, String internalName, Class<?> redefined,
            ProtectionDomain domain, byte[] classFile) {
        if (loader == null || internalName == null || redefined != null) {
            return null;
        }
        if (!selects(loader, internalName.replace('/', '.'), domain) || !seesHook(loader)) {
            return null;
        }
        try {
            return instrument(classFile);
        } catch (Throwable t) {
            return null;
        }
    }

    /** Reports whether classes of {@code loader} resolve the hook class to the agent's. */
    private boolean seesHook(ClassLoader loader) {
        synchronized (seesHook) {
            Boolean known = seesHook.get(loader);
            if (known == null) {
                try {
                    known = Class.forName(hook.getName(), false, loader) == hook;
                } catch (ClassNotFoundException | LinkageError e) {
                    known = false;
                }
                seesHook.put(loader, known);
            }
            return known;
        }
    }
}
