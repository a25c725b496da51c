package dev.flaky.runner.warm;

import dev.flaky.runner.Events;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs several orders in this JVM, one after another, each on a thread of its own in a fresh {@link WarmLoader}
 * (the runner's own classes included, so each order reports its {@code run-start} ... {@code run-end} as a fresh
 * JVM would), and puts the JDK state back between orders ({@link JdkState}). It stops early, leaving the remaining
 * orders to fresh JVMs, when an order fails to run or leaves state it cannot put back. Its notes go to the driver
 * as {@code log} events that start with {@value #PREFIX}.
 */
public final class Warm {
    /** Starts every log message of the warm bootstrap. */
    public static final String PREFIX = "warm: ";
    /** Starts the last log message of a warm JVM. */
    public static final String DONE = PREFIX + "done: ";
    private static final String ENTRY = "dev.flaky.runner.Main";
    /**
     * How long, at most, the JVM keeps collecting before it counts the finished orders' class loaders that are still
     * reachable. One collection is not enough: a loader can stay reachable for a moment after its order ended (a JIT
     * compilation of one of its methods in progress, a thread of its order still exiting, an object awaiting
     * finalization), longer on a loaded machine; a loader that a leak holds stays reachable for the whole bound.
     */
    static final long COLLECT_MILLIS = 5000;

    private Warm() {
    }

    /**
     * Runs the order files one after another; see the class comment. The last event is a log whose message starts
     * with {@value #DONE}: how many orders ran, why it stopped early, and how many of the finished orders' class
     * loaders are still reachable after collecting garbage for up to {@link #COLLECT_MILLIS} ms (each one that is
     * holds its classes in the metaspace).
     * Notes on what was reset are {@code info}, problems (threads left running, an early stop) {@code warn}.
     */
    public static void run(List<String> orderFiles, Events events) throws IOException, InterruptedException {
        URL[] urls = classPath();
        ClassLoader app = Warm.class.getClassLoader();
        JdkState start = JdkState.capture();
        ReferenceQueue<ClassLoader> cleared = new ReferenceQueue<>();
        List<WeakReference<ClassLoader>> finished = new ArrayList<>();
        String stop = null;
        int ran = 0;
        for (int i = 0; i < orderFiles.size() && stop == null; i++) {
            String where = "order " + (i + 1) + " of " + orderFiles.size();
            Throwable failure;
            try (WarmLoader loader = new WarmLoader(urls, app)) {
                failure = runIn(loader, orderFiles.get(i));
                finished.add(new WeakReference<ClassLoader>(loader, cleared));
            }
            if (failure != null) {
                StringWriter trace = new StringWriter();
                failure.printStackTrace(new PrintWriter(trace));
                stop = where + " failed to run: " + trace;
                break;
            }
            ran++;
            JdkState.Reset r = start.reset();
            if (!r.notes.isEmpty()) {
                events.log("info", PREFIX + "after " + where + ", reset " + String.join(", ", r.notes));
            }
            if (r.threads != null) {
                events.log("warn", PREFIX + r.threads);
            }
            if (r.unfit != null) {
                stop = "after " + where + ", " + r.unfit;
            }
        }
        int reachable = stillReachable(finished, cleared, COLLECT_MILLIS);
        String done = DONE + ran + " of " + orderFiles.size() + " orders ran";
        if (stop != null) {
            done += "; stopped " + stop;
        }
        done += "; " + reachable + " of " + finished.size() + " order class loaders still reachable";
        events.log(stop != null || reachable > 0 ? "warn" : "info", done);
        events.flush();
    }

    /**
     * Collects garbage until every reference in refs is cleared or boundMillis have passed, and returns how many are
     * still not cleared. Between collections it waits (at most 100 ms) for the collector to enqueue a cleared
     * reference on queue, where refs are registered.
     */
    static int stillReachable(List<? extends Reference<?>> refs, ReferenceQueue<?> queue, long boundMillis)
            throws InterruptedException {
        long deadline = System.nanoTime() + boundMillis * 1_000_000L;
        for (long wait = 10; ; wait = Math.min(2 * wait, 100)) {
            System.gc();
            int reachable = 0;
            for (Reference<?> ref : refs) {
                if (ref.get() != null) {
                    reachable++;
                }
            }
            long leftNanos = deadline - System.nanoTime();
            if (reachable == 0 || leftNanos <= 0) {
                return reachable;
            }
            // Rounded up: a bound with less than a millisecond left is still waited out.
            queue.remove(Math.min(wait, (leftNanos + 999_999L) / 1_000_000L));
        }
    }

    /** Runs one order file in loader on a new thread named main; returns what stopped it from running, or null. */
    private static Throwable runIn(ClassLoader loader, String orderFile) throws InterruptedException {
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                Class.forName(ENTRY, true, loader).getMethod("runWarmOrder", String.class).invoke(null, orderFile);
            } catch (java.lang.reflect.InvocationTargetException e) {
                failure[0] = e.getCause();
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, "main");
        t.setContextClassLoader(loader);
        t.start();
        t.join();
        return failure[0];
    }

    /** The JVM's class path as URLs (a jar's manifest Class-Path is followed by the loader). */
    private static URL[] classPath() throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }
}
