package dev.flaky.surefire;

import dev.flaky.runner.EngineOrder;
import dev.flaky.runner.Failure;
import dev.flaky.runner.ListedTest;
import dev.flaky.runner.OrderEntry;
import dev.flaky.runner.RunnerListener;
import dev.flaky.runner.TestRunner;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiPredicate;

/**
 * One invocation of the flaky provider in a Surefire fork: chooses the order, runs it through the embedded runner
 * (whose events also reach the flaky driver when the agent is connected) with a per-test timeout ({@link TimedRun},
 * {@code -Dflaky.testTimeout}), reports to Surefire through a {@link Reporter}, and writes the fork record.
 *
 * @param <O> the reporter's type of captured output chunk
 */
public final class ForkRun<O> {
    /** System property naming the module's build directory, under which {@code flaky/fork.json} is written. */
    public static final String BUILD_DIR_PROPERTY = "flaky.buildDir";

    private static final AtomicBoolean WARNED_PER_CLASS = new AtomicBoolean();

    private final Reporter<O> reporter;
    private final Properties properties;
    private final OrderChoice choice;
    private final ForkRecord record;
    private final TestRunner runner;
    private final Listing listing;
    private final EngineOrder engineOrder;
    private final long testTimeoutMs;
    private volatile ClassReports<O> reports;
    private boolean perClass;

    /**
     * Starts a run: reads the order choice and records the fork as it is before any test runs.
     *
     * @param providerApi          {@code 2} or {@code 3}, the Surefire SPI generation
     * @param testLoader           the loader of the test classes
     * @param testClassesDirectory the module's test classes directory
     * @throws IllegalArgumentException when {@code -Dflaky.order}/{@code -Dflaky.shuffle}/{@code -Dflaky.testTimeout}
     *                                  are wrong
     */
    public ForkRun(Reporter<O> reporter, String surefireVersion, String providerApi, ClassLoader testLoader,
                   String testClassesDirectory) {
        this.reporter = reporter;
        this.properties = (Properties) System.getProperties().clone();
        this.choice = OrderChoice.from(properties);
        this.testTimeoutMs = TestTimeout.millis(properties);
        this.record = ForkRecord.snapshot(surefireVersion, providerApi, properties, testLoader, testClassesDirectory);
        record.order(choice);
        record.testTimeout(testTimeoutMs);
        this.runner = TestRunner.embedded(new Forwarding());
        this.listing = new Listing(runner);
        this.engineOrder = EngineOrder.of(testLoader);
    }

    /** The listing of test classes this run uses. */
    public Listing listing() {
        return listing;
    }

    /**
     * Runs Surefire's classes (given in its order) in one fork: the chosen order, which may interleave methods of
     * different classes. The default order is Surefire's: its classes in its order, methods in JUnit's, and when JUnit 4
     * classes run through the Vintage engine, engine by engine as the JUnit Platform runs them. {@code methodFilter} (class name, method name) applies Surefire's {@code -Dtest} method
     * patterns to the default and shuffled orders; an order file is run exactly.
     */
    public void runAll(List<String> surefireClasses, BiPredicate<String, String> methodFilter) throws IOException {
        List<String> classes = listing.withTests(surefireClasses);
        record.testClasses(classes);
        List<ListedTest> listed = engineOrder.apply(listing.tests(classes));
        TestSets sets = new TestSets(classes, listed);
        List<OrderEntry> order = plan(listed, methodFilter, sets, null);
        reporter.log("info", "flaky: " + choice.describe(order.size()));
        execute(order, sets);
    }

    /**
     * Runs one class, when Surefire hands this fork its classes one at a time (forkCount other than 1 or
     * reuseForks=false): the chosen order restricted to that class's tests, since other classes run elsewhere.
     */
    public void runClass(String className, BiPredicate<String, String> methodFilter) throws IOException {
        perClass = true;
        if (WARNED_PER_CLASS.compareAndSet(false, true)) {
            if (!OrderChoice.DEFAULT.equals(choice.kind)) {
                reporter.log("warn", "flaky: this fork gets one test class at a time (forkCount is not 1 or "
                        + "reuseForks is false), so the order applies within each class only; interleaving "
                        + "methods of different classes needs forkCount=1 and reuseForks=true");
            }
            if (OrderChoice.SHUFFLE.equals(choice.kind)) {
                reporter.log("info", "flaky: shuffling each class's tests with seed " + choice.seed);
            }
        }
        List<String> classes = Collections.singletonList(className);
        List<ListedTest> listed = listing.tests(classes);
        if (!listed.isEmpty()) {
            record.testClasses(classes);
        }
        TestSets sets = new TestSets(classes, listed);
        execute(plan(listed, methodFilter, sets, className), sets);
    }

    /**
     * Runs the classes of a test set that Surefire hands this fork: all of them in one order ({@link #runAll}) when
     * it lets the fork read them all first ({@code eager}), else each class as it arrives ({@link #runClass}), since
     * Surefire spreads them over several forks.
     */
    public void runClasses(Iterable<Class<?>> classes, boolean eager, BiPredicate<String, String> methodFilter)
            throws IOException {
        if (eager) {
            runAll(TestClasses.names(classes), methodFilter);
            return;
        }
        for (Class<?> c : classes) {
            runClass(c.getName(), methodFilter);
        }
    }

