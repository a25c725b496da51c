package dev.flaky.agent.state;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.flaky.agent.Channel;
import dev.flaky.agent.MessageTypes;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * ODRepair's candidate check in one JVM: the driver runs the failing order with {@code state.probe=FILE};
 * at the start of position {@code passingAt} (before any polluter) the agent initialises the field's class and sends
 * the root as the passing state (point {@code probe-passing}); at the start of position {@code index} (the victim,
 * after its polluters) it sends the failing root (point {@code probe-failing}), then for each candidate call sequence
 * runs the calls by reflection, sends the root they leave (point {@code probe}, {@code test} the candidate's id, with
 * the first exception as {@code error}) and puts the failing value back before the next. The calls run on their own
 * thread; one that does not return within five seconds ends the probe.
 *
 * <p>The file is JSON: {@code {"root":"pkg.C.f","passingAt":0,"index":N,"candidates":[{"id":I,"calls":[{"owner":C,
 * "name":M,"desc":D,"static":B,"receiver":{"kind":"new"|"static-method"|"static-field","name":N},"args":[{"kind":
 * "null"|"string"|"int"|"long"|"boolean"|"double"|"char"|"new","value":V}]}]}]}}.
 */
final class Probe {
    /** How long one candidate's calls may take before the probe gives up on the rest. */
    private static final long CALL_MILLIS = 5_000;

    private final String root;
    private final int passingAt;
    private final int index;
    private final JsonArray candidates;
    private final Capture capture;
    private final Restorer restorer;

    private Probe(JsonObject o, Capture capture, Restorer restorer) {
        this.root = o.get("root").getAsString();
        this.passingAt = o.has("passingAt") ? o.get("passingAt").getAsInt() : -1;
        this.index = o.get("index").getAsInt();
        this.candidates = o.getAsJsonArray("candidates");
        this.capture = capture;
        this.restorer = restorer;
    }

    static Probe load(String path, Capture capture, Restorer restorer) {
        try {
            String text = new String(Files.readAllBytes(new File(path).toPath()), StandardCharsets.UTF_8);
            return new Probe(JsonParser.parseString(text).getAsJsonObject(), capture, restorer);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("state.probe " + path + ": " + e.getMessage(), e);
        }
    }

    /** Called right after each test-start. */
    void testStarting(int at) {
        try {
            if (at == passingAt) {
                send("probe-passing", "", snapshot(), null);
            }
            if (at != index) {
                return;
            }
            JsonObject failing = snapshot();
            send("probe-failing", "", failing, null);
            for (JsonElement e : candidates) {
                JsonObject c = e.getAsJsonObject();
                String[] error = new String[1];
                Thread t = new Thread(() -> {
                    try {
                        for (JsonElement call : c.getAsJsonArray("calls")) {
                            invoke(call.getAsJsonObject());
                        }
                    } catch (InvocationTargetException ex) {
                        error[0] = String.valueOf(ex.getCause());
                    } catch (Throwable ex) {
                        error[0] = String.valueOf(ex);
                    }
                }, "flaky-reset-probe");
                t.setDaemon(true);
                t.setContextClassLoader(Thread.currentThread().getContextClassLoader());
                t.start();
                t.join(CALL_MILLIS);
                if (t.isAlive()) {
                    // A call that blocks leaves the state unknown: stop here.
                    log("candidate " + c.get("id").getAsString() + " did not return within " + CALL_MILLIS + " ms");
                    return;
                }
                send("probe", c.get("id").getAsString(), snapshot(), error[0]);
                try {
                    restorer.restoreStatic(root, failing.get("tree"));
                } catch (Throwable ex) {
                    log("cannot put " + root + " back after candidate " + c.get("id").getAsString() + ": " + ex);
                }
            }
        } catch (Throwable t) {
            log("probe of " + root + " failed: " + t);
        }
    }

