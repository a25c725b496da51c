package dev.flaky.agent.chaos;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Calls Groovy's dynamic call sites ({@code org.codehaus.groovy.runtime.callsite.CallSite}) for the wrappers that
 * look at them: Groovy code reads the clock through such a site ({@code System.currentTimeMillis()} is
 * {@code site.call(System)}, {@code new Date()} is {@code site.callConstructor(Date)}), not through a call the
 * agent could rewrite, so {@link TimeApi} checks each site's name and receiver. The agent never links against
 * Groovy: the methods are looked up once per call-site class.
 */
final class Groovy {
    private static final MethodType ONE_ARGUMENT = MethodType.methodType(Object.class, Object.class, Object.class);

    /** Per call-site class: getName(), call(Object), callConstructor(Object). */
    private static final ClassValue<MethodHandle[]> HANDLES = new ClassValue<MethodHandle[]>() {
        @Override
        protected MethodHandle[] computeValue(Class<?> type) {
            try {
                Class<?> site = Class.forName("org.codehaus.groovy.runtime.callsite.CallSite", false,
                        type.getClassLoader());
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodType one = MethodType.methodType(Object.class, Object.class);
                return new MethodHandle[] {
                    lookup.findVirtual(site, "getName", MethodType.methodType(String.class))
                        .asType(MethodType.methodType(String.class, Object.class)),
                    lookup.findVirtual(site, "call", one).asType(ONE_ARGUMENT),
                    lookup.findVirtual(site, "callConstructor", one).asType(ONE_ARGUMENT),
                };
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("no Groovy call site in " + type, e);
            }
        }
    };

    private Groovy() {
    }

    /** The call site's method name. */
    static String name(Object callSite) throws Throwable {
        return (String) HANDLES.get(callSite.getClass())[0].invokeExact(callSite);
    }

    /** {@code callSite.call(receiver)}. */
    static Object call(Object callSite, Object receiver) throws Throwable {
        return (Object) HANDLES.get(callSite.getClass())[1].invokeExact(callSite, receiver);
    }

    /** {@code callSite.callConstructor(receiver)}. */
    static Object callConstructor(Object callSite, Object receiver) throws Throwable {
        return (Object) HANDLES.get(callSite.getClass())[2].invokeExact(callSite, receiver);
    }
}
