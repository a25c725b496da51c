package dev.flaky.runner.warm;

import java.io.File;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.ResponseCache;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.TreeMap;

/**
 * The JDK state that outlives an order's class loader, taken once before the first order and put back after each:
 * system properties, the default locale (each category) and time zone, {@code System.out/err/in}, the default
 * uncaught-exception handler, cookie handler, proxy selector and response cache, the files and directories of the
 * working directory and {@code java.io.tmpdir} (the ones created are deleted, and only when both listings are
 * complete), and shutdown hooks (removed). What cannot be put back (a file that existed before and changed or went
 * away, directories too large to list) makes {@link #reset} say so: the JVM is then not fit for another order.
 * Threads an order leaves running (still alive after waiting up to {@link #JOIN_MILLIS} ms in all for those it
 * started to end) are reported.
 */
final class JdkState {
    private static final int MAX_ENTRIES = 20_000;
    private static final int MAX_DEPTH = 8;
    /** How long, at most, in all, the threads an order started may take to end before they count as left running. */
    static final long JOIN_MILLIS = 2000;

    private final Properties properties;
    private final Map<String, String> propertyValues;
    private final Locale locale;
    private final Locale display;
    private final Locale format;
    private final TimeZone zone;
    private final PrintStream out;
    private final PrintStream err;
    private final InputStream in;
    private final Thread.UncaughtExceptionHandler uncaught;
    private final CookieHandler cookies;
    private final ProxySelector proxies;
    private final ResponseCache responses;
    private final File cwd;
    private final File tmp;
    private final Map<String, String> files;
    /** Whether {@link #files} lists every entry (within the depth bound); only then may created files be deleted. */
    private final boolean complete;
    private final Set<Thread> threads;
    private final Set<Thread> hooks;
    /** Threads an earlier order left running: they are reported again without being waited for again. */
    private final Set<Thread> leftRunning = new HashSet<>();

    private JdkState() {
        // The JDK sets user.timezone when it first works out the default zone: do that before the snapshot.
        zone = TimeZone.getDefault();
        properties = System.getProperties();
        propertyValues = strings(properties);
        locale = Locale.getDefault();
        display = Locale.getDefault(Locale.Category.DISPLAY);
        format = Locale.getDefault(Locale.Category.FORMAT);
        out = System.out;
        err = System.err;
        in = System.in;
        uncaught = Thread.getDefaultUncaughtExceptionHandler();
        cookies = CookieHandler.getDefault();
        proxies = ProxySelector.getDefault();
        responses = ResponseCache.getDefault();
        cwd = new File(System.getProperty("user.dir", ".")).getAbsoluteFile();
        tmp = new File(System.getProperty("java.io.tmpdir", "/tmp")).getAbsoluteFile();
        int[] budget = {MAX_ENTRIES};
        files = listing(budget);
        complete = budget[0] >= 0;
        threads = new HashSet<>(Thread.getAllStackTraces().keySet());
        hooks = ShutdownHooks.registered();
    }

    /** Takes the state as it is now. */
    static JdkState capture() {
        return new JdkState();
    }