    /** The root's current value, walked as the capture walks it. */
    private JsonObject snapshot() throws ClassNotFoundException {
        int dot = root.lastIndexOf('.');
        Class<?> type = restorer.findClass(root.substring(0, dot));
        Map<String, JsonObject> roots = new TreeMap<>();
        capture.staticRoots(type, roots);
        JsonObject r = roots.get(Capture.key(Capture.STATIC, root));
        if (r == null) {
            throw new IllegalStateException("no static field " + root);
        }
        return r;
    }

    private void invoke(JsonObject call) throws Exception {
        Class<?> owner = restorer.findClass(call.get("owner").getAsString());
        Method m = method(owner, call.get("name").getAsString(), call.get("desc").getAsString());
        m.setAccessible(true);
        Object receiver = null;
        if (!call.get("static").getAsBoolean()) {
            receiver = obtain(owner, call.getAsJsonObject("receiver"));
        }
        Class<?>[] types = m.getParameterTypes();
        JsonArray args = call.getAsJsonArray("args");
        Object[] values = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            values[i] = argument(args.get(i).getAsJsonObject(), types[i]);
        }
        m.invoke(receiver, values);
    }

    private Object obtain(Class<?> owner, JsonObject how) throws Exception {
        String kind = how.get("kind").getAsString();
        String name = how.has("name") ? how.get("name").getAsString() : "";
        if ("static-method".equals(kind)) {
            Method m = owner.getDeclaredMethod(name);
            m.setAccessible(true);
            return m.invoke(null);
        }
        if ("static-field".equals(kind)) {
            Field f = owner.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(null);
        }
        Constructor<?> c = owner.getDeclaredConstructor();
        c.setAccessible(true);
        return c.newInstance();
    }

    private Object argument(JsonObject a, Class<?> type) throws Exception {
        String kind = a.get("kind").getAsString();
        String v = a.has("value") ? a.get("value").getAsString() : "";
        switch (kind) {
            case "null":
                return null;
            case "string":
                return v;
            case "boolean":
                return Boolean.parseBoolean(v);
            case "char":
                return v.isEmpty() ? '\0' : v.charAt(0);
            case "new":
                return obtain(restorer.findClass(v), new JsonObject());
            default:
                return number(v, type);
        }
    }

    private static Object number(String v, Class<?> type) {
        if (type == long.class || type == Long.class) {
            return Long.parseLong(v);
        }
        if (type == double.class || type == Double.class) {
            return Double.parseDouble(v);
        }
        if (type == float.class || type == Float.class) {
            return Float.parseFloat(v);
        }
        if (type == short.class || type == Short.class) {
            return Short.parseShort(v);
        }
        if (type == byte.class || type == Byte.class) {
            return Byte.parseByte(v);
        }
        return Integer.parseInt(v);
    }

    private static Method method(Class<?> owner, String name, String desc) throws NoSuchMethodException {
        for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && descriptor(m).equals(desc)) {
                    return m;
                }
            }
        }
        throw new NoSuchMethodException(owner.getName() + "." + name + desc);
    }

    private static String descriptor(Method m) {
        StringBuilder b = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            b.append(descriptor(p));
        }
        return b.append(')').append(descriptor(m.getReturnType())).toString();
    }

    private static String descriptor(Class<?> c) {
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        if (!c.isPrimitive()) {
            return "L" + c.getName().replace('.', '/') + ";";
        }
        if (c == void.class) {
            return "V";
        }
        if (c == boolean.class) {
            return "Z";
        }
        if (c == long.class) {
            return "J";
        }
        return String.valueOf(Character.toUpperCase(c.getName().charAt(0)));
    }

    private void send(String point, String id, JsonObject rootValue, String error) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("type", MessageTypes.STATE);
        e.put("point", point);
        e.put("test", id);
        e.put("index", index);
        e.put("roots", Collections.singletonList(rootValue));
        e.put("last", true);
        if (error != null) {
            e.put("error", error);
        }
        Channel.send(e);
    }

    private static void log(String message) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("type", MessageTypes.LOG);
        e.put("level", "warn");
        e.put("message", message);
        Channel.send(e);
    }
}
