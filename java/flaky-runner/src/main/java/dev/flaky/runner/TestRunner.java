package dev.flaky.runner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runner as a library: lists test classes and runs orders of test ids with the project's JUnit (found through
 * the thread's context class loader), reporting through {@link Events}. {@link Main} drives it from the command
 * line; the flaky Surefire provider drives it in a Surefire fork with a {@link RunnerListener}.
 */
public final class TestRunner {
    private final Events events;
    private final Engines engines;

    private TestRunner(Events events) {
        this.events = events;
        this.engines = Engines.load(events);
        if (engines.jupiter == null && Classes.present("org.junit.jupiter.api.Test")) {
            events.log("warn", "the Jupiter API is on the class path but not the JUnit Platform launcher and the "
                    + "Jupiter engine: Jupiter tests cannot run");
        }
    }

    /** A runner reporting through {@code events}. */
    static TestRunner with(Events events) {
        return new TestRunner(events);
    }

    /**
     * A runner embedded in another program: events go to {@code listener}, and also to the flaky driver when the
     * flaky agent is attached and connected; nothing is printed to standard output.
     */
    public static TestRunner embedded(RunnerListener listener) {
        return new TestRunner(Events.embedded(listener));
    }

    /** Reads an order file: UTF-8, one test id per line; blank lines and {@code #} comments are ignored. */
    public static List<OrderEntry> readOrder(Path file) throws IOException {
        return OrderFile.read(file);
    }

    /**
     * Lists the tests of the named classes: grouped by the class they were found through, in the order of
     * {@code classNames}, each class's methods in the order its engine runs them by default; duplicates removed.
     * Classes that cannot be loaded are logged and skipped; classes without tests add none.
     */
    public List<ListedTest> list(List<String> classNames) {
        Map<Engine, List<Class<?>>> byEngine = new LinkedHashMap<>();
        Map<String, Integer> position = new HashMap<>();
        for (String name : classNames) {
            position.putIfAbsent(name, position.size());
            Class<?> c;
            try {
                c = Classes.load(name);
            } catch (ClassNotFoundException | LinkageError e) {
                events.log("warn", "cannot load test class " + name + ": " + e);
                continue;
            }
            Engine engine = engines.forClass(c);
            if (engine == null) {
                continue;
            }
            byEngine.computeIfAbsent(engine, k -> new ArrayList<>()).add(c);
        }
        List<ListedTest> tests = new ArrayList<>();
        for (Map.Entry<Engine, List<Class<?>>> e : byEngine.entrySet()) {
            tests.addAll(e.getKey().list(e.getValue(), events));
        }
        // Stable: keeps each engine's method order within a class.
        tests.sort(Comparator.comparing(t -> position.getOrDefault(t.listedClass, Integer.MAX_VALUE)));
        Map<String, ListedTest> unique = new LinkedHashMap<>();
        for (ListedTest t : tests) {
            unique.putIfAbsent(t.id, t);
        }
        return new ArrayList<>(unique.values());
    }

    /**
     * Runs {@code order} (entries indexed from 0 in order): {@code run-start}, each maximal run of consecutive
     * entries of one class as one JUnit execution (consecutive TestNG runs as one TestNG suite), then
     * {@code run-end}. Each class run begins with {@link Events#beginRun}, where the runner stops early when the
     * driver handed the rest of the order to another JVM ({@link Events#acceptHandoffs}).
     */
    public void run(List<OrderEntry> order) {
        events.runStart(order.size());
        Batch batch = new Batch();
        for (List<OrderEntry> run : OrderFile.classRuns(order)) {
            String className = run.get(0).className;
            Class<?> c;
            try {
                c = Classes.load(className);
            } catch (ClassNotFoundException | LinkageError e) {
                batch.flush(events);
                events.beginRun(run);
                for (OrderEntry entry : run) {
                    events.notFound(entry, "cannot load test class " + className + ": " + e);
                }
                continue;
            }
            Engine engine = engines.forClass(c);
            if (engine == null) {
                batch.flush(events);
                events.beginRun(run);
                for (OrderEntry entry : run) {
                    events.notFound(entry, "no JUnit engine on the class path runs " + className);
                }
                continue;
            }
            if (engine != batch.engine) {
                batch.flush(events);
            }
            batch.engine = engine;
            batch.classes.add(c);
            batch.runs.add(run);
        }
        batch.flush(events);
        events.runEnd();
    }

    /** Consecutive class runs of one engine, run together by {@link Engine#runAll}. */
    private static final class Batch {
        Engine engine;
        final List<Class<?>> classes = new ArrayList<>();
        final List<List<OrderEntry>> runs = new ArrayList<>();

        void flush(Events events) {
            if (engine != null) {
                engine.runAll(new ArrayList<>(classes), new ArrayList<>(runs), events);
            }
            engine = null;
            classes.clear();
            runs.clear();
        }
    }

    /** Makes sure every event sent to the driver so far has been delivered. */
    public void flush() {
        events.flush();
    }
}
