package dev.flaky.agent.dataflow;

import dev.flaky.agent.Channel;
import dev.flaky.agent.MessageTypes;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The dataflow recorder: the hooks that instrumented project code calls on every access to shared state, the last
 * writer of every root, and the per-test summary sent when a test ends. Roots are static fields
 * ({@code pkg.Class.field}, kind {@code static-field}), system properties (kind {@code system-property}), the default
 * locale and time zone (kind {@code jdk-default}) and the files of the working and temporary directories (kind
 * {@code file}); an
 * object read from a static field (or from a field or collection of such an object) carries the field's root, so
 * that its field writes and reads and its collection and map mutations and reads count as writes and reads of the
 * root. Immutable values (strings, boxed primitives, enums, classes) are never tagged. Code outside a test (class
 * fixtures, static initialisers, which are not instrumented) writes on nobody's behalf. The summary also names the
 * instrumented classes whose methods or constructors ran while the test ran (class-level coverage; code run outside
 * a test counts for nobody).
 */
public final class Dataflow implements Channel.Boundary {
    /** Kind of a static-field root. */
    static final String STATIC = "static-field";
    /** Kind of a system-property root. */
    static final String PROPERTY = "system-property";
    /** Kind of a JDK default's root ({@code Locale.default}, {@code TimeZone.default}). */
    static final String DEFAULT = "jdk-default";
    /** Kind of a file's root: its path in the working directory, or {@code ${java.io.tmpdir}/} and its path there. */
    static final String FILE = "file";
    /** Root name prefix of files in the temporary directory (as the state capture names them). */
    static final String TMP = "${java.io.tmpdir}/";

    private static volatile Dataflow active;

    /** Binary names of the instrumented classes, by index (see {@link #classIndex}); guarded by the class lock. */
    private static final List<String> classNames = new ArrayList<>();
    /** Index of each instrumented class name; guarded by the class lock. */
    private static final Map<String, Integer> classIndexes = new HashMap<>();
    /** Which instrumented classes ran code since the running test started, by index; grown by {@link #classIndex}. */
    private static volatile boolean[] ran = new boolean[256];

    /** Keys ({@code Class#name}) of the instrumented methods, by index (see {@link #methodIndex}); guarded by the class lock. */
    private static final List<String> methodKeys = new ArrayList<>();
    /** The class index of each method index; guarded by the class lock, read through {@link #methodClasses}. */
    private static volatile int[] methodClasses = new int[1024];
    /** Index of each method key; guarded by the class lock. */
    private static final Map<String, Integer> methodIndexes = new HashMap<>();
    /** Which method keys ran since the running test started, by index; grown by {@link #methodIndex}. */
    private static volatile boolean[] ranMethods = new boolean[1024];
    /**
     * The method key that the code of each anonymous or local class counts for: its declaring method's (after that
     * method's own class's, when it is anonymous or local too); guarded by the class lock.
     */
    private static final Map<String, String> enclosing = new HashMap<>();

    /** The root an object was last reached from, by identity; objects reachable from statics live on anyway. */
    private final Map<Object, String> tags = new IdentityHashMap<>();
    /** The test that last wrote each root ("" outside tests). */
    private final Map<String, String> lastWriter = new LinkedHashMap<>();
    /** Kind of each root seen. */
    private final Map<String, String> kinds = new LinkedHashMap<>();
    /** The running test's reads of roots an earlier test wrote: root to writer, first read wins. */
    private final Map<String, String> reads = new LinkedHashMap<>();
    /** Roots the running test read (all of them, for the benign-read statistics). */
    private final Set<String> touched = new LinkedHashSet<>();
    /**
     * Roots the running test read before it replaced them itself: what an earlier test can have left for it. A root
     * is replaced by assigning its static field, setting its system property or JDK default; changing the object a
     * root reaches (a map's entry, a field) leaves the rest of it as an earlier test left it.
     */
    private final Set<String> exposed = new LinkedHashSet<>();
    /** Roots the running test replaced (see {@link #exposed}). */
    private final Set<String> replaced = new LinkedHashSet<>();
    /** Roots the running test wrote. */
    private final Set<String> writes = new LinkedHashSet<>();
    /** The running test, or "" between tests. */
    private String test = "";
    /** The root of the object whose field or element was read last on this thread (for tagging what it returned). */
    private final ThreadLocal<String> lastRoot = new ThreadLocal<>();