    /**
     * Puts the state back and returns what the order left behind: notes on what was reset or reported, and whether
     * the JVM can run another order faithfully.
     */
    Reset reset() throws InterruptedException {
        Reset r = new Reset();
        if (System.getProperties() != properties) {
            System.setProperties(properties);
            r.notes.add("System.setProperties replaced the properties");
        }
        List<String> props = new ArrayList<>();
        for (Object key : new ArrayList<>(properties.keySet())) {
            String k = String.valueOf(key);
            if (!(key instanceof String) || !propertyValues.containsKey(k)) {
                properties.remove(key);
                props.add(k);
            }
        }
        for (Map.Entry<String, String> e : propertyValues.entrySet()) {
            Object now = properties.get(e.getKey());
            if (!e.getValue().equals(now)) {
                properties.put(e.getKey(), e.getValue());
                props.add(e.getKey());
            }
        }
        if (!props.isEmpty()) {
            Collections.sort(props);
            r.notes.add("system properties " + props);
        }
        if (!locale.equals(Locale.getDefault()) || !display.equals(Locale.getDefault(Locale.Category.DISPLAY))
                || !format.equals(Locale.getDefault(Locale.Category.FORMAT))) {
            Locale.setDefault(locale);
            Locale.setDefault(Locale.Category.DISPLAY, display);
            Locale.setDefault(Locale.Category.FORMAT, format);
            r.notes.add("the default locale");
        }
        if (!zone.equals(TimeZone.getDefault())) {
            TimeZone.setDefault(zone);
            r.notes.add("the default time zone");
        }
        if (System.out != out || System.err != err || System.in != in) {
            System.setOut(out);
            System.setErr(err);
            System.setIn(in);
            r.notes.add("System.out/err/in");
        }
        if (Thread.getDefaultUncaughtExceptionHandler() != uncaught) {
            Thread.setDefaultUncaughtExceptionHandler(uncaught);
            r.notes.add("the default uncaught-exception handler");
        }
        if (CookieHandler.getDefault() != cookies || ProxySelector.getDefault() != proxies
                || ResponseCache.getDefault() != responses) {
            CookieHandler.setDefault(cookies);
            ProxySelector.setDefault(proxies);
            ResponseCache.setDefault(responses);
            r.notes.add("the default cookie handler, proxy selector or response cache");
        }
        resetFiles(r);
        resetHooks(r);
        List<Thread> started = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !threads.contains(t) && !jdkThread(t)) {
                (leftRunning.contains(t) ? running : started).add(t);
            }
        }
        running.addAll(stillAlive(started, JOIN_MILLIS));
        leftRunning.addAll(running);
        List<String> left = new ArrayList<>();
        for (Thread t : running) {
            left.add(t.getName() + (t.isDaemon() ? " (daemon)" : ""));
        }
        if (!left.isEmpty()) {
            Collections.sort(left);
            r.threads = "threads left running: " + left;
        }
        return r;
    }

    /**
     * Waits up to boundMillis in all for the threads to end, and returns those still alive then: a thread that was
     * only exiting when its order ended is not left running.
     */
    static List<Thread> stillAlive(List<Thread> threads, long boundMillis) throws InterruptedException {
        long deadline = System.nanoTime() + boundMillis * 1_000_000L;
        List<Thread> alive = new ArrayList<>();
        for (Thread t : threads) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left > 0) {
                t.join(left);
            }
            if (t.isAlive()) {
                alive.add(t);
            }
        }
        return alive;
    }

    /** Deletes the files and directories the order created; a file that existed before and changed is unfit. */
    private void resetFiles(Reset r) {
        if (!complete) {
            r.unfit = "the working and temporary directories hold more than " + MAX_ENTRIES + " entries: files cannot be reset";
            return;
        }
        int[] budget = {MAX_ENTRIES};
        Map<String, String> now = listing(budget);
        if (budget[0] < 0) {
            r.unfit = "the order left more than " + MAX_ENTRIES + " entries in the working and temporary directories";
            return;
        }
        List<String> created = new ArrayList<>();
        for (Map.Entry<String, String> e : now.entrySet()) {
            String before = files.get(e.getKey());
            if (before == null) {
                created.add(e.getKey());
            } else if (!before.equals(e.getValue())) {
                r.unfit = "the file " + e.getKey() + " changed";
            }
        }
        for (String name : files.keySet()) {
            if (!now.containsKey(name)) {
                r.unfit = "the file " + name + " was deleted";
            }
        }
        // Reverse order: a directory's entries before the directory.
        Collections.sort(created, Collections.reverseOrder());
        for (String name : created) {
            File f = file(name);
            if (!f.delete() && f.exists()) {
                r.unfit = "cannot delete the file " + name;
            }
        }
        if (!created.isEmpty()) {
            r.notes.add(created.size() + " file(s) created");
        }
    }

    /** Removes the shutdown hooks the order added (they would keep its class loader, and run at exit). */
    private void resetHooks(Reset r) {
        Set<Thread> now = ShutdownHooks.registered();
        if (now == null || hooks == null) {
            return;
        }
        int removed = 0;
        for (Thread hook : now) {
            if (!hooks.contains(hook)) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                    removed++;
                } catch (IllegalStateException | SecurityException e) {
                    r.unfit = "cannot remove a shutdown hook: " + e;
                }
            }
        }
        if (removed > 0) {
            r.notes.add(removed + " shutdown hook(s) removed");
        }
    }

    /** Threads the JDK starts on demand and keeps (common pool workers, reference handlers, timers of its own). */
    private static boolean jdkThread(Thread t) {
        String name = t.getName();
        return name.startsWith("ForkJoinPool.commonPool-") || name.equals("Attach Listener")
                || name.equals("Common-Cleaner") || name.equals("process reaper") || name.startsWith("Keep-Alive-")
                || name.equals("DestroyJavaVM");
    }

    private File file(String name) {
        return name.startsWith("${tmp}/") ? new File(tmp, name.substring(7)) : new File(cwd, name);
    }

    /**
     * Files (size and modification time) and directories (empty value) under the working and temporary directories,
     * at most {@code budget[0]} entries (the budget ends below 0 when there were more).
     */
    private Map<String, String> listing(int[] budget) {
        Map<String, String> out = new TreeMap<>();
        list(cwd, "", 0, out, budget);
        if (!tmp.equals(cwd)) {
            list(tmp, "${tmp}/", 0, out, budget);
        }
        return out;
    }

    private void list(File dir, String prefix, int depth, Map<String, String> out, int[] budget) {
        File[] children = dir.listFiles();
        if (children == null || depth > MAX_DEPTH) {
            return;
        }
        for (File c : children) {
            if (budget[0]-- <= 0) {
                return;
            }
            String name = prefix + c.getName();
            if (c.isDirectory()) {
                if (skipped(name) || (c.getAbsoluteFile().equals(tmp) && !prefix.startsWith("${tmp}/"))) {
                    continue;
                }
                out.put(name, "");
                list(c, name + "/", depth + 1, out, budget);
            } else {
                out.put(name, c.length() + "/" + c.lastModified());
            }
        }
    }

    private static boolean skipped(String name) {
        return name.equals(".git") || name.equals("target/classes") || name.equals("target/test-classes")
                || name.equals("target/flaky");
    }

    private static Map<String, String> strings(Properties p) {
        Map<String, String> out = new TreeMap<>();
        for (String k : p.stringPropertyNames()) {
            Object v = p.get(k);
            if (v instanceof String) {
                out.put(k, (String) v);
            }
        }
        return out;
    }

    /** What {@link #reset} did and found. */
    static final class Reset {
        /** What was put back. */
        final List<String> notes = new ArrayList<>();
        /** Why the JVM cannot run another order faithfully, or null. */
        String unfit;
        /** The threads the order left running, or null. */
        String threads;
    }
}