    /**
     * Runs {@code body}, then writes the fork record ({@link #writeRecord}) also when {@code body} fails; a record
     * that cannot be written is reported as an error, and what {@code body} throws is thrown on.
     *
     * @param <E> the exception of the provider's generation that {@code body} may throw besides an IOException
     */
    public <E extends Exception> void recording(Body<E> body) throws IOException, E {
        try {
            body.run();
        } finally {
            try {
                writeRecord();
            } catch (IOException e) {
                reporter.log("error", "flaky: cannot write the fork record: " + e);
            }
        }
    }

    /**
     * The part of a provider's invocation that runs tests (see {@link #recording}).
     *
     * @param <E> the exception of the provider's generation that it may throw besides an IOException
     */
    public interface Body<E extends Exception> {
        /** Runs the tests. */
        void run() throws IOException, E;
    }

    /** Captured test output: reported with the test that wrote it. */
    public void output(O chunk) {
        ClassReports<O> current = reports;
        if (current != null) {
            current.output(chunk);
        } else {
            reporter.output(null, null, chunk);
        }
    }

    /**
     * Writes the fork record to {@code ${flaky.buildDir}/flaky/fork.json}, or {@code fork-<pid>.json} when this
     * fork ran classes one at a time, and removes records of earlier runs it replaces; without
     * {@code flaky.buildDir} (no flaky profile) it writes nothing.
     */
    public void writeRecord() throws IOException {
        String buildDir = properties.getProperty(BUILD_DIR_PROPERTY);
        if (buildDir == null || buildDir.trim().isEmpty()) {
            reporter.log("warn", "flaky: -D" + BUILD_DIR_PROPERTY + " is not set, so no fork record is written");
            return;
        }
        Path dir = Paths.get(buildDir.trim(), "flaky");
        removeStaleRecords(dir);
        record.write(dir.resolve(perClass ? "fork-" + pid() + ".json" : "fork.json"));
    }

    /**
     * Removes records of earlier module runs that this one replaces: a single fork replaces every record; a fork of
     * per-class forks replaces a single fork's {@code fork.json} (its siblings' records are its own run's).
     */
    private void removeStaleRecords(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> records = Files.newDirectoryStream(dir, perClass ? "fork.json" : "fork-*.json")) {
            for (Path stale : records) {
                Files.deleteIfExists(stale);
            }
        }
    }

    private List<OrderEntry> plan(List<ListedTest> listed, BiPredicate<String, String> methodFilter, TestSets sets,
                                  String onlyTestSet) throws IOException {
        List<String> ids = new ArrayList<>();
        if (OrderChoice.FILE.equals(choice.kind)) {
            for (OrderEntry e : TestRunner.readOrder(choice.file)) {
                if (onlyTestSet == null || sets.of(e.className).equals(onlyTestSet)) {
                    ids.add(e.id);
                }
            }
        } else {
            for (ListedTest t : listed) {
                if (methodFilter.test(t.className, t.method)) {
                    ids.add(t.id);
                }
            }
            if (OrderChoice.SHUFFLE.equals(choice.kind)) {
                Collections.shuffle(ids, new Random(choice.seed));
            }
        }
        List<OrderEntry> order = new ArrayList<>(ids.size());
        for (String id : ids) {
            order.add(new OrderEntry(order.size(), id));
        }
        return order;
    }

    private void execute(List<OrderEntry> order, TestSets sets) {
        if (order.isEmpty()) {
            return;
        }
        ClassReports<O> current = new ClassReports<>(reporter, sets, order, record);
        reports = current;
        try {
            if (testTimeoutMs > 0) {
                new TimedRun(testTimeoutMs, TestRunner::embedded, new Forwarding()).run(order);
            } else {
                runner.run(order);
            }
        } finally {
            reports = null;
            current.finish();
            runner.flush();
        }
    }

    private static String pid() {
        String name = ManagementFactory.getRuntimeMXBean().getName();
        int at = name.indexOf('@');
        return at > 0 ? name.substring(0, at) : name;
    }

    /** Hands the runner's events to the reports of the running order; diagnostics go to the console. */
    private final class Forwarding implements RunnerListener {
        @Override
        public void classStart(String className) {
            ClassReports<O> r = reports;
            if (r != null) {
                r.classStart(className);
            }
        }

        @Override
        public void classEnd(String className) {
            ClassReports<O> r = reports;
            if (r != null) {
                r.classEnd(className);
            }
        }

        @Override
        public void testStart(String test, int index) {
            ClassReports<O> r = reports;
            if (r != null) {
                r.testStart(test, index);
            }
        }

        @Override
        public void testEnd(String test, int index, String outcome, long timeMs, Failure failure) {
            ClassReports<O> r = reports;
            if (r != null) {
                r.testEnd(test, index, outcome, timeMs, failure);
            }
        }

        @Override
        public void classError(String className, Failure failure) {
            ClassReports<O> r = reports;
            if (r != null) {
                r.classError(className, failure);
            }
        }

        @Override
        public void log(String level, String message) {
            reporter.log(level, "flaky: " + message);
        }
    }
}