    /** The working and the temporary directory, absolute and normalised. */
    private final Path cwd, tmp;

    private Dataflow() {
        cwd = normalised(System.getProperty("user.dir", "."));
        tmp = normalised(System.getProperty("java.io.tmpdir", "/tmp"));
    }

    private static Path normalised(String path) {
        return Paths.get(path).toAbsolutePath().normalize();
    }

    /** Reports whether the options hold {@code dataflow=true} (or a bare {@code dataflow}). */
    public static boolean enabled(Map<String, String> options) {
        String v = options.get("dataflow");
        return v != null && ("true".equals(v) || v.isEmpty());
    }

    /** Installs the recorder when the options hold {@code dataflow=true}. */
    public static void install(Map<String, String> options, Instrumentation inst) {
        if (!enabled(options)) {
            return;
        }
        Dataflow d = new Dataflow();
        active = d;
        inst.addTransformer(new FlowTransformer(), false);
        Channel.onBoundary(d);
    }

    @Override
    public synchronized void testStarting(String name, int index) {
        test = name;
        reads.clear();
        touched.clear();
        exposed.clear();
        replaced.clear();
        writes.clear();
        Arrays.fill(ran, false);
        Arrays.fill(ranMethods, false);
    }

    @Override
    public void testEnded(String name, int index) {
        Map<String, Object> event = new LinkedHashMap<>();
        synchronized (this) {
            event.put("type", MessageTypes.DATAFLOW);
            event.put("test", name);
            event.put("index", index);
            List<Map<String, Object>> deps = new ArrayList<>();
            for (Map.Entry<String, String> e : reads.entrySet()) {
                Map<String, Object> dep = new LinkedHashMap<>();
                dep.put("root", e.getKey());
                dep.put("kind", kinds.get(e.getKey()));
                dep.put("writer", e.getValue());
                deps.add(dep);
            }
            event.put("reads", deps);
            event.put("touched", described(touched));
            event.put("exposed", described(exposed));
            event.put("writes", described(writes));
            event.put("classes", ranClasses());
            event.put("methods", ranMethods());
            test = "";
            reads.clear();
            touched.clear();
            exposed.clear();
            replaced.clear();
            writes.clear();
        }
        Channel.send(event);
    }

    /**
     * Returns the index of the instrumented class {@code name} (a binary name), registering it on first sight: the same
     * name always gets the same index, whichever loader defines it.
     */
    static synchronized int classIndex(String name) {
        Integer i = classIndexes.get(name);
        if (i != null) {
            return i;
        }
        int index = classNames.size();
        classNames.add(name);
        classIndexes.put(name, index);
        if (index >= ran.length) {
            ran = Arrays.copyOf(ran, ran.length * 2);
        }
        return index;
    }

    /**
     * Returns the index of the method key {@code Class#name} of {@code name} in class {@code classIndex}'s class
     * {@code className}, registering it on first sight. A lambda's method ({@code lambda$name$0}) counts as its
     * enclosing method ({@code lambda$static$0} as {@code <clinit>}, {@code lambda$new$0} as {@code <init>}), and any
     * method of an anonymous or local class as the method declaring that class (see {@link #enclose}).
     */
    static synchronized int methodIndex(int classIndex, String className, String name) {
        String key = enclosing.get(className);
        if (key == null) {
            key = className + "#" + declaring(name);
        }
        Integer i = methodIndexes.get(key);
        if (i != null) {
            return i;
        }
        int index = methodKeys.size();
        methodKeys.add(key);
        methodIndexes.put(key, index);
        if (index >= ranMethods.length) {
            ranMethods = Arrays.copyOf(ranMethods, ranMethods.length * 2);
            methodClasses = Arrays.copyOf(methodClasses, methodClasses.length * 2);
        }
        methodClasses[index] = classIndex;
        return index;
    }

    /** Returns the method whose code a method is: a lambda's enclosing method, else the method itself. */
    static String declaring(String name) {
        if (!name.startsWith("lambda$")) {
            return name;
        }
        int end = name.lastIndexOf('$');
        String m = end > 7 ? name.substring(7, end) : name;
        switch (m) {
            case "static":
                return "<clinit>";
            case "new":
                return "<init>";
            default:
                return m;
        }
    }

