package dev.flaky.runner.warm;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A child-first class loader over the test class path: every class and resource found on it is this loader's own
 * copy, so each order starts from fresh statics (the project's, its libraries', JUnit's and the runner's). The JDK's
 * classes come from the JDK's loaders and the agent's ({@code dev.flaky}, but for the runner: its connection to the
 * driver is shared by all orders) from the application class loader; a class found nowhere else comes from it too.
 */
final class WarmLoader extends URLClassLoader {
    private static final String FLAKY = "dev.flaky.";
    private static final String RUNNER = "dev.flaky.runner.";
    /** The loader of the JDK's classes: the platform (extension) loader, the application loader's parent. */
    private final ClassLoader jdk;

    static {
        registerAsParallelCapable();
    }

    WarmLoader(URL[] urls, ClassLoader parent) {
        super(urls, parent);
        this.jdk = ClassLoader.getSystemClassLoader().getParent();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith("java.") || (name.startsWith(FLAKY) && !name.startsWith(RUNNER))) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                c = fromJdk(name);
            }
            if (c == null) {
                try {
                    c = findClass(name);
                } catch (ClassNotFoundException notHere) {
                    c = getParent().loadClass(name);
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    @Override
    public URL getResource(String name) {
        URL own = findResource(name);
        return own != null ? own : getParent().getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        List<URL> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Enumeration<URL> e = findResources(name); e.hasMoreElements(); ) {
            URL u = e.nextElement();
            if (seen.add(u.toString())) {
                out.add(u);
            }
        }
        // The parent's copies of the same class path entries are the same resources: list each once.
        for (Enumeration<URL> e = getParent().getResources(name); e.hasMoreElements(); ) {
            URL u = e.nextElement();
            if (seen.add(u.toString())) {
                out.add(u);
            }
        }
        return Collections.enumeration(out);
    }

    /** The JDK's class of that name, or null. */
    private Class<?> fromJdk(String name) {
        if (jdk == null) {
            return null;
        }
        try {
            return jdk.loadClass(name);
        } catch (ClassNotFoundException notJdk) {
            return null;
        }
    }
}
