package dev.flaky.agent.state;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.flaky.agent.Channel;
import dev.flaky.agent.MessageTypes;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.TreeMap;

/**
 * The state capture: installs the class-initialisation hook and the test-boundary hook, walks the roots at the
 * requested boundaries and sends the roots whose fingerprint changed since the last capture of this JVM as
 * {@code state} events (a class's roots also right after its static initialiser, point {@code init}).
 */
public final class Capture implements Channel.Boundary {
    /** Root kinds, as the report names them. */
    static final String STATIC = "static-field";
    static final String PROPERTY = "system-property";
    static final String DEFAULT = "jdk-default";
    static final String FILE = "file";

    /** Largest sum of tree sizes in one state event; larger captures are split over several events. */
    private static final int EVENT_BYTES = 4 << 20;
    /** Largest single tree; a larger one is replaced by a cut. */
    private static final int TREE_BYTES = 8 << 20;

    private static volatile Capture active;

    private final StateConfig config;
    private final Restorer restorer;
    private final Probe probe;
    private final Map<String, String> startProperties = new HashMap<>();
    private final FileState files;
    /** Classes whose static initialiser completed, in that order. */
    private final Set<Class<?>> initialised = new LinkedHashSet<>();
    /** Fingerprint of each root as last sent, by kind and name. */
    private final Map<String, String> sent = new HashMap<>();
    private final ThreadLocal<Boolean> busy = new ThreadLocal<>();
    private String running = "";

    private Capture(StateConfig config, Instrumentation inst) {
        this.config = config;
        // The JDK sets user.timezone when the default zone is first read: read it now, so that the capture's own
        // reading of the defaults does not look like a test changing the property.
        TimeZone.getDefault();
        Properties p = System.getProperties();
        for (String name : p.stringPropertyNames()) {
            startProperties.put(name, p.getProperty(name));
        }
        files = new FileState();
        restorer = config.restore == null ? null : Restorer.load(config.restore, this, inst);
        probe = config.probe == null ? null : Probe.load(config.probe, this, Restorer.empty(this, inst));
    }

    /**
     * Returns what the state options of {@code options} parse to (see {@link StateConfig#describe}); null when they
     * ask for no capture, restore or probe.
     *
     * @throws IllegalArgumentException when the state options are invalid
     */
    public static Map<String, Object> describe(Map<String, String> options) {
        StateConfig config = StateConfig.parse(options);
        return config == null ? null : config.describe();
    }

    /** Installs the capture when the options ask for it. */
    public static void install(Map<String, String> options, Instrumentation inst) {
        StateConfig config = StateConfig.parse(options);
        if (config == null) {
            return;
        }
        Modules.openJavaBase(inst);
        Capture c = new Capture(config, inst);
        active = c;
        if (config.capturing()) {
            inst.addTransformer(new InitTransformer(config), false);
        }
        Channel.onBoundary(c);
    }

    /**
     * Called by instrumented classes at the end of their static initialiser: records the class and sends its roots
     * (point {@code init}), the state the class starts from.
     */
    public static void initialised(Class<?> type) {
        Capture c = active;
        if (c == null || Boolean.TRUE.equals(c.busy.get())) {
            return;
        }
        c.busy.set(Boolean.TRUE);
        try {
            synchronized (c) {
                c.initialised.add(type);
                Map<String, JsonObject> roots = new TreeMap<>();
                c.staticRoots(type, roots);
                c.send("init", c.running, -1, roots);
            }
        } catch (Throwable t) {
            // State capture must never break the class it observes.
        } finally {
            c.busy.remove();
        }
    }

    @Override
    public void testStarting(String test, int index) {
        synchronized (this) {
            running = test;
        }
        if (restorer != null && restorer.index == index) {
            restorer.restore();
        }
        if (probe != null) {
            probe.testStarting(index);
        }
        if (config.capturesBefore(index)) {
            capture("before", test, index);
        }
    }

    @Override
    public void testEnded(String test, int index) {
        if (config.capturesAfter(index)) {
            capture("after", test, index);
        }
        synchronized (this) {
            running = "";
        }
    }

    private void capture(String point, String test, int index) {
        busy.set(Boolean.TRUE);
        try {
            synchronized (this) {
                Map<String, JsonObject> roots = new TreeMap<>();
                for (Class<?> type : new ArrayList<>(initialised)) {
                    staticRoots(type, roots);
                }
                properties(roots);
                defaults(roots);
                for (Map.Entry<String, JsonElement> f : files.changed().entrySet()) {
                    roots.put(key(FILE, f.getKey()), root(FILE, f.getKey(), f.getValue(), null));
                }
                send(point, test, index, roots);
            }
        } finally {
            busy.remove();
        }
    }

