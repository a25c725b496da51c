package dev.flaky.agent.dataflow;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.io.File;
import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.flaky.agent.RewritingLoader;
import org.junit.After;
import org.junit.Test;

public class FlowTransformerTest {
    /** Loads the sample classes from rewritten bytes; everything else from the parent. */
    private static ClassLoader rewriting() {
        return new RewritingLoader("sample.dataflow.", FlowTransformer::rewrite);
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

    @SuppressWarnings("unchecked")
    private static java.util.Set<String> exposed(Dataflow d) throws Exception {
        Field f = Dataflow.class.getDeclaredField("exposed");
        f.setAccessible(true);
        synchronized (d) {
            return new java.util.TreeSet<>((java.util.Set<String>) f.get(d));
        }
    }

    @Test
    public void onlyRootsReadBeforeTheTestReplacedThemAreExposed() throws Exception {
        Dataflow d = install();
        Class<?> shared = Class.forName("sample.dataflow.Shared", true, rewriting());
        d.testStarting("writesThenReads", 0);
        shared.getMethod("write").invoke(null);
        shared.getMethod("read").invoke(null);
        // counter was assigned and the property set before they were read: nothing an earlier test left shows
        // through them. box, INDEX and CELLS were read to change what they reach, which keeps the rest.
        assertEquals(new java.util.TreeSet<>(Arrays.asList("sample.dataflow.Shared.CELLS", "sample.dataflow.Shared.INDEX",
                "sample.dataflow.Shared.WIDE", "sample.dataflow.Shared.box")), exposed(d));
        System.clearProperty("sample.dataflow.mode");
    }

    @After
    public void uninstall() throws Exception {
        active().set(null, null);
    }

    @Test
    public void readsOfStateAnEarlierTestWroteAreDependenciesOnIt() throws Exception {
        Dataflow d = install();
        Class<?> shared = Class.forName("sample.dataflow.Shared", true, rewriting());
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
        Class<?> shared = Class.forName("sample.dataflow.Shared", true, rewriting());
        d.testStarting("first", 0);
        shared.getMethod("write").invoke(null);
        d.testStarting("second", 1);
        shared.getMethod("readBox").invoke(null);
        d.testStarting("third", 2);
        shared.getMethod("readBox").invoke(null);
        // second only read the box: third still depends on first.
        assertEquals("first", reads(d).get("sample.dataflow.Shared.box"));
    }

    @Test
    public void defaultsAndFilesAreRootsToo() throws Exception {
        Dataflow d = install();
        Class<?> outside = Class.forName("sample.dataflow.Outside", true, rewriting());
        String name = "flaky-dataflow-test-" + System.nanoTime();
        try {
            d.testStarting("writer", 0);
            outside.getMethod("write", String.class).invoke(null, name);
            d.testStarting("explicit", 1);
            outside.getMethod("readExplicit").invoke(null);
            assertEquals(new LinkedHashMap<String, String>(), reads(d));
            d.testStarting("reader", 2);
            assertEquals("1:false:true", outside.getMethod("read", String.class).invoke(null, name));
            Map<String, String> want = new LinkedHashMap<>();
            want.put(FlowTransformer.LOCALE, "writer");
            want.put(FlowTransformer.ZONE, "writer");
            want.put(Dataflow.TMP + name, "writer");
            assertEquals(want, reads(d));
            d.testStarting("deleter", 3);
            outside.getMethod("delete", String.class).invoke(null, name);
            d.testStarting("checker", 4);
            outside.getMethod("read", String.class).invoke(null, name);
            assertEquals("deleter", reads(d).get(Dataflow.TMP + name));
        } finally {
            Files.deleteIfExists(Paths.get(System.getProperty("java.io.tmpdir"), name));
        }
    }

    @Test
    public void filesAreNamedAsTheStateCaptureNamesThem() throws Exception {
        Dataflow d = install();
        String tmp = System.getProperty("java.io.tmpdir");
        assertEquals(Dataflow.TMP + "a/b.txt", d.fileRoot(new File(tmp, "a/b.txt")));
        assertEquals("target/out.txt", d.fileRoot("target/out.txt"));
        assertEquals("out.txt", d.fileRoot(Paths.get(System.getProperty("user.dir"), "x", "..", "out.txt")));
        assertNull(d.fileRoot("target/classes/a/B.class"));
        // Outside the module and the temporary directory (the module's parent may be under the latter: a clone in /tmp).
        assertNull(d.fileRoot(new File(System.getProperty("java.home"))));
        assertNull(d.fileRoot(42));
    }

    @Test
    public void aTestNamesTheClassesWhoseCodeRanWhileItRan() throws Exception {
        Dataflow d = install();
        ClassLoader loader = rewriting();
        Class<?> shared = Class.forName("sample.dataflow.Shared", true, loader);
        Class<?> outside = Class.forName("sample.dataflow.Outside", true, loader);
        d.testStarting("first", 0);
        assertEquals(Collections.emptyList(), Dataflow.ranClasses());
        shared.getMethod("write").invoke(null);
        outside.getMethod("readExplicit").invoke(null);
        assertEquals(Arrays.asList("sample.dataflow.Outside", "sample.dataflow.Shared"), Dataflow.ranClasses());
        // A new test starts from nothing; a nested class's constructor counts for that class.
        d.testStarting("second", 1);
        outside.getMethod("readExplicit").invoke(null);
        Class.forName("sample.dataflow.Shared$Box", true, loader).getConstructor().newInstance();
        assertEquals(Arrays.asList("sample.dataflow.Outside", "sample.dataflow.Shared$Box"), Dataflow.ranClasses());
    }

    @Test
    public void aTestNamesTheMethodsThatRanLambdasAndAnonymousClassesAsTheirDeclarers() throws Exception {
        Dataflow d = install();
        Class<?> methods = Class.forName("sample.dataflow.Methods", true, rewriting());
        d.testStarting("first", 0);
        methods.getMethod("viaLambda").invoke(null);
        methods.getMethod("viaAnonymous").invoke(null);
        assertEquals(Arrays.asList("sample.dataflow.Methods#viaAnonymous", "sample.dataflow.Methods#viaLambda"),
                Dataflow.ranMethods());
        d.testStarting("second", 1);
        methods.getMethod("plain").invoke(null);
        assertEquals(Arrays.asList("sample.dataflow.Methods#plain"), Dataflow.ranMethods());
        assertEquals(Arrays.asList("sample.dataflow.Methods"), Dataflow.ranClasses());
    }
}
