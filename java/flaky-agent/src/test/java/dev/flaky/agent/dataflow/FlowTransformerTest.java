package dev.flaky.agent.dataflow;

import static org.junit.Assert.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.After;
import org.junit.Test;

public class FlowTransformerTest {
    /** Loads the sample classes from rewritten bytes; everything else from the parent. */
    static final class Rewriting extends ClassLoader {
        Rewriting() {
            super(FlowTransformerTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("sample.dataflow.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    byte[] rewritten = FlowTransformer.rewrite(bytes(name));
                    c = defineClass(name, rewritten, 0, rewritten.length);
                }
                return c;
            }
        }

        private static byte[] bytes(String name) throws ClassNotFoundException {
            try (InputStream in = FlowTransformerTest.class.getClassLoader()
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

    private static Dataflow install() throws Exception {
        Constructor<Dataflow> make = Dataflow.class.getDeclaredConstructor();
        make.setAccessible(true);
        Dataflow d = make.newInstance();
        active().set(null, d);
        return d;
    }

    private static Field active() throws NoSuchFieldException {
        Field f = Dataflow.class.getDeclaredField("active");
        f.setAccessible(true);
        return f;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> reads(Dataflow d) throws Exception {
        Field f = Dataflow.class.getDeclaredField("reads");
        f.setAccessible(true);
        synchronized (d) {
            return new LinkedHashMap<>((Map<String, String>) f.get(d));
        }
    }

    @After
    public void uninstall() throws Exception {
        active().set(null, null);
    }

    @Test
    public void readsOfStateAnEarlierTestWroteAreDependenciesOnIt() throws Exception {
        Dataflow d = install();
        Class<?> shared = Class.forName("sample.dataflow.Shared", true, new Rewriting());
        d.testStarting("writer", 0);
        shared.getMethod("write").invoke(null);
        Map<String, String> own = reads(d);
        d.testStarting("reader", 1);
        String summary = (String) shared.getMethod("read").invoke(null);
        assertEquals("1:42:1:0:x:on", summary);
        Map<String, String> want = new LinkedHashMap<>();
        want.put("sample.dataflow.Shared.counter", "writer");
        want.put("sample.dataflow.Shared.box", "writer");
        want.put("sample.dataflow.Shared.INDEX", "writer");
        want.put("sample.dataflow.Shared.CELLS", "writer");
        want.put("sample.dataflow.mode", "writer");
        assertEquals(want, reads(d));
        // A test's reads of its own writes are no dependency.
        assertEquals(new LinkedHashMap<String, String>(), own);
    }

    @Test
    public void aFieldWriteOfAnObjectReachedFromAStaticWritesTheStatic() throws Exception {
        Dataflow d = install();
        Class<?> shared = Class.forName("sample.dataflow.Shared", true, new Rewriting());
        d.testStarting("first", 0);
        shared.getMethod("write").invoke(null);
        d.testStarting("second", 1);
        shared.getMethod("readBox").invoke(null);
        d.testStarting("third", 2);
        shared.getMethod("readBox").invoke(null);
        // second only read the box: third still depends on first.
        assertEquals("first", reads(d).get("sample.dataflow.Shared.box"));
    }
}