    /**
     * Records that the anonymous or local class {@code className} is declared by method {@code method} of class
     * {@code owner} (null: by an initialiser), before its methods are registered.
     */
    static synchronized void enclose(String className, String owner, String method) {
        String key = enclosing.get(owner);
        if (key == null) {
            key = owner + "#" + (method == null ? "<init>" : declaring(method));
        }
        enclosing.put(className, key);
    }

    /** Returns the sorted keys of the methods marked since the last reset. */
    static List<String> ranMethods() {
        TreeSet<String> keys = new TreeSet<>();
        synchronized (Dataflow.class) {
            boolean[] r = ranMethods;
            for (int i = 0; i < r.length && i < methodKeys.size(); i++) {
                if (r[i]) {
                    keys.add(methodKeys.get(i));
                }
            }
        }
        return new ArrayList<>(keys);
    }

    /** Returns the sorted names of the classes marked since the last reset. */
    static List<String> ranClasses() {
        TreeSet<String> names = new TreeSet<>();
        synchronized (Dataflow.class) {
            boolean[] r = ran;
            for (int i = 0; i < r.length && i < classNames.size(); i++) {
                if (r[i]) {
                    names.add(classNames.get(i));
                }
            }
        }
        return new ArrayList<>(names);
    }

    /** Returns roots as {@code {root, kind}} objects. */
    private List<Map<String, Object>> described(Set<String> roots) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String root : roots) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("root", root);
            r.put("kind", kinds.get(root));
            out.add(r);
        }
        return out;
    }

    private synchronized void read(String root, String kind) {
        if (kind != null) {
            kinds.put(root, kind);
        }
        if (test.isEmpty()) {
            return;
        }
        touched.add(root);
        if (!replaced.contains(root)) {
            exposed.add(root);
        }
        String w = lastWriter.get(root);
        if (w != null && !w.isEmpty() && !w.equals(test) && !reads.containsKey(root)) {
            reads.put(root, w);
        }
    }

    private synchronized void write(String root, String kind) {
        if (kind != null) {
            kinds.put(root, kind);
        }
        lastWriter.put(root, test);
        if (!test.isEmpty()) {
            writes.add(root);
        }
    }

    /** A write that replaces the whole root (see {@link #exposed}). */
    private synchronized void replace(String root, String kind) {
        write(root, kind);
        if (!test.isEmpty()) {
            replaced.add(root);
        }
    }

    private synchronized void tag(Object value, String root) {
        if (value != null && !immutable(value)) {
            tags.put(value, root);
        }
    }

    private synchronized String rootOf(Object o) {
        return o == null ? null : tags.get(o);
    }

    /** Values that can be shared freely: interned strings, boxed values, enums, classes. */
    private static boolean immutable(Object v) {
        return v instanceof String || v instanceof Number && !(v instanceof java.util.concurrent.atomic.AtomicInteger
                || v instanceof java.util.concurrent.atomic.AtomicLong) || v instanceof Boolean
                || v instanceof Character || v instanceof Enum || v instanceof Class || v instanceof BigInteger
                || v instanceof BigDecimal;
    }

    // Hooks called by instrumented code (see FlowTransformer).

    /**
     * A method or constructor of the instrumented class {@code index} was entered: marks the class as run (once per
     * test; the check keeps the hot path to a load and a compare).
     */
    public static void ran(int index) {
        boolean[] r = ran;
        if (index < r.length && !r[index]) {
            r[index] = true;
        }
    }

    /**
     * A method or constructor was entered: marks its method key (see {@link #methodIndex}) and its class as run (once
     * per test; the check keeps the hot path to a load and a compare).
     */
    public static void entered(int method) {
        boolean[] m = ranMethods;
        if (method < m.length && !m[method]) {
            m[method] = true;
            int[] c = methodClasses;
            if (method < c.length) {
                ran(c[method]);
            }
        }
    }

    /** A static field was read; {@code value} is its value when a reference (tagged with the root), else null. */
    public static void getStatic(Object value, String root) {
        Dataflow d = active;
        if (d != null) {
            d.read(root, STATIC);
            d.tag(value, root);
        }
    }

    /** A primitive static field was read. */
    public static void getStaticPrimitive(String root) {
        Dataflow d = active;
        if (d != null) {
            d.read(root, STATIC);
        }
    }

    /** A static field is about to be written with {@code value} (null for primitives). */
    public static void putStatic(Object value, String root) {
        Dataflow d = active;
        if (d != null) {
            d.replace(root, STATIC);
            d.tag(value, root);
        }
    }

    /** A field of {@code owner} is about to be read (or a collection or map read): a read of its root, if any. */
    public static void readOf(Object owner) {
        accessOf(owner, false);
    }

    /** A field of {@code owner} is about to be written (or a collection or map changed): a write of its root. */
    public static void writeOf(Object owner) {
        accessOf(owner, true);
    }

    /** A read or write of {@code owner}'s root, if it has one; the root is remembered for {@link #derived}. */
    private static void accessOf(Object owner, boolean write) {
        Dataflow d = active;
        if (d == null) {
            return;
        }
        String root = d.rootOf(owner);
        d.lastRoot.set(root);
        if (root == null) {
            return;
        }
        if (write) {
            d.write(root, null);
        } else {
            d.read(root, null);
        }
    }

    /** Tags a value just read from a tagged object with that object's root. */
    public static void derived(Object value) {
        Dataflow d = active;
        if (d == null) {
            return;
        }
        String root = d.lastRoot.get();
        if (root != null) {
            d.lastRoot.remove();
            d.tag(value, root);
        }
    }

    /** Substitutes {@link System#getProperty(String)}. */
    public static String getProperty(String key) {
        property(key, false);
        return System.getProperty(key);
    }

    /** Substitutes {@link System#getProperty(String, String)}. */
    public static String getProperty(String key, String def) {
        property(key, false);
        return System.getProperty(key, def);
    }

    /** Substitutes {@link System#setProperty(String, String)}. */
    public static String setProperty(String key, String value) {
        property(key, true);
        return System.setProperty(key, value);
    }

    /** Substitutes {@link System#clearProperty(String)}. */
    public static String clearProperty(String key) {
        property(key, true);
        return System.clearProperty(key);
    }

    /** A JDK default ({@code Locale.default}, {@code TimeZone.default}) is about to be read, directly or by an API. */
    public static void readDefault(String root) {
        Dataflow d = active;
        if (d != null) {
            d.read(root, DEFAULT);
        }
    }

    /** A JDK default is about to be set. */
    public static void writeDefault(String root) {
        Dataflow d = active;
        if (d != null) {
            d.replace(root, DEFAULT);
        }
    }

    /** The file {@code path} (a {@link File}, {@link Path} or name) is about to be read. */
    public static void readFile(Object path) {
        Dataflow d = active;
        String root = d == null ? null : d.fileRoot(path);
        if (root != null) {
            d.read(root, FILE);
        }
    }

    /** The file {@code path} is about to be created, written or deleted. */
    public static void writeFile(Object path) {
        Dataflow d = active;
        String root = d == null ? null : d.fileRoot(path);
        if (root != null) {
            d.write(root, FILE);
        }
    }

    /**
     * The root of a file in the working directory (its relative path) or the temporary directory ({@link #TMP} and
     * its path there), whichever is nearer; null for other files, for the build's class directories and for what is
     * not a path.
     */
    String fileRoot(Object path) {
        Path p;
        try {
            if (path instanceof File) {
                p = ((File) path).toPath();
            } else if (path instanceof Path) {
                p = (Path) path;
            } else if (path instanceof String) {
                p = Paths.get((String) path);
            } else {
                return null;
            }
            if (p.getFileSystem() != FileSystems.getDefault()) {
                return null;
            }
            p = p.isAbsolute() ? p.normalize() : cwd.resolve(p).normalize();
        } catch (RuntimeException e) {
            return null;
        }
        boolean inCwd = p.startsWith(cwd) && !p.equals(cwd);
        boolean inTmp = p.startsWith(tmp) && !p.equals(tmp);
        if (inCwd && (!inTmp || cwd.startsWith(tmp))) {
            String rel = cwd.relativize(p).toString().replace(File.separatorChar, '/');
            return rel.startsWith("target/classes") || rel.startsWith("target/test-classes")
                    || rel.startsWith("target/flaky") ? null : rel;
        }
        return inTmp ? TMP + tmp.relativize(p).toString().replace(File.separatorChar, '/') : null;
    }

    private static void property(String key, boolean write) {
        Dataflow d = active;
        if (d == null || key == null) {
            return;
        }
        if (write) {
            d.replace(key, PROPERTY);
        } else {
            d.read(key, PROPERTY);
        }
    }
}
