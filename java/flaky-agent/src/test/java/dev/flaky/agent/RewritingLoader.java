package dev.flaky.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.UnaryOperator;

/** Loads the classes of one package prefix from rewritten bytes, everything else from its own loader (for transformer tests). */
public final class RewritingLoader extends ClassLoader {
    private final String prefix;
    private final UnaryOperator<byte[]> rewrite;

    /** Rewrites the classes whose names start with {@code prefix} with {@code rewrite}. */
    public RewritingLoader(String prefix, UnaryOperator<byte[]> rewrite) {
        super(RewritingLoader.class.getClassLoader());
        this.prefix = prefix;
        this.rewrite = rewrite;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(prefix)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                byte[] rewritten = rewrite.apply(bytes(name));
                c = defineClass(name, rewritten, 0, rewritten.length);
            }
            return c;
        }
    }

    /** The class file of {@code name} as the test class path holds it. */
    public static byte[] bytes(String name) throws ClassNotFoundException {
        try (InputStream in = RewritingLoader.class.getClassLoader()
                .getResourceAsStream(name.replace('.', '/') + ".class")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        } catch (IOException | NullPointerException e) {
            throw new ClassNotFoundException(name, e);
        }
    }
}
