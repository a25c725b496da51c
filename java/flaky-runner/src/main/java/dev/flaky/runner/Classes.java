package dev.flaky.runner;

/** Class loading against the test class path (the thread's context class loader). */
public final class Classes {
    private Classes() {
    }

    /** The loader that sees the project's test classes and dependencies. */
    public static ClassLoader loader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : Classes.class.getClassLoader();
    }

    /** Loads a class without initializing it. */
    public static Class<?> load(String name) throws ClassNotFoundException {
        return Class.forName(name, false, loader());
    }

    /** Reports whether all named classes can be loaded. */
    public static boolean present(String... names) {
        for (String name : names) {
            try {
                load(name);
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
        return true;
    }
}