    /** Adds the roots of {@code type}'s static fields. */
    void staticRoots(Class<?> type, Map<String, JsonObject> roots) {
        Field[] fields;
        try {
            fields = type.getDeclaredFields();
        } catch (Throwable e) {
            return;
        }
        for (Field f : fields) {
            if (!Walker.mutableRoot(f) || !Types.accessible(f)) {
                continue;
            }
            String name = type.getName() + "." + f.getName();
            Walker w = new Walker(config.limits);
            JsonElement tree;
            try {
                tree = w.walk(f.get(null), f.getType());
            } catch (Throwable e) {
                tree = new JsonPrimitive("@unreadable " + e.getClass().getName());
            }
            roots.put(key(STATIC, name), root(STATIC, name, tree, w.cut()));
        }
    }

    /** Adds the system properties that differ from their value when the JVM started (null: removed). */
    private void properties(Map<String, JsonObject> roots) {
        Properties p = System.getProperties();
        Set<String> names = new LinkedHashSet<>(p.stringPropertyNames());
        for (String name : names) {
            String v = p.getProperty(name);
            if (v != null && !v.equals(startProperties.get(name))) {
                roots.put(key(PROPERTY, name), root(PROPERTY, name, new JsonPrimitive(v), null));
            }
        }
        for (String name : startProperties.keySet()) {
            if (!names.contains(name)) {
                roots.put(key(PROPERTY, name), root(PROPERTY, name, JsonNull.INSTANCE, null));
            }
        }
    }

    /** Adds the JDK defaults tests change: the default locale of each category and the default time zone. */
    private static void defaults(Map<String, JsonObject> roots) {
        putDefault(roots, "Locale.default", Locale.getDefault().toString());
        putDefault(roots, "Locale.default(DISPLAY)", Locale.getDefault(Locale.Category.DISPLAY).toString());
        putDefault(roots, "Locale.default(FORMAT)", Locale.getDefault(Locale.Category.FORMAT).toString());
        putDefault(roots, "TimeZone.default", TimeZone.getDefault().getID());
    }

    private static void putDefault(Map<String, JsonObject> roots, String name, String value) {
        roots.put(key(DEFAULT, name), root(DEFAULT, name, new JsonPrimitive(value), null));
    }

    /** The value a system property had when the JVM started, or null. */
    String startProperty(String name) {
        return startProperties.get(name);
    }

    FileState files() {
        return files;
    }

    /** Classes whose static initialiser completed. */
    synchronized List<Class<?>> initialisedClasses() {
        return new ArrayList<>(initialised);
    }

    static String key(String kind, String name) {
        return kind + "\u0000" + name;
    }

    static JsonObject root(String kind, String name, JsonElement tree, String cut) {
        String text = tree.toString();
        if (text.length() > TREE_BYTES) {
            JsonObject c = new JsonObject();
            c.addProperty("@cut", "bytes");
            tree = c;
            text = tree.toString();
            cut = "bytes";
        }
        JsonObject r = new JsonObject();
        r.addProperty("kind", kind);
        r.addProperty("root", name);
        r.addProperty("fp", fingerprint(text));
        r.add("tree", tree);
        if (cut != null) {
            r.addProperty("cut", cut);
        }
        return r;
    }

    static String fingerprint(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < 8; i++) {
                s.append(String.format("%02x", d[i]));
            }
            return s.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sends the roots whose fingerprint differs from the one last sent, and marks the non-static roots sent before
     * and missing now as absent (a property or file back at its start value). Static roots are only ever added: a
     * class stays initialised.
     */
    private void send(String point, String test, int index, Map<String, JsonObject> roots) {
        List<JsonObject> changed = new ArrayList<>();
        for (Map.Entry<String, JsonObject> e : roots.entrySet()) {
            String fp = e.getValue().get("fp").getAsString();
            if (!fp.equals(sent.get(e.getKey()))) {
                sent.put(e.getKey(), fp);
                changed.add(e.getValue());
            }
        }
        if (!"init".equals(point)) {
            for (String k : new ArrayList<>(sent.keySet())) {
                if (!roots.containsKey(k) && !k.startsWith(STATIC + "\u0000")) {
                    sent.remove(k);
                    String[] parts = k.split("\u0000", 2);
                    JsonObject gone = new JsonObject();
                    gone.addProperty("kind", parts[0]);
                    gone.addProperty("root", parts[1]);
                    gone.addProperty("absent", true);
                    changed.add(gone);
                }
            }
        }
        if (changed.isEmpty() && "init".equals(point)) {
            return;
        }
        List<JsonObject> part = new ArrayList<>();
        int bytes = 0;
        for (JsonObject r : changed) {
            int size = r.toString().length();
            if (!part.isEmpty() && bytes + size > EVENT_BYTES) {
                event(point, test, index, part, false);
                part = new ArrayList<>();
                bytes = 0;
            }
            part.add(r);
            bytes += size;
        }
        event(point, test, index, part, true);
    }

    private static void event(String point, String test, int index, List<JsonObject> roots, boolean last) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("type", MessageTypes.STATE);
        e.put("point", point);
        e.put("test", test);
        e.put("index", index);
        e.put("roots", roots);
        e.put("last", last);
        Channel.send(e);
    }
}
